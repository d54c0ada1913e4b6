import BlobStore
import Catalog
import Foundation
import CacheCore

/// `tweetcache verify`: ``CacheVerification`` of the cache, with the manifests
/// checked against the index, and its report for a terminal.
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

    public func run(repair: Bool, progress: WorkProgress? = nil) async throws(InspectError) -> Report {
        let started = ContinuousClock.now
        let plan: CacheVerification.Plan
        do {
            plan = try await CacheVerification.plan(cache: snapshot.cache, lanes: lanes, progress: progress)
        } catch {
            throw .cache(error.unusableReason)
        }
        if repair { progress?.setPhase("repairing") }
        var problems = repair ? CacheVerification.repair(plan, cache: snapshot.cache, lanes: lanes) : plan.problems
        problems += Self.manifestDisagreements(layout: snapshot.cache.layout, index: snapshot.index)
        return Report(blobsChecked: plan.blobsChecked, bytesHashed: plan.bytesHashed, derivedChecked: plan.derivedChecked,
                      seconds: (ContinuousClock.now - started).secondsDouble, problems: problems,
                      remaining: problems.filter { $0.repaired == nil }.count)
    }

    /// Every manifest's URL-to-blob pairs (media, video, avatars) that the index, which
    /// records what each URL's fetch stored, disagrees with. A URL the index does not
    /// know (a run synced from another machine, a URL forgotten since) says nothing.
    /// A manifest that does not read, whole, is a problem of its own: a compressed
    /// one's frames each carry a checksum, which this reads them all against.
    static func manifestDisagreements(layout: CacheLayout, index: CacheIndex) -> [Problem] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: layout.manifestsURL.path)) ?? [])
            .filter(CacheKey.isManifestName).sorted()
        var problems: [Problem] = []
        for name in names {
            let file = layout.manifestsURL.appendingPathComponent(name)
            func unreadable(_ error: any Error) {
                problems.append(Problem(kind: .manifestUnreadable, sha256: "", path: file.path, detail: "does not read: \(error)"))
            }
            let manifest: ManifestFile
            do { manifest = try ManifestFile(url: file) } catch {
                unreadable(error)
                continue
            }
            var pairs: [(url: String, sha256: String)] = []
            do { try manifest.forEachPost(releasing: true) { _, range in
                let post = try manifest.post(at: range)
                var refs: [(String?, String?)] = post.media.flatMap { m in [(m.url, m.sha256), (m.video?.url, m.video?.sha256)] }
                refs.append((post.author.avatar?.url, post.author.avatar?.sha256))
                for case let (url?, sha256?) in refs { pairs.append((url, sha256)) }
                if pairs.count >= 4096 {
                    problems += disagreements(pairs, in: file, index: index)
                    pairs.removeAll(keepingCapacity: true)
                }
            } } catch {
                unreadable(error)
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
}
