public import BlobStore
public import Foundation
import Imaging
import MediaFetch
import ObjectStore

/// `verify` of a cache directory, as a plan (every problem found; nothing touched)
/// and its repair.
///
/// The objects (originals, packs, thumbnails) are judged by the same
/// ``ObjectAudit`` that checks a bucket, over the cache's own folder
/// (``Cache/folder``): every original streamed through SHA-256, `lanes` at a time.
/// What only a local cache has is this layer: its index (rows whose blob is gone,
/// derived files it lists that are not there), the derived area's leftovers (trees
/// of the layout before packs, half-written files, files whose original is gone),
/// and the local repairs. Repairs never delete evidence: a corrupt blob is moved
/// to `quarantine/`, not unlinked.
public enum CacheVerification {
    public enum ProblemKind: String, Sendable, Codable {
        /// The bytes no longer hash to the blob's name.
        case corruptBlob = "corrupt_blob"
        /// The blob could not be read at all.
        case unreadableBlob = "unreadable_blob"
        /// The index has rows (URLs, blob, derived) for a blob that is not on disk.
        case missingBlob = "missing_blob"
        /// The index lists a derived file that is not on disk.
        case missingDerived = "missing_derived"
        /// A derived file or folder on disk whose original is not in the cache.
        case orphanDerived = "orphan_derived"
        /// A pyramid pack that is truncated or damaged (header, index or a tile's checksum).
        case corruptPack = "corrupt_pack"
        /// A thumbnail whose bytes are not what its maker recorded (or not an image).
        case corruptDerived = "corrupt_derived"
        /// Per-tile trees of the layout before packs; repairing converts them to a pack.
        case oldLayout = "old_layout"
        /// A manifest says a URL is one blob, and the index (what this cache fetched from
        /// that URL) says another: a manifest planted or edited would show the wrong photo.
        case manifestDisagrees = "manifest_disagrees"
        /// A run's manifest that does not read (a damaged frame of a compressed one, a
        /// file cut short, not a manifest): its posts are out of the catalog, and
        /// nothing it names is known to be used, until it is put back (`sync`) or removed.
        case manifestUnreadable = "manifest_unreadable"
    }

    public struct Problem: Sendable, Codable, Equatable {
        public var kind: ProblemKind
        public var sha256: String
        public var path: String
        public var detail: String
        /// What the repair did, when it fixed it.
        public var repaired: String?

        public init(kind: ProblemKind, sha256: String, path: String, detail: String, repaired: String? = nil) {
            self.kind = kind
            self.sha256 = sha256
            self.path = path
            self.detail = detail
            self.repaired = repaired
        }
    }

    /// How derived files are made again. The pipeline's ``DerivedRepair`` (and a tree of
    /// the layout before packs converted by ``LayoutMigration``) unless a test says otherwise.
    public struct Checks: Sendable {
        /// Makes the derived files of an image again from these rows (the damaged or
        /// old-layout file already removed); `pyramid` when the problem was its pyramid
        /// (which the index may not have recorded). Throws a readable reason.
        public var rederive: @Sendable (_ hash: BlobHash, _ records: [DerivedRecord], _ pyramid: Bool) throws -> Void

        public init(rederive: @escaping @Sendable (BlobHash, [DerivedRecord], Bool) throws -> Void) {
            self.rederive = rederive
        }

