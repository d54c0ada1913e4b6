import BlobStore
import Dispatch
import Foundation
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
        /// A derived folder on disk whose original is not in the cache.
        case orphanDerived = "orphan_derived"
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
        // Derived folders whose original is gone.
        let derivedRoot = snapshot.root.appendingPathComponent("derived")
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: derivedRoot.path)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: derivedRoot.appendingPathComponent(shard).path)) ?? [] {
                guard let hash = BlobHash(hex: name), !present.contains(hash), dangling[hash] == nil else { continue }
                problems.append(Problem(kind: .orphanDerived, sha256: hash.hex,
                                        path: derivedRoot.appendingPathComponent("\(shard)/\(name)").path,
                                        detail: "derived files of an image not in the cache"))
            }
        }
        if repair { problems = self.repair(problems, derivedRows: derivedRows) }
        return Report(blobsChecked: onDisk.count, bytesHashed: hashed.bytes, derivedChecked: derivedRows.count,
                      seconds: (ContinuousClock.now - started).secondsDouble, problems: problems,
                      remaining: problems.filter { $0.repaired == nil }.count)
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
        let files = snapshot.derivedFiles
        var rederived: [BlobHash: String?] = [:]
        return problems.map { problem in
            var p = problem
            guard let hash = BlobHash(hex: p.sha256) else { return p }
            let derivedFolder = files.url(files.folder(hash))
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
                    try? FileManager.default.removeItem(at: derivedFolder)
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
                    try? FileManager.default.removeItem(at: derivedFolder)
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
