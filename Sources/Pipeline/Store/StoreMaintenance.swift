import Catalog
import MediaFetch
import BlobStore
public import Foundation
import Imaging
public import ObjectStore

/// `verify`, `stats` and `gc` of a shared store (a bucket, a shared folder),
/// written once over ``CacheStorage``: what the local commands do for a cache
/// directory and its index, for the objects every machine shares.
public struct StoreMaintenance: Sendable {
    public let storage: any CacheStorage
    /// Objects checked at once.
    public var concurrency = 8

    public init(storage: any CacheStorage) { self.storage = storage }

    // MARK: - Verify

    public struct Problem: Sendable, Codable, Equatable {
        public var path: String
        public var message: String
        /// The object could not be read (the store failed, or it is too large to check
        /// here): nothing is known against it, so `--repair` never deletes it.
        public var unverified: Bool = false
        /// `--repair` deleted the object (the next fetch that has it uploads it again).
        public var deleted: Bool
        /// `--repair` put back this machine's verified copy.
        public var restored = false
    }

    typealias Finding = ObjectCheck.Finding

    /// The largest object re-hashed (in memory, `concurrency` at a time).
    public static let maxVerifiedBytes = 512 << 20

    public struct VerifyReport: Sendable, Codable, Equatable {
        public var blobsChecked = 0
        public var bytesHashed = 0
        public var packsChecked = 0
        public var thumbnailsChecked = 0
        /// Objects the bucket's manifests name.
        public var named = 0
        public var problems: [Problem] = []

        public var remaining: Int { problems.filter { !$0.deleted && !$0.restored }.count }

        enum CodingKeys: String, CodingKey {
            case problems, named
            case blobsChecked = "blobs_checked"
            case bytesHashed = "bytes_hashed"
            case packsChecked = "packs_checked"
            case thumbnailsChecked = "thumbnails_checked"
        }

