import Catalog
import BlobStore
public import Foundation
import Imaging
public import ObjectStore

/// `verify`, `stats` and `gc` over a bucket: what the local commands do for a
/// cache directory, for the objects every machine shares.
public struct BucketMaintenance: Sendable {
    public let client: S3Client
    /// Objects checked at once.
    public var concurrency = 8

    public init(client: S3Client) { self.client = client }

    // MARK: - Verify

    public struct Problem: Sendable, Codable, Equatable {
        public var path: String
        public var message: String
        /// The object could not be read (the store failed, or it is too large to check
        /// here): nothing is known against it, so `--repair` never deletes it.
        public var unverified: Bool = false
        /// `--repair` deleted the object (the next fetch that has it uploads it again).
        public var deleted: Bool
    }

    /// What checking one object found.
    enum Finding: Sendable {
        case good
        /// Proven wrong: its bytes are not what its name says.
        case wrong(String)
        case unreadable(String)
    }

    /// The largest object re-hashed (in memory, `concurrency` at a time).
    public static let maxVerifiedBytes = 512 << 20

    public struct VerifyReport: Sendable, Codable, Equatable {
        public var blobsChecked = 0
        public var bytesHashed = 0
        public var packsChecked = 0
        public var problems: [Problem] = []

        public var remaining: Int { problems.filter { !$0.deleted }.count }

        enum CodingKeys: String, CodingKey {
            case problems
            case blobsChecked = "blobs_checked"
            case bytesHashed = "bytes_hashed"
            case packsChecked = "packs_checked"
        }

