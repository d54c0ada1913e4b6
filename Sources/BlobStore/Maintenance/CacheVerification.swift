public import Foundation
internal import Dispatch
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Checks a cache against itself, as a plan (every problem found; nothing
/// touched) and its repair.
///
/// The plan re-hashes every blob on every core (each lane streaming its blobs
/// through SHA-256 1 MiB at a time, taking the next from a shared counter so one
/// large blob does not leave a core idle), then checks the index against the
/// disk and every file of the derived area. Repairs never delete evidence: a
/// corrupt blob is moved to `quarantine/`, not unlinked.
///
/// What derived files mean (a pack's tiles, how to make one again) is not the
/// store's to know: the caller passes ``Checks``.
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

    /// What the caller knows about derived files.
    public struct Checks: Sendable {
        /// Why the derived file at this absolute path cannot be used, or nil when it is sound.
        public var derivedFile: @Sendable (_ entry: DerivedEntry, _ path: String) -> String?
        /// Makes the derived files of an image again from these rows (the damaged
        /// or old-layout file already removed); `pyramid` when the problem was its
        /// pyramid (which the index may not have recorded). Throws a readable reason.
        public var rederive: @Sendable (_ hash: BlobHash, _ records: [DerivedRecord], _ pyramid: Bool) throws -> Void

        public init(
            derivedFile: @escaping @Sendable (DerivedEntry, String) -> String?,
            rederive: @escaping @Sendable (BlobHash, [DerivedRecord], Bool) throws -> Void
        ) {
            self.derivedFile = derivedFile
            self.rederive = rederive
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

    /// Finds every problem, `lanes` blobs hashed at a time; `progress` counts the blobs.
    public static func plan(store: BlobStore, index: CacheIndex, lanes: Int, checks: Checks,
                            progress: WorkProgress? = nil) throws(BlobStoreError) -> Plan {
        let onDisk = Array(store.allBlobs())
        progress?.addTotal(onDisk.count)
        let hashed = hashAll(onDisk, store: store, lanes: max(1, lanes), progress: progress)
        progress?.setPhase("checking the index and derived files")
        var problems = hashed.problems
        let present = Set(onDisk)
        let blobRows = try index.allBlobRecords()
        let urlRows = try index.allURLRecords()
        let derivedRows = try index.allDerivedRecords()
        // A PDQ hash is a fact of its blob's bytes: with the blob gone it is dangling too.
        let hashedRows = try index.allPDQHashes()

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
        // What the derived area holds: files checked by the caller's rules, old
        // trees, and files whose original is gone.
        var checked = 0
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
                continue
            }
            checked += 1
            if let why = checks.derivedFile(entry, path) {
                let kind: ProblemKind = entry.key?.kind == .pack ? .corruptPack : .corruptDerived
                problems.append(Problem(kind: kind, sha256: entry.hash.hex, path: path, detail: why))
            }
        }
        return Plan(problems: problems, blobsChecked: onDisk.count, bytesHashed: hashed.bytes,
                    derivedChecked: max(derivedRows.count, checked), derivedRows: derivedRows)
    }

    /// Repairs what a plan found, re-checking each problem first (a fetch may
    /// have fixed it meanwhile); returns the problems with what was done.
    public static func repair(_ plan: Plan, store: BlobStore, index: CacheIndex, checks: Checks, now: Date = Date()) -> [Problem] {
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
                return remakeDerived(p, hash: hash, rows: plan.derivedRows.filter { $0.hash == hash }, store: store, checks: checks)
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
                        : p.kind == .corruptPack && checks.derivedFile(entry, store.layout.path(entry.path)) != nil
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
                    !entry.isLegacyFolder && checks.derivedFile(entry, store.layout.path(entry.path)) == nil
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
                              checks: Checks) -> Problem {
        var p = problem
        guard let entry = store.derivedEntries(of: hash).first(where: { store.layout.path($0.path) == p.path }),
              checks.derivedFile(entry, p.path) != nil else {
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

    /// Every blob re-hashed, `lanes` at a time.
    static func hashAll(_ hashes: [BlobHash], store: BlobStore, lanes: Int, progress: WorkProgress? = nil)
        -> (problems: [Problem], bytes: Int)
    {
        let state = LockedState()
        DispatchQueue.concurrentPerform(iterations: min(lanes, max(1, hashes.count))) { _ in
            while let i = state.next(limit: hashes.count) {
                let hash = hashes[i]
                let path = store.path(for: hash).path
                defer { progress?.advance(by: 1) }
                do throws(BlobStoreError) {
                    let ok = try store.verify(hash)
                    var info = stat()
                    let size = stat(path, &info) == 0 ? Int(info.st_size) : 0
                    state.add(bytes: size, problem: ok ? nil : Problem(
                        kind: .corruptBlob, sha256: hash.hex, path: path, detail: "bytes do not hash to the name"))
                } catch {
                    if case .blobNotFound = error { continue }  // removed while we ran (gc): not damage
                    state.add(bytes: 0, problem: Problem(kind: .unreadableBlob, sha256: hash.hex, path: path,
                                                         detail: error.description))
                }
            }
        }
        return state.result()
    }
}

/// The hashing lanes' shared work counter and results.
private final class LockedState: @unchecked Sendable {
    private let lock = NSLock()
    private var index = 0
    private var problems: [CacheVerification.Problem] = []
    private var bytes = 0

    func next(limit: Int) -> Int? {
        lock.withLock {
            guard index < limit else { return nil }
            defer { index += 1 }
            return index
        }
    }

    func add(bytes: Int, problem: CacheVerification.Problem?) {
        lock.withLock {
            self.bytes += bytes
            if let problem { problems.append(problem) }
        }
    }

    func result() -> (problems: [CacheVerification.Problem], bytes: Int) {
        lock.withLock { (problems.sorted { $0.sha256 < $1.sha256 }, bytes) }
    }
}
