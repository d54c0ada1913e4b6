import Catalog
import BlobStore
import Foundation
import CacheCore

/// `tweetcache gc`: the store's ``GarbageCollection`` with what only the manifests
/// know (which blobs they reference, when the newest was written), and its report
/// for a terminal. The rules that make it safe while a fetch runs are there.
public struct GarbageCollector: Sendable {
    public struct Options: Sendable {
        public var maxBytes: Int?
        public var olderThan: TimeInterval?
        public var dryRun = false
        public var gracePeriod: TimeInterval = 3600
        public var now = Date()

        public init(maxBytes: Int? = nil, olderThan: TimeInterval? = nil, dryRun: Bool = false) {
            self.maxBytes = maxBytes
            self.olderThan = olderThan
            self.dryRun = dryRun
        }
    }

    public typealias Reason = GarbageCollection.Reason
    public typealias Removal = GarbageCollection.Removal

    public struct Report: Sendable, Codable, Equatable {
        public var dryRun: Bool
        public var removed: [Removal]
        public var kept: Int
        /// Candidates left alone because a fetch may be using them (see the rules).
        public var protected: Int
        public var bytesFreed: Int
        public var bytesRemaining: Int
        /// The pinned collections (`tweetcache pin`), their media present, and whether
        /// those alone exceed `--max-size` (they are kept all the same).
        public var pins: [String] = []
        public var pinnedBlobs = 0
        public var pinnedBytes = 0
        public var pinnedOverBudget = false

        enum CodingKeys: String, CodingKey {
            case removed, kept, protected, pins
            case pinnedBlobs = "pinned_blobs"
            case pinnedBytes = "pinned_bytes"
            case pinnedOverBudget = "pinned_over_budget"
            case dryRun = "dry_run"
            case bytesFreed = "bytes_freed"
            case bytesRemaining = "bytes_remaining"
        }

        public func text(style: Style) -> String {
            var lines = removed.map { r in
                "\(dryRun ? "would remove" : "removed")  \(r.sha256.prefix(12))  \(r.reason.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))  \(ByteCount.format(r.bytes + r.derivedBytes))"
            }
            lines.append("\(dryRun ? "would free" : "freed") \(ByteCount.format(bytesFreed)) (\(removed.filter { $0.reason != .orphanDerived }.count) blobs); "
                + "\(kept) blobs kept, \(ByteCount.format(bytesRemaining)) remaining"
                + (protected > 0 ? "; \(protected) left alone as possibly in use by a fetch" : ""))
            if !pins.isEmpty {
                lines.append("pinned: \(pins.joined(separator: ", ")): \(pinnedBlobs) images, \(ByteCount.format(pinnedBytes)), never evicted")
            }
            if pinnedOverBudget {
                lines.append("the pinned collections alone hold \(ByteCount.format(pinnedBytes)), more than --max-size: kept; "
                    + "unpin one (`tweetcache unpin QUERY`) or raise the budget")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    let snapshot: CacheSnapshot
    public var options: Options

    public init(snapshot: CacheSnapshot, options: Options) {
        self.snapshot = snapshot
        self.options = options
    }

    public func run() async throws(InspectError) -> Report {
        // A manifest that could not be read may reference anything: collecting
        // without it could delete what it links to.
        let referenced: Set<BlobHash>
        let runs: [ManifestFileInfo]
        var pins: [String] = []
        var pinned = Set<BlobHash>()
        do {
            if let problem = try snapshot.catalog.problems().first {
                throw InspectError.cache("not collecting while a manifest is unreadable (\(problem)); fix or move it first")
            }
            // Every blob any run named, not only the newest copies of posts: an older
            // run's avatar is still that run's.
            referenced = Set(try snapshot.catalog.referencedHashes().compactMap { BlobHash(hex: $0) })
            runs = try snapshot.catalog.runs()
            pins = try CollectionPins(cacheRoot: snapshot.root).read().map(\.query)
            for query in pins {
                // `@name` is searched as `from:name`: its posts carry either.
                let forms = query.hasPrefix("@") ? [query, "from:" + query.dropFirst()] : [query]
                for form in forms {
                    pinned.formUnion(try snapshot.catalog.hashes(PostFilter(query: form)).compactMap { BlobHash(hex: $0) })
                }
            }
        } catch let error as InspectError {
            throw error
        } catch {
            throw .cache("\(error)")
        }
        // A run stamps `generated_at` when it starts building and writes the file last,
        // so the file's modification time is when all of that run's rows were in.
        let newestManifest = runs.map { info -> Double in
            var st = stat()
            let written = stat(snapshot.root.appendingPathComponent(info.path).path, &st) == 0 ? Double(st.st_mtim.tv_sec) + 1 : 0
            return max(info.generatedAt.timeIntervalSince1970, written)
        }.max() ?? 0
        var gc = GarbageCollection.Options(maxBytes: options.maxBytes, olderThan: options.olderThan)
        gc.gracePeriod = options.gracePeriod
        gc.now = options.now
        gc.pinned = pinned
        do {
            let plan = try await GarbageCollection.plan(cache: snapshot.cache, referenced: referenced,
                                                        newestManifest: newestManifest, options: gc)
            var report: Report
            if options.dryRun {
                report = Report(dryRun: true, removed: plan.removals, kept: plan.kept, protected: plan.protected,
                                bytesFreed: plan.removals.reduce(0) { $0 + $1.bytes + $1.derivedBytes },
                                bytesRemaining: plan.bytesRemaining)
            } else {
                let done = try GarbageCollection.apply(plan, cache: snapshot.cache)
                report = Report(dryRun: false, removed: done.removed, kept: done.kept, protected: done.protected,
                                bytesFreed: done.bytesFreed, bytesRemaining: done.bytesRemaining)
            }
            report.pins = pins
            report.pinnedBlobs = plan.pinnedBlobs
            report.pinnedBytes = plan.pinnedBytes
            report.pinnedOverBudget = plan.pinnedOverBudget
            return report
        } catch {
            throw .cache(error.unusableReason)
        }
    }
}