        public var text: String {
            var lines = ["bucket: \(blobsChecked) originals re-hashed (\(ByteCount.format(bytesHashed))), \(packsChecked) packs checked"]
            for problem in problems {
                lines.append("  \(problem.path): \(problem.message)" + (problem.deleted ? " (deleted)" : ""))
            }
            lines.append(problems.isEmpty ? "no problems" : "\(problems.count) problems, \(remaining) remaining"
                + (problems.contains(where: \.unverified) ? " (objects that could not be read are never deleted)" : ""))
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// Re-hashes every original in the bucket against its name, and reads every
    /// pack's header and index (by range) to check it is a pack of that original.
    /// With `repair`, objects that fail are deleted: a wrong byte under a content
    /// address is worse than none, and any machine holding the right bytes puts
    /// them back on its next fetch.
    public func verify(repair: Bool) async throws(S3Error) -> VerifyReport {
        var report = VerifyReport()
        let blobs = try await client.list(CacheLayout.blobsFolder + "/")
        let packs = try await client.list(CacheLayout.derivedFolder + "/").filter { $0.key.hasSuffix(CacheLayout.packSuffix) }
        enum Outcome: Sendable { case blob(Int, Finding), pack(Finding) }
        let jobs: [(S3Object, Bool)] = blobs.map { ($0, true) } + packs.map { ($0, false) }
        var outcomes: [(String, Outcome)] = []
        await concurrently(jobs, width: concurrency, { [client] job -> (String, Outcome) in
            let (object, isBlob) = job
            if isBlob { return (object.key, .blob(object.size, await Self.checkBlob(client, object))) }
            return (object.key, .pack(await Self.checkPack(client, object)))
        }) { outcomes.append($0) }
        for (key, outcome) in outcomes.sorted(by: { $0.0 < $1.0 }) {
            let finding: Finding
            switch outcome {
            case let .blob(size, found):
                report.blobsChecked += 1
                if case .good = found { report.bytesHashed += size }
                finding = found
            case let .pack(found):
                report.packsChecked += 1
                finding = found
            }
            switch finding {
            case .good: continue
            case let .unreadable(why):
                report.problems.append(Problem(path: key, message: why, unverified: true, deleted: false))
            case let .wrong(why):
                var deleted = false
                if repair { deleted = (try? await client.delete(key)) != nil }
                report.problems.append(Problem(path: key, message: why, deleted: deleted))
            }
        }
        return report
    }

    private static func checkBlob(_ client: S3Client, _ object: S3Object) async -> Finding {
        guard let name = object.key.split(separator: "/").last, let hash = BlobHash(hex: String(name)),
              object.key == CacheLayout.blob(hash)
        else { return .unreadable("not a name an original is stored under; left alone") }
        guard object.size <= maxVerifiedBytes else {
            return .unreadable("\(ByteCount.format(object.size)), larger than verify re-hashes here")
        }
        do {
            guard let bytes = try await client.get(object.key, maxBytes: maxVerifiedBytes) else { return .unreadable("listed but gone") }
            let actual = BlobHash(hashing: bytes)
            return actual == hash ? .good : .wrong("its bytes hash to \(actual.hex), not to its name")
        } catch {
            return .unreadable("could not be read: \(error.description)")
        }
    }

    private static func checkPack(_ client: S3Client, _ object: S3Object) async -> Finding {
        guard CacheLayout.isSharedObject(object.key), let name = object.key.split(separator: "/").last,
              let hash = CacheLayout.derivedOwner(fileName: String(name))
        else { return .unreadable("not a pack's name; left alone") }
        do {
            guard var head = try await client.read(object.key, range: 0..<4096) else { return .unreadable("listed but gone") }
            guard let end = PyramidPack.indexEnd(header: head.bytes) else { return .wrong("not a pyramid pack") }
            if end > head.bytes.count {
                guard let whole = try await client.read(object.key, range: 0..<end) else { return .unreadable("listed but gone") }
                head = whole
            }
            let pack = try PyramidPack(headerAndIndex: head.bytes, fileLength: head.objectSize)
            return pack.source == hash.bytes ? .good : .wrong("a pack of another original")
        } catch let error as S3Error {
            return .unreadable("could not be read: \(error.description)")
        } catch {
            return .wrong("damaged: \(error)")
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
    public func stats() async throws(S3Error) -> Stats {
        var stats = Stats(location: client.location.description)
        for object in try await client.list("") {
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
    public func collect(grace: TimeInterval, now: Date = Date(), dryRun: Bool) async throws(S3Error) -> CollectReport {
        var report = CollectReport(dryRun: dryRun)
        report.blockedBy = try await runsUploading(now: now)
        if !report.blockedBy.isEmpty { return report }
        var referenced = Set<String>()
        for object in try await client.list(CacheLayout.manifestsFolder + "/") where object.key.hasSuffix(".json") {
            // Copied to a scratch file and read a post at a time: a manifest is any size.
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("tweetcache-gc-\(UInt64.random(in: .min ... .max)).json")
            defer { try? FileManager.default.removeItem(at: scratch) }
            guard try await client.download(object.key, to: scratch) else { continue }
            // A manifest that cannot be read names nothing we can see: stop rather than
            // delete what it might name.
            let unreadable = S3Error.malformed("\(object.key) is not a manifest; not collecting while it cannot be read")
            guard let manifest = try? ManifestFile(url: scratch) else { throw unreadable }
            do {
                try manifest.forEachPost(releasing: true) { _, range in
                    for upload in StorePublisher.uploads(of: [try manifest.post(at: range)]) {
                        referenced.insert(upload.path)
                    }
                }
            } catch {
                throw unreadable
            }
        }
        report.referenced = referenced.count
        let candidates = try await client.list(CacheLayout.blobsFolder + "/") + client.list(CacheLayout.derivedFolder + "/")
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
            if !dryRun { try await client.delete(object.key) }
            report.removed.append(object.key)
            report.bytesRemoved += object.size
        }
        return report
    }

    /// How long a run's lease holds collection back; an older one is a run that died.
    public static let leaseLifetime: TimeInterval = 86_400

    /// The leases of runs uploading now.
    private func runsUploading(now: Date) async throws(S3Error) -> [String] {
        try await client.list(CacheLayout.leasesFolder + "/").filter { lease in
            lease.lastModified.map { now.timeIntervalSince($0) < Self.leaseLifetime } ?? true
        }.map(\.key)
    }

}