        /// Derived files made again as a fetch makes them, with a pack even where the
        /// index recorded none (the tile server makes packs it records nowhere).
        public static func standard(store: BlobStore, index: CacheIndex, threads: Int) -> Checks {
            Checks { hash, rows, pyramid in
                // A folder of the layout before packs that its first opening could not
                // convert (the original was missing then) is converted now.
                if FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.legacyFolder(hash))) {
                    try LayoutMigration.convert(hash, store: store, index: index, threads: threads)
                    return
                }
                _ = try DerivedRepair.rederive(hash, records: rows, store: store, index: index, threads: threads,
                                               rebuildPyramid: pyramid)
            }
        }
    }

    public struct Plan: Sendable, Equatable {
        public var problems: [Problem]
        public var blobsChecked: Int
        public var bytesHashed: Int
        public var derivedChecked: Int
        /// The derived rows the repair re-derives from.
        var derivedRows: [DerivedRecord]
    }

    /// Finds every problem, `lanes` objects judged at a time; `progress` counts them.
    public static func plan(cache: Cache, lanes: Int, progress: WorkProgress? = nil) async throws(CacheError) -> Plan {
        let store = cache.blobs, index = cache.index
        let listed = try await listShards(cache.folder, lanes: lanes)
        // A stray name under blobs/ (an editor's backup) is not a blob; the derived
        // area's leftovers are looked at below, with the index.
        let (objects, _) = ObjectAudit.sort(listed)
        let present = Set(objects.compactMap { object, key in if case .original(let hash) = key { hash } else { nil } })
        let judged = objects.filter { _, key in key.owner.map(present.contains) ?? false }
        progress?.addTotal(judged.count)
        var audit = ObjectAudit(storage: cache.folder, width: lanes)
        audit.maxReadBytes = 1 << 30  // what the cache's own reads take (`BlobStore.readDerived`)
        let verdicts = await audit.judge(judged, expected: { key in
            key.owner.flatMap { try? index.contentHashes(ofDerived: key.path, source: $0) } ?? []
        }, progress: progress)
        progress?.setPhase("checking the index and derived files")

        var problems: [Problem] = []
        var blobsChecked = 0, bytesHashed = 0, checked = 0
        for verdict in verdicts where !verdict.gone {  // gone: removed while we ran (gc), not damage
            guard let hash = verdict.key.owner else { continue }
            let path = store.layout.path(verdict.object.key)
            switch (verdict.key.kind, verdict.finding) {
            case (.original, .good):
                blobsChecked += 1
                bytesHashed += verdict.object.size
            case (.original, .wrong):
                blobsChecked += 1
                problems.append(Problem(kind: .corruptBlob, sha256: hash.hex, path: path, detail: "bytes do not hash to the name"))
            case (.original, .unreadable(let why)):
                blobsChecked += 1
                problems.append(Problem(kind: .unreadableBlob, sha256: hash.hex, path: path, detail: why))
            case (_, .good):
                checked += 1
            case (let kind, .wrong(let why)), (let kind, .unreadable(let why)):
                checked += 1
                problems.append(Problem(kind: kind == .pack ? .corruptPack : .corruptDerived, sha256: hash.hex, path: path, detail: why))
            }
        }
        let blobRows: [BlobRecord], urlRows: [URLRecord], derivedRows: [DerivedRecord], hashedRows: [BlobHash]
        do {
            blobRows = try index.allBlobRecords()
            urlRows = try index.allURLRecords()
            derivedRows = try index.allDerivedRecords()
            // A PDQ hash is a fact of its blob's bytes: with the blob gone it is dangling too.
            hashedRows = try index.allPDQHashes()
        } catch {
            throw .unusable(error.description)
        }

        // Index rows whose blob is gone (one problem per blob, however many rows).
        var dangling: [BlobHash: Int] = [:]
        for h in blobRows.map(\.hash) + urlRows.map(\.hash) + derivedRows.map(\.hash) + hashedRows where !present.contains(h) {
            dangling[h, default: 0] += 1
        }
        for (hash, count) in dangling.sorted(by: { $0.key < $1.key }) {
            problems.append(Problem(kind: .missingBlob, sha256: hash.hex, path: store.path(for: hash).path,
                                    detail: "\(count) index row\(count == 1 ? "" : "s") but no blob"))
        }
        for row in derivedRows where present.contains(row.hash) {
            let path = store.layout.path(row.path)
            if !FileManager.default.fileExists(atPath: path) {
                problems.append(Problem(kind: .missingDerived, sha256: row.hash.hex, path: path,
                                        detail: "\(row.kind) \(row.sizeParameter) is missing"))
            }
        }
        // What only a cache directory holds in its derived area: old trees, what an
        // interrupted write left, and files whose original is gone.
        for entry in store.allDerivedEntries() {
            let path = store.layout.path(entry.path)
            guard present.contains(entry.hash) else {
                if dangling[entry.hash] == nil {
                    problems.append(Problem(kind: .orphanDerived, sha256: entry.hash.hex, path: path,
                                            detail: "derived files of an image not in the cache"))
                }
                continue
            }
            if entry.isLegacyFolder {
                problems.append(Problem(kind: .oldLayout, sha256: entry.hash.hex, path: path,
                                        detail: "per-tile trees of the layout before packs (a repair converts them)"))
            } else if entry.key == nil {
                checked += 1
                if let why = derivedProblem(entry, store: store, index: index) {
                    problems.append(Problem(kind: .corruptDerived, sha256: entry.hash.hex, path: path, detail: why))
                }
            }
        }
        problems.sort { ($0.sha256, $0.kind.rawValue, $0.path) < ($1.sha256, $1.kind.rawValue, $1.path) }
        return Plan(problems: problems, blobsChecked: blobsChecked, bytesHashed: bytesHashed,
                    derivedChecked: max(derivedRows.count, checked), derivedRows: derivedRows)
    }

    /// The originals and derived files of a cache folder, listed a shard at a time on
    /// `lanes` threads: a directory entry's `stat` costs as much as hashing a small
    /// blob, and one thread listing 10,000 of them left the other core idle.
    static func listShards(_ folder: LocalStorage, lanes: Int) async throws(CacheError) -> [StoredObject] {
        let shards = (0..<256).flatMap { n -> [String] in
            let shard = String(format: "%02x", n)
            return [CacheLayout.blobsFolder + "/" + shard + "/", CacheLayout.derivedFolder + "/" + shard + "/"]
        }
        var listed: [StoredObject] = [], failure: String? = nil
        await concurrently(shards, width: max(1, lanes), { shard -> Result<[StoredObject], StoreError> in
            do throws(StoreError) { return .success(try await folder.list(shard)) } catch { return .failure(error) }
        }) { result in
            switch result {
            case let .success(objects): listed += objects
            case let .failure(error): failure = failure ?? error.description
            }
        }
        if let failure { throw .unusable(failure) }
        return listed
    }

    /// Why the derived file of `entry` cannot be used, or nil when it is sound: judged
    /// as a bucket's are (``ObjectCheck``), a thumbnail against the hashes the index
    /// recorded for it. What an interrupted write left beside an image's files
    /// (`….thumb-150.jpg.tmp-42`) has no name of its own: kept when it is whole,
    /// reported (and so removed by a repair) when it is not even an image.
    static func derivedProblem(_ entry: DerivedEntry, store: BlobStore, index: CacheIndex) -> String? {
        let bytes: [UInt8]
        do { bytes = try store.readDerived(entry.path) } catch { return String(describing: error) }
        guard let key = entry.key else { return (try? ImageDecoder.info(of: bytes)) == nil ? "not an image" : nil }
        let expected = (try? index.contentHashes(ofDerived: entry.path, source: entry.hash)) ?? []
        if case let .wrong(why) = ObjectCheck.judge(key, bytes: bytes, expected: expected) { return why }
        return nil
    }

    /// Repairs what a plan found, re-checking each problem first (a fetch may
    /// have fixed it meanwhile); returns the problems with what was done.
    public static func repair(_ plan: Plan, cache: Cache, checks: Checks? = nil, lanes: Int = 1, now: Date = Date()) -> [Problem] {
        let store = cache.blobs, index = cache.index
        let checks = checks ?? .standard(store: store, index: index, threads: lanes)
        // Once per image and purpose: a missing thumbnail and a damaged pack of the
        // same image are two repairs.
        var rederived: [String: String?] = [:]
        func rederiveOnce(_ hash: BlobHash, _ records: [DerivedRecord], pyramid: Bool) -> String? {
            let key = "\(hash.hex)/\(pyramid)"
            if let done = rederived[key] { return done }
            var failure: String? = nil
            do { try checks.rederive(hash, records, pyramid) } catch { failure = String(describing: error) }
            rederived[key] = .some(failure)
            return failure
        }
        return plan.problems.map { problem in
            var p = problem
            guard let hash = BlobHash(hex: p.sha256) else { return p }
            switch p.kind {
            case .unreadableBlob:
                // Permission denied or an I/O error says nothing about the bytes: keep it.
                p.detail += " (left in place: fix access and verify again)"
            case .corruptBlob:
                do {
                    try FileManager.default.createDirectory(at: store.layout.quarantineURL, withIntermediateDirectories: true)
                    let target = store.layout.url(CacheLayout.quarantined(hash))
                    try? FileManager.default.removeItem(at: target)
                    try FileManager.default.moveItem(at: store.path(for: hash), to: target)
                    _ = try index.forget(hash)
                    store.removeDerived(of: hash)
                    p.repaired = "moved to \(CacheLayout.quarantined(hash)); its URLs will be fetched again"
                } catch {
                    p.detail += " (repair failed: \(error))"
                }
            case .missingBlob:
                // Published by a fetch since the scan began: not missing any more.
                if store.contains(hash) {
                    p.repaired = "present now (stored while verifying)"
                    return p
                }
                do {
                    _ = try index.forget(hash)
                    store.removeDerived(of: hash)
                    p.repaired = "index rows dropped; its URLs will be fetched again"
                } catch {
                    p.detail += " (repair failed: \(error))"
                }
            case .missingDerived:
                if let error = rederiveOnce(hash, plan.derivedRows.filter { $0.hash == hash }, pyramid: false) {
                    p.detail += " (repair failed: \(error))"
                } else if FileManager.default.fileExists(atPath: p.path) {
                    p.repaired = "derived again"
                }
            case .corruptDerived:
                return remakeDerived(p, hash: hash, rows: plan.derivedRows.filter { $0.hash == hash }, store: store, index: index, checks: checks)
            case .manifestUnreadable:
                p.detail += " (left as is: copy it again from the store with `sync`, or remove it)"
                return p
            case .manifestDisagrees:
                // Which is right cannot be told from here; the fetch that recorded the index
                // row saw the origin, the manifest may be anyone's. Said, never rewritten.
                p.detail += " (left as is: remove the manifest if it is not this cache's own)"
                return p
            case .corruptPack, .oldLayout:
                // Re-checked first: another process may have rebuilt or converted it since.
                let entries = store.derivedEntries(of: hash)
                let stillDamaged = entries.contains { entry in
                    entry.isLegacyFolder ? p.kind == .oldLayout
                        : p.kind == .corruptPack && derivedProblem(entry, store: store, index: index) != nil
                }
                guard stillDamaged else {
                    p.repaired = "sound now (repaired while verifying)"
                    return p
                }
                // The rebuild takes the old pyramid's tile size, overlap and quality,
                // removes the damaged pack or the old folder, and makes the pack again.
                if let error = rederiveOnce(hash, plan.derivedRows.filter { $0.hash == hash }, pyramid: true) {
                    p.detail += " (repair failed: \(error))"
                    return p
                }
                let after = store.derivedEntries(of: hash)
                let sound = after.contains { $0.path == CacheLayout.pack(hash) } && after.allSatisfy { entry in
                    !entry.isLegacyFolder && derivedProblem(entry, store: store, index: index) == nil
                }
                if sound { p.repaired = p.kind == .corruptPack ? "rebuilt from the original" : "converted to a pack" }
            case .orphanDerived:
                // A fetch may be deriving into it right now: leave recent files alone.
                let modified = (try? FileManager.default.attributesOfItem(atPath: p.path)[.modificationDate] as? Date) ?? .distantPast
                if store.contains(hash) || now.timeIntervalSince(modified) < 3600 {
                    p.detail += " (left in place: its original is present or it changed within the last hour)"
                    return p
                }
                do {
                    try FileManager.default.removeItem(atPath: p.path)
                    p.repaired = "removed"
                } catch {
                    p.detail += " (repair failed: \((error as NSError).localizedDescription))"
                }
            }
            return p
        }
    }

    /// A thumbnail that is not what its maker recorded: moved aside (not deleted: it
    /// is evidence) and made again from the original; re-checked first, as another
    /// process may have made it again since.
    static func remakeDerived(_ problem: Problem, hash: BlobHash, rows: [DerivedRecord], store: BlobStore,
                              index: CacheIndex, checks: Checks) -> Problem {
        var p = problem
        guard let entry = store.derivedEntries(of: hash).first(where: { store.layout.path($0.path) == p.path }),
              derivedProblem(entry, store: store, index: index) != nil else {
            p.repaired = "sound now (repaired while verifying)"
            return p
        }
        let target = store.layout.quarantineURL.appendingPathComponent((p.path as NSString).lastPathComponent)
        try? FileManager.default.createDirectory(at: store.layout.quarantineURL, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: target)
        guard (try? FileManager.default.moveItem(atPath: p.path, toPath: target.path)) != nil else {
            p.detail += " (repair failed: could not move it aside)"
            return p
        }
        do { try checks.rederive(hash, rows, false) } catch {
            p.detail += " (moved to quarantine; remaking it failed: \(error))"
            return p
        }
        p.repaired = FileManager.default.fileExists(atPath: p.path)
            ? "moved to quarantine and made again" : "moved to quarantine (made again when next asked for)"
        return p
    }
}
