import CacheCore
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
        /// A manifest names the object, so deleting it left a missing object, not a fixed one.
        public var stillNamed = false

        enum CodingKeys: String, CodingKey {
            case path, message, unverified, deleted, restored
            case stillNamed = "still_named"
        }
    }

    /// The largest pack or thumbnail read whole to be checked (in memory, `concurrency` at
    /// a time); originals are hashed as they stream, whatever their size.
    public static let maxVerifiedBytes = 512 << 20

    public struct VerifyReport: Sendable, Codable, Equatable {
        public var blobsChecked = 0
        public var bytesHashed = 0
        public var packsChecked = 0
        public var thumbnailsChecked = 0
        /// Objects the bucket's manifests name.
        public var named = 0
        public var problems: [Problem] = []

        /// Problems not fixed: a wrong object deleted is fixed only when nothing names it
        /// (a named one is now missing until a machine that has it uploads it again).
        public var remaining: Int { problems.filter { !$0.restored && (!$0.deleted || $0.stillNamed) }.count }

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
                    + (problem.restored ? " (put back from this machine's verified copy)"
                        : problem.deleted && problem.stillNamed ? " (deleted; a manifest names it, so it is missing until a machine that has it fetches again)"
                        : problem.deleted ? " (deleted)" : ""))
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
        var found = try await namedObjects()
        // A manifest that does not read is a problem of its own; --repair puts back this
        // machine's copy (path-free, as runs upload it), and what it names is then checked.
        var restoredManifests = false
        for (key, why) in found.unreadable {
            var problem = Problem(path: key, message: why + "; skipped", deleted: false)
            if repair, let local = Self.localManifest(key, in: localRoot) {
                do {
                    _ = try await BucketManifest.store(local, as: key, in: storage)
                    problem.restored = true
                    restoredManifests = true
                } catch {
                    problem.message += "; could not put back this machine's copy: \(error.description)"
                }
            } else if repair {
                problem.message += "; this machine holds no copy to put back"
            }
            report.problems.append(problem)
        }
        if restoredManifests {
            let problems = report.problems
            found = try await namedObjects()
            report.problems = problems
        }
        let named = found.objects
        report.named = named.count
        let listed = try await storage.list(CacheLayout.blobsFolder + "/") + storage.list(CacheLayout.derivedFolder + "/")
        let (checked, foreign) = ObjectAudit.sort(listed)
        for object in foreign {
            report.problems.append(Problem(path: object.key, message: "not a name TweetCache writes; left alone",
                                           unverified: true, deleted: false))
        }
        var audit = ObjectAudit(storage: storage, width: concurrency)
        audit.maxReadBytes = Self.maxVerifiedBytes
        let verdicts = await audit.judge(checked, expected: { named[$0.path] ?? [] })
        let present = Set(listed.map(\.key))
        for verdict in verdicts {
            let key = verdict.object.key
            switch verdict.key.kind {
            case .original:
                report.blobsChecked += 1
                if case .good = verdict.finding { report.bytesHashed += verdict.object.size }
            case .pack: report.packsChecked += 1
            default: report.thumbnailsChecked += 1  // the audit judges originals, packs and thumbnails
            }
            switch verdict.finding {
            case .good: continue
            case let .unreadable(why):
                report.problems.append(Problem(path: key, message: why, unverified: true, deleted: false))
            case let .wrong(why):
                var problem = Problem(path: key, message: why, deleted: false)
                problem.stillNamed = named[key] != nil
                if repair {
                    if await putBack(key, expected: named[key] ?? [], from: localRoot) { problem.restored = true }
                    else {
                        do {
                            try await storage.delete(key)
                            problem.deleted = true
                        } catch {
                            problem.message += "; could not delete it: \(error.description)"
                        }
                    }
                }
                report.problems.append(problem)
            }
        }
        for (key, expected) in named.sorted(by: { $0.key < $1.key }) where !present.contains(key) {
            var problem = Problem(path: key, message: "named by a manifest but not in the bucket", deleted: false)
            problem.stillNamed = true
            if repair {
                if await putBack(key, expected: expected, from: localRoot) { problem.restored = true }
                else { problem.message += "; this machine holds no verified copy to put back (or could not write it)" }
            }
            report.problems.append(problem)
        }
        return report
    }

    /// What the bucket's manifests name: every original, pack and thumbnail with the
    /// SHA-256s recorded for it (an original's is its name; a thumbnail's, what each
    /// maker recorded; none for a pack, which checks itself), and the objects under
    /// `manifests/` that could not be read as manifests, with why. Those name
    /// nothing anyone can see; each command decides what that means for it.
    public struct Named: Sendable {
        public var objects: [String: Set<BlobHash>] = [:]
        public var unreadable: [(key: String, why: String)] = []
    }

    /// Every manifest read, a post at a time; a junk or damaged object is noted and skipped.
    public func namedObjects() async throws(StoreError) -> Named {
        var named = Named()
        for object in try await storage.list(CacheLayout.manifestsFolder + "/") where CacheKey(path: object.key)?.kind == .manifest {
            // Copied to a scratch file and read a post at a time: a manifest is any size.
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("tweetcache-manifest-\(UInt64.random(in: .min ... .max)).json")
            defer { try? FileManager.default.removeItem(at: scratch) }
            do {
                guard try await storage.download(object.key, to: scratch) else { continue }
            } catch {
                named.unreadable.append((object.key, "could not be read (\(error.description))"))
                continue
            }
            do {
                try Self.read(manifestAt: scratch, into: &named.objects)
            } catch {
                named.unreadable.append((object.key, "not a manifest TweetCache can read (\(error))"))
            }
        }
        return named
    }

    /// Adds what the manifest at `file` names to `named`; throws when it is not a manifest.
    /// A bucket's manifests are whole: one naming another manifest's bytes is refused.
    static func read(manifestAt file: URL, into named: inout [String: Set<BlobHash>]) throws {
        try SeekableZstdFile.requireWhole(file.path)
        let manifest = try ManifestFile(url: file)
        var found: [String: Set<BlobHash>] = [:]
        try manifest.forEachPost(releasing: true) { _, range in
            let post = try manifest.post(at: range)
            for upload in StorePublisher.uploads(of: [post]) {
                var hashes = found[upload.path] ?? []
                if let hex = upload.sha256, let hash = BlobHash(hex: hex) { hashes.insert(hash) }
                found[upload.path] = hashes
            }
            for thumbnail in StorePublisher.thumbnails(of: post) {
                if let hash = thumbnail.sha256.flatMap(BlobHash.init(hex:)) { found[thumbnail.path, default: []].insert(hash) }
            }
        }
        named.merge(found) { $0.union($1) }
    }

    /// Whether `key` is a name a run gives its manifest (`manifests/20261122T063000Z….json`):
    /// a damaged object there is a lost run's record, not junk someone left.
    static func isRunManifestName(_ key: String) -> Bool {
        guard let name = key.split(separator: "/").last else { return false }
        let stamp = name.prefix(16)
        return stamp.count == 16 && stamp.dropFirst(8).first == "T" && stamp.last == "Z"
            && stamp.enumerated().allSatisfy { index, c in index == 8 || index == 15 || c.isASCII && c.isNumber }
    }

    /// The local cache's own copy of the manifest stored under `key`, when it has one that reads.
    static func localManifest(_ key: String, in localRoot: URL?) -> URL? {
        guard let localRoot, CacheKey(path: key)?.kind == .manifest else { return nil }
        let file = localRoot.appendingPathComponent(key)
        var ignored: [String: Set<BlobHash>] = [:]
        guard FileManager.default.fileExists(atPath: file.path), (try? read(manifestAt: file, into: &ignored)) != nil else { return nil }
        return file
    }

    /// Puts `key` back from the local cache when a copy there passes the check an
    /// object under that name must pass; true when it did.
    private func putBack(_ key: String, expected: Set<BlobHash>, from localRoot: URL?) async -> Bool {
        guard let localRoot, let parsed = CacheKey(path: key), parsed.isShared else { return false }
        let file = localRoot.appendingPathComponent(key)
        guard let bytes = FileManager.default.contents(atPath: file.path).map({ [UInt8]($0) }) else { return false }
        switch ObjectCheck.judge(key, bytes: bytes, expected: expected) {
        case .good: break
        default: return false
        }
        let hex = if case .original(let hash) = parsed { hash.hex } else { String?.none }
        return (try? await storage.store(key, bytes: bytes, sha256: hex, contentType: StorePublisher.contentType(key, file: file),
                                        replace: true)) != nil
    }

    /// How often a running fetch renews its lease, and how long after its last renewal
    /// a lease still holds collection back: a run killed (SIGKILL, a lost machine)
    /// stops renewing and blocks gc for minutes, not a day.
    public static let leaseRenewal: TimeInterval = 60
    public static let leaseLifetime: TimeInterval = 10 * 60

    /// The leases under `leases/`: runs' (`<name>.json.zst`; a run names its lease after
    /// its unfinished manifest, `.partial-<hex>.json.zst`, `.json` before) and anything else (a failed write
    /// check's `.write-check-*`, `bogus`), which is junk and never blocks.
    func leases() async throws(StoreError) -> (runs: [StoredObject], junk: [String]) {
        var runs: [StoredObject] = [], junk: [String] = []
        for object in try await storage.list(CacheLayout.leasesFolder + "/") {
            if case .lease = CacheKey(path: object.key) { runs.append(object) } else { junk.append(object.key) }
        }
        return (runs, junk)
    }

    /// The leases renewed within ``leaseLifetime`` of `now`, each with how long ago.
    static func live(_ leases: [StoredObject], now: Date) -> [String] {
        leases.compactMap { lease in
            guard let renewed = lease.lastModified else { return "\(lease.key) (renewed at an unknown time)" }
            let age = now.timeIntervalSince(renewed)
            guard age < leaseLifetime else { return nil }
            return "\(lease.key) (renewed \(Int(max(0, age).rounded())) s ago)"
        }
    }
}