        public var text: String {
            var lines = ["bucket: \(blobsChecked) originals re-hashed (\(ByteCount.format(bytesHashed))), \(packsChecked) packs"
                + " and every tile in them checked, \(thumbnailsChecked) thumbnails checked, \(named) objects named by manifests"]
            for problem in problems {
                lines.append("  \(problem.path): \(problem.message)"
                    + (problem.restored ? " (put back from this machine's verified copy)" : problem.deleted ? " (deleted)" : ""))
            }
            lines.append(problems.isEmpty ? "no problems" : "\(problems.count) problems, \(remaining) remaining"
                + (problems.contains(where: \.unverified) ? " (objects that could not be read are never deleted)" : ""))
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Checks the bucket against what it must hold: every original re-hashed
    /// against its name, every pack read whole (header, index, each tile's CRC,
    /// and that it is a pack of its original), every thumbnail against the hash its
    /// maker recorded in the manifest (one that none recorded must at least be an
    /// image), and every object a manifest names present.
    ///
    /// With `repair`, a wrong or missing object is put back from `localRoot` (this
    /// machine's cache) when a copy there passes the same check; a wrong one with
    /// no sound copy is deleted (a wrong byte under a content address is worse than
    /// none, and a machine holding the right bytes puts them back on its next fetch).
    public func verify(repair: Bool, localRoot: URL? = nil) async throws(StoreError) -> VerifyReport {
        var report = VerifyReport()
        let named = try await namedObjects()
        report.named = named.count
        let listed = try await storage.list(CacheLayout.blobsFolder + "/") + storage.list(CacheLayout.derivedFolder + "/")
        enum Kind: Sendable { case blob, pack, thumbnail }
        var jobs: [(StoredObject, Kind)] = []
        for object in listed {
            if object.key.hasPrefix(CacheLayout.blobsFolder + "/") { jobs.append((object, .blob)) }
            else if object.key.hasSuffix(CacheLayout.packSuffix) { jobs.append((object, .pack)) }
            else if object.key.contains(".thumb-") { jobs.append((object, .thumbnail)) }
        }
        var outcomes: [(String, Kind, Int, Finding)] = []
        await concurrently(jobs, width: concurrency, { [storage] job -> (String, Kind, Int, Finding) in
            let (object, kind) = job
            let finding: Finding
            switch kind {
            case .blob: finding = await Self.checkBlob(storage, object)
            case .pack: finding = await Self.checkPack(storage, object)
            case .thumbnail: finding = await Self.checkThumbnail(storage, object, expected: named[object.key] ?? [])
            }
            return (object.key, kind, object.size, finding)
        }) { outcomes.append($0) }
        let present = Set(listed.map(\.key))
        for (key, kind, size, finding) in outcomes.sorted(by: { $0.0 < $1.0 }) {
            switch kind {
            case .blob:
                report.blobsChecked += 1
                if case .good = finding { report.bytesHashed += size }
            case .pack: report.packsChecked += 1
            case .thumbnail: report.thumbnailsChecked += 1
            }
            switch finding {
            case .good: continue
            case let .unreadable(why):
                report.problems.append(Problem(path: key, message: why, unverified: true, deleted: false))
            case let .wrong(why):
                var problem = Problem(path: key, message: why, deleted: false)
                if repair {
                    if await putBack(key, expected: named[key] ?? [], from: localRoot) { problem.restored = true }
                    else { problem.deleted = (try? await storage.delete(key)) != nil }
                }
                report.problems.append(problem)
            }
        }
        for (key, expected) in named.sorted(by: { $0.key < $1.key }) where !present.contains(key) {
            var problem = Problem(path: key, message: "named by a manifest but not in the bucket", deleted: false)
            if repair, await putBack(key, expected: expected, from: localRoot) { problem.restored = true }
            report.problems.append(problem)
        }
        return report
    }

    /// Every original, pack and thumbnail the bucket's manifests name, with the
    /// SHA-256s recorded for it (an original's is its name; a thumbnail's, what
    /// each maker recorded; none for a pack, which checks itself).
    public func namedObjects() async throws(StoreError) -> [String: Set<BlobHash>] {
        var named: [String: Set<BlobHash>] = [:]
        for object in try await storage.list(CacheLayout.manifestsFolder + "/") where CacheLayout.isManifestPath(object.key) {
            // Copied to a scratch file and read a post at a time: a manifest is any size.
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("tweetcache-manifest-\(UInt64.random(in: .min ... .max)).json")
            defer { try? FileManager.default.removeItem(at: scratch) }
            guard try await storage.download(object.key, to: scratch) else { continue }
            // A manifest that cannot be read names nothing we can see: stop rather than
            // act on what it might name.
            let unreadable = StoreError.malformed("\(object.key) is not a manifest; stopping while it cannot be read")
            guard let manifest = try? ManifestFile(url: scratch) else { throw unreadable }
            do {
                try manifest.forEachPost(releasing: true) { _, range in
                    let post = try manifest.post(at: range)
                    for upload in StorePublisher.uploads(of: [post]) {
                        var hashes = named[upload.path] ?? []
                        if let hex = upload.sha256, let hash = BlobHash(hex: hex) { hashes.insert(hash) }
                        named[upload.path] = hashes
                    }
                    for thumbnail in StorePublisher.thumbnails(of: post) {
                        if let hash = thumbnail.sha256.flatMap(BlobHash.init(hex:)) { named[thumbnail.path, default: []].insert(hash) }
                    }
                }
            } catch {
                throw unreadable
            }
        }
        return named
    }

    /// Puts `key` back from the local cache when a copy there passes the check an
    /// object under that name must pass; true when it did.
    private func putBack(_ key: String, expected: Set<BlobHash>, from localRoot: URL?) async -> Bool {
        guard let localRoot, CacheLayout.isSharedObject(key) else { return false }
        let file = CacheLayout(root: localRoot).url(key)
        guard let bytes = FileManager.default.contents(atPath: file.path).map({ [UInt8]($0) }) else { return false }
        switch ObjectCheck.judge(key, bytes: bytes, expected: expected) {
        case .good: break
        default: return false
        }
        let hex = key.hasPrefix(CacheLayout.blobsFolder + "/") ? String(key.split(separator: "/").last ?? "") : nil
        return (try? await storage.store(key, bytes: bytes, sha256: hex, contentType: StorePublisher.contentType(key, file: file),
                                        replace: true)) != nil
    }

    private static func checkBlob(_ storage: any CacheStorage, _ object: StoredObject) async -> Finding {
        guard let name = object.key.split(separator: "/").last, let hash = BlobHash(hex: String(name)),
              object.key == CacheLayout.blob(hash)
        else { return .unreadable("not a name an original is stored under; left alone") }
        return await read(storage, object) { ObjectCheck.judge(object.key, bytes: $0, expected: []) }
    }

    private static func checkPack(_ storage: any CacheStorage, _ object: StoredObject) async -> Finding {
        guard CacheLayout.isSharedObject(object.key) else { return .unreadable("not a pack's name; left alone") }
        return await read(storage, object) { ObjectCheck.judge(object.key, bytes: $0, expected: []) }
    }

    private static func checkThumbnail(_ storage: any CacheStorage, _ object: StoredObject, expected: Set<BlobHash>) async -> Finding {
        guard CacheLayout.isSharedObject(object.key) else { return .unreadable("not a thumbnail's name; left alone") }
        return await read(storage, object) { ObjectCheck.judge(object.key, bytes: $0, expected: expected) }
    }

    private static func read(_ storage: any CacheStorage, _ object: StoredObject, _ judge: ([UInt8]) -> Finding) async -> Finding {
        guard object.size <= maxVerifiedBytes else {
            return .unreadable("\(ByteCount.format(object.size)), larger than verify reads here")
        }
        do {
            guard let bytes = try await storage.get(object.key, maxBytes: maxVerifiedBytes) else { return .unreadable("listed but gone") }
            return judge(bytes)
        } catch {
            return .unreadable("could not be read: \(error.description)")
        }
    }

    // MARK: - Stats

    public struct Stats: Sendable, Codable, Equatable {
        public var location: String
        public var originals = 0
        public var originalBytes = 0
        public var packs = 0
        public var packBytes = 0
        public var thumbnails = 0
        public var thumbnailBytes = 0
        public var manifests = 0
        public var other = 0

        enum CodingKeys: String, CodingKey {
            case location, originals, packs, thumbnails, manifests, other
            case originalBytes = "original_bytes"
            case packBytes = "pack_bytes"
            case thumbnailBytes = "thumbnail_bytes"
        }

        public var text: String {
            """
            store      \(location)
            originals  \(originals) (\(ByteCount.format(originalBytes)))
            packs      \(packs) (\(ByteCount.format(packBytes)))
            thumbnails \(thumbnails) (\(ByteCount.format(thumbnailBytes)))
            manifests  \(manifests)\(other > 0 ? "\nother      \(other) objects TweetCache did not write" : "")

            """
        }
    }

    /// Counts and sizes of what the bucket holds, from one listing.
    public func stats() async throws(StoreError) -> Stats {
        var stats = Stats(location: storage.address)
        for object in try await storage.list("") {
            if object.key.hasPrefix(CacheLayout.blobsFolder + "/") {
                stats.originals += 1
                stats.originalBytes += object.size
            } else if object.key.hasPrefix(CacheLayout.derivedFolder + "/"), object.key.hasSuffix(CacheLayout.packSuffix) {
                stats.packs += 1
                stats.packBytes += object.size
            } else if object.key.hasPrefix(CacheLayout.derivedFolder + "/"), object.key.contains(".thumb-") {
                stats.thumbnails += 1
                stats.thumbnailBytes += object.size
            } else if object.key.hasPrefix(CacheLayout.manifestsFolder + "/") {
                stats.manifests += 1
            } else {
                stats.other += 1
            }
        }
        return stats
    }

    // MARK: - Garbage collection

    public struct CollectReport: Sendable, Codable, Equatable {
        public var referenced = 0
        public var removed: [String] = []
        public var bytesRemoved = 0
        /// Unreferenced but written within the grace period (a fetch may be uploading
        /// the manifest that names them).
        public var tooNew = 0
        public var dryRun = false
        /// Leases of runs uploading now (younger than the grace period): while one
        /// exists nothing is deleted.
        public var blockedBy: [String] = []

        enum CodingKeys: String, CodingKey {
            case referenced, removed
            case bytesRemoved = "bytes_removed"
            case tooNew = "too_new"
            case dryRun = "dry_run"
            case blockedBy = "blocked_by"
        }

        public var text: String {
            if !blockedBy.isEmpty {
                return "bucket: runs are uploading (\(blockedBy.joined(separator: ", "))); nothing collected, try later\n"
            }
            return "bucket: \(referenced) objects named by manifests; \(dryRun ? "would remove" : "removed") \(removed.count) "
                + "(\(ByteCount.format(bytesRemoved))); \(tooNew) unreferenced but newer than the grace period kept\n"
        }
    }

    /// Deletes originals and derived files no manifest in the bucket names. Safe
    /// while other machines fetch: they upload a run's files before its manifest,
    /// so an unreferenced object younger than `grace` is kept.
    public func collect(grace: TimeInterval, now: Date = Date(), dryRun: Bool) async throws(StoreError) -> CollectReport {
        var report = CollectReport(dryRun: dryRun)
        report.blockedBy = try await runsUploading(now: now)
        if !report.blockedBy.isEmpty { return report }
        let referenced = Set(try await namedObjects().keys)
        report.referenced = referenced.count
        let candidates = try await storage.list(CacheLayout.blobsFolder + "/") + storage.list(CacheLayout.derivedFolder + "/")
        for object in candidates where !referenced.contains(object.key) {
            guard let written = object.lastModified, now.timeIntervalSince(written) >= grace else {
                report.tooNew += 1
                continue
            }
            // A run that started since the last look stops the collection.
            if report.removed.count % 100 == 99 {
                report.blockedBy = try await runsUploading(now: now)
                if !report.blockedBy.isEmpty { return report }
            }
            if !dryRun { try await storage.delete(object.key) }
            report.removed.append(object.key)
            report.bytesRemoved += object.size
        }
        return report
    }

    /// How long a run's lease holds collection back; an older one is a run that died.
    public static let leaseLifetime: TimeInterval = 86_400

    /// The leases of runs uploading now.
    private func runsUploading(now: Date) async throws(StoreError) -> [String] {
        try await storage.list(CacheLayout.leasesFolder + "/").filter { lease in
            lease.lastModified.map { now.timeIntervalSince($0) < Self.leaseLifetime } ?? true
        }.map(\.key)
    }

}
