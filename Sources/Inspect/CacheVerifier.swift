import BlobStore
import Dispatch
import Foundation
import Imaging
import Pipeline

/// `tweetcache verify`: re-hashes every blob and checks the index and the derived
/// files against what is on disk.
///
/// Hashing runs on every core (`concurrentPerform`, each lane streaming its blobs
/// through SHA-256 1 MiB at a time), so a large cache is checked at the speed of the
/// disk or of SHA-256, whichever is slower. Repairs never delete evidence: a corrupt
/// blob is moved to `quarantine/`, not unlinked.
public struct CacheVerifier: Sendable {
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
        /// Per-tile trees of the layout before packs; `--repair` converts them to a pack.
        case oldLayout = "old_layout"
    }

    public struct Problem: Sendable, Codable, Equatable {
        public var kind: ProblemKind
        public var sha256: String
        public var path: String
        public var detail: String
        /// What `--repair` did, when it fixed it.
        public var repaired: String?
    }

    public struct Report: Sendable, Codable, Equatable {
        public var blobsChecked: Int
        public var bytesHashed: Int
        public var derivedChecked: Int
        public var seconds: Double
        public var problems: [Problem]
        public var remaining: Int

        enum CodingKeys: String, CodingKey {
            case seconds, problems, remaining
            case blobsChecked = "blobs_checked"
            case bytesHashed = "bytes_hashed"
            case derivedChecked = "derived_checked"
        }

        public func text(style: Style) -> String {
            var lines = problems.map { p in
                let head = style.paint(p.kind.rawValue, p.repaired == nil ? .warning : .ok)
                return "\(head)  \(p.sha256.prefix(12))  \(p.detail)  \(p.path)" + (p.repaired.map { "  → \($0)" } ?? "")
            }
            let rate = seconds > 0 ? String(format: ", %.1f MB/s", Double(bytesHashed) / 1_048_576 / seconds) : ""
            lines.append("verified \(blobsChecked) blobs (\(ByteCount.format(bytesHashed))) and \(derivedChecked) derived files in \(String(format: "%.2f", seconds)) s\(rate): "
                + (problems.isEmpty ? style.paint("no problems", .ok)
                    : "\(problems.count) problem\(problems.count == 1 ? "" : "s"), \(remaining) remaining"))
            return lines.joined(separator: "\n") + "\n"
        }
    }

    let snapshot: CacheSnapshot
    public var lanes: Int

    public init(snapshot: CacheSnapshot, lanes: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.snapshot = snapshot
        self.lanes = max(1, lanes)
    }

    public func run(repair: Bool) throws(InspectError) -> Report {
        let started = ContinuousClock.now
        let store = snapshot.store, index = snapshot.index
        let onDisk = Array(store.allBlobs())
        let hashed = hashAll(onDisk)
        var problems: [Problem] = hashed.problems
        let present = Set(onDisk)

        let blobRows: [BlobRecord], urlRows: [URLRecord], derivedRows: [DerivedRecord]
        do {
            blobRows = try index.allBlobRecords()
            urlRows = try index.allURLRecords()
            derivedRows = try index.allDerivedRecords()
        } catch {
            throw .cache(error.description)
        }
        // Index rows whose blob is gone (one problem per blob, however many rows).
        var dangling: [BlobHash: Int] = [:]
        for h in blobRows.map(\.hash) + urlRows.map(\.hash) + derivedRows.map(\.hash) where !present.contains(h) {
            dangling[h, default: 0] += 1
        }
        for (hash, count) in dangling.sorted(by: { $0.key < $1.key }) {
            problems.append(Problem(kind: .missingBlob, sha256: hash.hex, path: store.path(for: hash).path,
                                    detail: "\(count) index row\(count == 1 ? "" : "s") but no blob"))
        }
        let files = snapshot.derivedFiles
        for row in derivedRows where present.contains(row.hash) {
            let url = files.url(row.path)
            if !FileManager.default.fileExists(atPath: url.path) {
                problems.append(Problem(kind: .missingDerived, sha256: row.hash.hex, path: url.path,
                                        detail: "\(row.kind) \(row.sizeParameter) is missing"))
            }
        }
        // What the derived area holds: packs checked tile by tile, old trees,
        // and files whose original is gone.
        var packsChecked = 0
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
                                        detail: "per-tile trees of the layout before packs (--repair converts them)"))
            } else if entry.path.hasSuffix(CacheLayout.packSuffix) {
                packsChecked += 1
                if let why = Self.packProblem(path) {
                    problems.append(Problem(kind: .corruptPack, sha256: entry.hash.hex, path: path, detail: why))
                }
            }
        }
        if repair { problems = self.repair(problems, derivedRows: derivedRows) }
        return Report(blobsChecked: onDisk.count, bytesHashed: hashed.bytes, derivedChecked: max(derivedRows.count, packsChecked),
                      seconds: (ContinuousClock.now - started).secondsDouble, problems: problems,
                      remaining: problems.filter { $0.repaired == nil }.count)
    }

    /// Why the pack at `path` cannot be served, or nil when every tile checks out.
    static func packProblem(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return "cannot be read" }
        do {
            let bytes = [UInt8](data)
            try PyramidPack(bytes).checkAll(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    /// Every blob re-hashed, `lanes` at a time; each lane takes the next blob from a
    /// shared counter so one large blob does not leave a core idle.
    func hashAll(_ hashes: [BlobHash]) -> (problems: [Problem], bytes: Int) {
        let state = LockedState()
        let store = snapshot.store
        DispatchQueue.concurrentPerform(iterations: min(lanes, max(1, hashes.count))) { _ in
            while let i = state.next(limit: hashes.count) {
                let hash = hashes[i]
                let path = store.path(for: hash).path
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

    func repair(_ problems: [Problem], derivedRows: [DerivedRecord]) -> [Problem] {
        let store = snapshot.store, index = snapshot.index
        let quarantine = snapshot.root.appendingPathComponent("quarantine", isDirectory: true)
        var rederived: [BlobHash: String?] = [:]
        return problems.map { problem in
            var p = problem
            guard let hash = BlobHash(hex: p.sha256) else { return p }
            switch p.kind {
            case .unreadableBlob:
                // Permission denied or an I/O error says nothing about the bytes: keep it.
                p.detail += " (left in place: fix access and verify again)"
            case .corruptBlob:
                do {
                    try FileManager.default.createDirectory(at: quarantine, withIntermediateDirectories: true)
                    let target = quarantine.appendingPathComponent(hash.hex)
                    try? FileManager.default.removeItem(at: target)
                    try FileManager.default.moveItem(at: store.path(for: hash), to: target)
                    _ = try index.forget(hash)
                    store.removeDerived(of: hash)
                    p.repaired = "moved to quarantine/\(hash.hex); its URLs will be fetched again"
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
                if rederived[hash] == nil {
                    let records = derivedRows.filter { $0.hash == hash }
                    do {
                        _ = try DerivedRepair.rederive(hash, records: records, store: store, index: index, threads: lanes)
                        rederived[hash] = .some(nil)
                    } catch {
                        rederived[hash] = .some(String(describing: error))
                    }
                }
                if case let .some(.some(error)) = rederived[hash] {
                    p.detail += " (repair failed: \(error))"
                } else if FileManager.default.fileExists(atPath: p.path) {
                    p.repaired = "derived again"
                }
            case .corruptPack, .oldLayout:
                var records = derivedRows.filter { $0.hash == hash }
                if p.kind == .corruptPack {
                    // Out of the way first: the rebuild must not count the damaged file as present.
                    try? FileManager.default.removeItem(atPath: p.path)
                }
                if !records.contains(where: { $0.kind == DerivedKind.pack || DerivedFiles.Legacy.treeKinds.contains($0.kind) }) {
                    // A pack or tree the index never recorded (made by the tile server): make the pack all the same.
                    records.append(DerivedRecord(hash: hash, kind: DerivedKind.pack, sizeParameter: "256",
                                                 path: CacheLayout.pack(hash)))
                }
                do {
                    _ = try DerivedRepair.rederive(hash, records: records, store: store, index: index, threads: lanes)
                    if p.kind == .oldLayout { try? FileManager.default.removeItem(atPath: p.path) }
                    let pack = store.layout.path(CacheLayout.pack(hash))
                    if !FileManager.default.fileExists(atPath: pack) || Self.packProblem(pack) == nil {
                        p.repaired = p.kind == .corruptPack ? "rebuilt from the original" : "converted to a pack"
                    }
                } catch {
                    p.detail += " (repair failed: \(error))"
                }
            case .orphanDerived:
                // A fetch may be deriving into it right now: leave recent folders alone.
                let modified = (try? FileManager.default.attributesOfItem(atPath: p.path)[.modificationDate] as? Date) ?? .distantPast
                if store.contains(hash) || Date().timeIntervalSince(modified) < 3600 {
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
}

/// The hashing lanes' shared work counter and results.
private final class LockedState: @unchecked Sendable {
    private let lock = NSLock()
    private var index = 0
    private var problems: [CacheVerifier.Problem] = []
    private var bytes = 0

    func next(limit: Int) -> Int? {
        lock.withLock {
            guard index < limit else { return nil }
            defer { index += 1 }
            return index
        }
    }

    func add(bytes: Int, problem: CacheVerifier.Problem?) {
        lock.withLock {
            self.bytes += bytes
            if let problem { problems.append(problem) }
        }
    }

    func result() -> (problems: [CacheVerifier.Problem], bytes: Int) {
        lock.withLock { (problems.sorted { $0.sha256 < $1.sha256 }, bytes) }
    }
}
