import BlobStore
import Catalog
import Dispatch
import Foundation
import Imaging
import CacheCore

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
        var problems = repair ? CacheVerification.repair(plan, store: store, index: index, checks: checks) : plan.problems
        problems += Self.manifestDisagreements(layout: store.layout, index: index)
        return Report(blobsChecked: plan.blobsChecked, bytesHashed: plan.bytesHashed, derivedChecked: plan.derivedChecked,
                      seconds: (ContinuousClock.now - started).secondsDouble, problems: problems,
                      remaining: problems.filter { $0.repaired == nil }.count)
    }

    /// Every manifest's URL-to-blob pairs (media, video, avatars) that the index, which
    /// records what each URL's fetch stored, disagrees with. A URL the index does not
    /// know (a run synced from another machine, a URL forgotten since) says nothing.
    static func manifestDisagreements(layout: CacheLayout, index: CacheIndex) -> [Problem] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? [])
            .filter(CacheKey.isManifestName).sorted()
        var problems: [Problem] = []
        for name in names {
            let file = layout.manifestsURL.appendingPathComponent(name)
            guard let manifest = try? ManifestFile(url: file) else { continue }
            var pairs: [(url: String, sha256: String)] = []
            try? manifest.forEachPost(releasing: true) { _, range in
                let post = try manifest.post(at: range)
                var refs: [(String?, String?)] = post.media.flatMap { m in [(m.url, m.sha256), (m.video?.url, m.video?.sha256)] }
                refs.append((post.author.avatar?.url, post.author.avatar?.sha256))
                for case let (url?, sha256?) in refs { pairs.append((url, sha256)) }
                if pairs.count >= 4096 {
                    problems += disagreements(pairs, in: file, index: index)
                    pairs.removeAll(keepingCapacity: true)
                }
            }
            problems += disagreements(pairs, in: file, index: index)
        }
        return problems
    }

    private static func disagreements(_ pairs: [(url: String, sha256: String)], in file: URL, index: CacheIndex) -> [Problem] {
        guard let known = try? index.lookup(urls: pairs.map(\.url)) else { return [] }
        var seen = Set<String>()
        return pairs.compactMap { pair in
            guard let record = known[pair.url], record.hash.hex != pair.sha256, seen.insert(pair.url + pair.sha256).inserted
            else { return nil }
            return Problem(kind: .manifestDisagrees, sha256: pair.sha256, path: file.path,
                           detail: "says \(pair.url) is \(pair.sha256.prefix(12)); the index fetched \(record.hash.hex.prefix(12)) from it")
        }
    }

    /// Packs are checked tile by tile; derived files are made again by the
    /// pipeline's ``DerivedRepair``, with a pack even where the index recorded
    /// none (the tile server makes packs it records nowhere).
    static func checks(store: BlobStore, index: CacheIndex, lanes: Int) -> CacheVerification.Checks {
        CacheVerification.Checks(
            derivedFile: { entry, _ in
                if case .pack = entry.key { return packProblem(entry.hash, store: store) }
                // Thumbnails are judged as `verify --store` judges a bucket's (``ObjectCheck``).
                guard let bytes = try? store.readDerived(entry.path) else { return "cannot be read" }
                // What an interrupted write left beside an image's files (`….thumb-150.jpg.tmp-42`)
                // has no name of its own: kept when it is whole, reported (and so removed
                // by a repair) when it is not even an image.
                guard entry.key != nil else { return (try? ImageDecoder.info(of: bytes)) == nil ? "not an image" : nil }
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
