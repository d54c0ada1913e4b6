import BlobStore
import Dispatch
import Foundation
import Imaging
import Pipeline

/// `tweetcache verify`: the store's ``CacheVerification`` with what only the
/// imaging and pipeline layers know (how a pyramid pack is checked, how derived
/// files are made again), and its report for a terminal.
public struct CacheVerifier: Sendable {
    public typealias ProblemKind = CacheVerification.ProblemKind
    public typealias Problem = CacheVerification.Problem

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

    public func run(repair: Bool, progress: WorkProgress? = nil) throws(InspectError) -> Report {
        let started = ContinuousClock.now
        let store = snapshot.store, index = snapshot.index
        let checks = Self.checks(store: store, index: index, lanes: lanes)
        let plan: CacheVerification.Plan
        do {
            plan = try CacheVerification.plan(store: store, index: index, lanes: lanes, checks: checks, progress: progress)
        } catch {
            throw .cache(error.description)
        }
        if repair { progress?.setPhase("repairing") }
        let problems = repair ? CacheVerification.repair(plan, store: store, index: index, checks: checks) : plan.problems
        return Report(blobsChecked: plan.blobsChecked, bytesHashed: plan.bytesHashed, derivedChecked: plan.derivedChecked,
                      seconds: (ContinuousClock.now - started).secondsDouble, problems: problems,
                      remaining: problems.filter { $0.repaired == nil }.count)
    }

    /// Packs are checked tile by tile; derived files are made again by the
    /// pipeline's ``DerivedRepair``, with a pack even where the index recorded
    /// none (the tile server makes packs it records nowhere).
    static func checks(store: BlobStore, index: CacheIndex, lanes: Int) -> CacheVerification.Checks {
        CacheVerification.Checks(
            derivedFile: { entry, _ in
                if entry.path.hasSuffix(CacheLayout.packSuffix) { return packProblem(entry.hash, store: store) }
                // Thumbnails are judged as `verify --store` judges a bucket's (``ObjectCheck``).
                guard let bytes = try? store.readDerived(entry.path) else { return "cannot be read" }
                let expected = (try? index.contentHashes(ofDerived: entry.path, source: entry.hash)) ?? []
                if case let .wrong(why) = ObjectCheck.judge(entry.path, bytes: bytes, expected: expected) { return why }
                return nil
            },
            rederive: { hash, rows, pyramid in
                // A folder of the layout before packs that its first opening could not
                // convert (the original was missing then) is converted now.
                if FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.legacyFolder(hash))) {
                    try LayoutMigration.convert(hash, store: store, index: index, threads: lanes)
                    return
                }
                _ = try DerivedRepair.rederive(hash, records: rows, store: store, index: index, threads: lanes,
                                               rebuildPyramid: pyramid)
            })
    }

    /// Why the pack of `hash` cannot be served, or nil when every tile checks out.
    static func packProblem(_ hash: BlobHash, store: BlobStore) -> String? {
        let bytes: [UInt8]
        do { bytes = try store.readDerived(CacheLayout.pack(hash)) } catch { return String(describing: error) }
        if case let .wrong(why) = ObjectCheck.judge(CacheLayout.pack(hash), bytes: bytes, expected: []) { return why }
        return nil
    }
}
