import BlobStore
import Foundation
import Pipeline

/// `tweetcache gc`: frees space without breaking a fetch running in another process.
///
/// Order: blobs no manifest references; then, with `olderThan`, blobs not used for
/// that long; then, with `maxBytes`, least recently used blobs (referenced or not)
/// until blobs plus derived files fit. A blob's derived folder goes with it, and
/// derived folders whose blob is gone are removed too.
///
/// Safe while another process fetches, by these rules:
/// - a blob is never removed if its file, or any index row about it (a URL fetched
///   or touched, the blob's own row), is younger than ``gracePeriod`` (1 hour): a
///   running fetch writes the file, then the rows, then touches what it found cached,
///   all well within that;
/// - nor if any of its index rows is newer than the newest manifest: such a row
///   belongs to a run whose manifest is not written yet;
/// - rows are deleted first, in one transaction that re-checks the rule above for
///   each blob, and only then are files unlinked: a reader either finds the row and
///   the file, or no row (and fetches again), never a row pointing at nothing made
///   by us. A fetch that published a file after our check only loses its copy if its
///   file is older than the grace period, which a fetch in progress never is.
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

    public enum Reason: String, Sendable, Codable {
        case unreferenced
        case olderThan = "older_than"
        case overBudget = "over_budget"
        case orphanDerived = "orphan_derived"
    }

    public struct Removal: Sendable, Codable, Equatable {
        public var sha256: String
        public var reason: Reason
        public var bytes: Int
        public var derivedBytes: Int

        enum CodingKeys: String, CodingKey {
            case sha256, reason, bytes
            case derivedBytes = "derived_bytes"
        }
    }

    public struct Report: Sendable, Codable, Equatable {
        public var dryRun: Bool
        public var removed: [Removal]
        public var kept: Int
        /// Candidates left alone because a fetch may be using them (see the rules).
        public var protected: Int
        public var bytesFreed: Int
        public var bytesRemaining: Int

        enum CodingKeys: String, CodingKey {
            case removed, kept, protected
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
            return lines.joined(separator: "\n") + "\n"
        }
    }

    let snapshot: CacheSnapshot
    public var options: Options

    public init(snapshot: CacheSnapshot, options: Options) {
        self.snapshot = snapshot
        self.options = options
    }

    struct Candidate {
        var hash: BlobHash
        var bytes: Int
        var derivedBytes: Int
        var lastUse: Double
        var fileModified: Double
        var referenced: Bool
    }

    public func run() throws(InspectError) -> Report {
        // A manifest that could not be read may reference anything: collecting
        // without it could delete what it links to.
        if let problem = snapshot.catalog.problems.first {
            throw .cache("not collecting while a manifest is unreadable (\(problem)); fix or move it first")
        }
        let store = snapshot.store, index = snapshot.index
        let blobRows: [BlobRecord], urlRows: [URLRecord], derivedRows: [DerivedRecord]
        do {
            blobRows = try index.allBlobRecords()
            urlRows = try index.allURLRecords()
            derivedRows = try index.allDerivedRecords()
        } catch {
            throw .cache(error.description)
        }
        var lastUse: [BlobHash: Double] = [:]
        for b in blobRows {
            lastUse[b.hash] = max(lastUse[b.hash] ?? 0, b.createdAt.timeIntervalSince1970, b.lastAccess.timeIntervalSince1970)
        }
        for u in urlRows {
            lastUse[u.hash] = max(lastUse[u.hash] ?? 0, u.fetchedAt.timeIntervalSince1970, u.lastAccess.timeIntervalSince1970)
        }
        // What is on disk, not what the index says: the tile server makes packs it records nowhere.
        _ = derivedRows
        let derivedEntries = store.allDerivedEntries()
        var derivedBytes: [BlobHash: Int] = [:]
        for d in derivedEntries { derivedBytes[d.hash, default: 0] += d.bytes }

        let now = options.now.timeIntervalSince1970
        let graceCutoff = now - options.gracePeriod
        // A run stamps `generated_at` when it starts building and writes the file last,
        // so the file's modification time is when all of that run's rows were in.
        let newestManifest = snapshot.catalog.manifests.map { info -> Double in
            var st = stat()
            let written = stat(snapshot.root.appendingPathComponent(info.path).path, &st) == 0 ? Double(st.st_mtim.tv_sec) + 1 : 0
            return max(info.generatedAt.timeIntervalSince1970, written)
        }.max() ?? 0
        let protectAfter = min(graceCutoff, newestManifest)
        func isProtected(use: Double?, modified: Double) -> Bool {
            modified > graceCutoff || (use ?? 0) > protectAfter
        }

        var candidates: [Candidate] = []
        for hash in store.allBlobs() {
            var info = stat()
            guard stat(store.path(for: hash).path, &info) == 0 else { continue }
            let modified = Double(info.st_mtim.tv_sec)
            candidates.append(Candidate(hash: hash, bytes: Int(info.st_size), derivedBytes: derivedBytes[hash] ?? 0,
                                        lastUse: lastUse[hash] ?? modified, fileModified: modified,
                                        referenced: snapshot.references[hash] != nil
                                            || snapshot.catalog.referencedHashes.contains(hash.hex)))
        }

        var chosen: [(Candidate, Reason)] = []
        var chosenSet = Set<BlobHash>()
        var protectedCount = 0
        func choose(_ c: Candidate, _ reason: Reason) -> Bool {
            guard !chosenSet.contains(c.hash) else { return false }
            if isProtected(use: lastUse[c.hash], modified: c.fileModified) {
                protectedCount += 1
                return false
            }
            chosen.append((c, reason))
            chosenSet.insert(c.hash)
            return true
        }
        for c in candidates where !c.referenced { _ = choose(c, .unreferenced) }
        if let olderThan = options.olderThan {
            for c in candidates where c.lastUse < now - olderThan { _ = choose(c, .olderThan) }
        }
        if let budget = options.maxBytes {
            var total = candidates.filter { !chosenSet.contains($0.hash) }.reduce(0) { $0 + $1.bytes + $1.derivedBytes }
            for c in candidates.sorted(by: { ($0.lastUse, $0.hash) < ($1.lastUse, $1.hash) }) where total > budget {
                if !chosenSet.contains(c.hash), choose(c, .overBudget) { total -= c.bytes + c.derivedBytes }
            }
        }

        var removed: [Removal] = []
        if options.dryRun {
            removed = chosen.map { Removal(sha256: $0.0.hash.hex, reason: $0.1, bytes: $0.0.bytes, derivedBytes: $0.0.derivedBytes) }
        } else if !chosen.isEmpty {
            let forgotten: [BlobHash]
            do {
                forgotten = try index.forget(chosen.map(\.0.hash)) { _, use in
                    // Re-checked inside the write transaction: a fetch may have touched it since.
                    (use ?? 0) > protectAfter
                }
            } catch {
                throw .cache(error.description)
            }
            let done = Set(forgotten)
            protectedCount += chosen.count - done.count
            for (c, reason) in chosen where done.contains(c.hash) {
                // Re-check the file too: a fetch may have re-published it a moment ago.
                var info = stat()
                if stat(store.path(for: c.hash).path, &info) == 0, Double(info.st_mtim.tv_sec) > graceCutoff { continue }
                _ = try? store.remove(c.hash)
                removeDerivedFolder(c.hash)
                removed.append(Removal(sha256: c.hash.hex, reason: reason, bytes: c.bytes, derivedBytes: c.derivedBytes))
            }
        }
        // Derived files whose blob is gone (and no longer being made).
        let removedHashes = Set(removed.compactMap { BlobHash(hex: $0.sha256) })
        let present = Set(candidates.map(\.hash)).subtracting(removedHashes)
        var orphans: [BlobHash: Int] = [:]
        for entry in derivedEntries where !present.contains(entry.hash) && !chosenSet.contains(entry.hash) {
            guard entry.modified <= graceCutoff else { continue }
            if !options.dryRun { try? FileManager.default.removeItem(atPath: store.layout.path(entry.path)) }
            orphans[entry.hash, default: 0] += entry.bytes
        }
        for (hash, bytes) in orphans.sorted(by: { $0.key < $1.key }) {
            removed.append(Removal(sha256: hash.hex, reason: .orphanDerived, bytes: 0, derivedBytes: bytes))
        }
        let freed = removed.reduce(0) { $0 + $1.bytes + $1.derivedBytes }
        let remainingCandidates = candidates.filter { !removedHashes.contains($0.hash) }
        return Report(dryRun: options.dryRun, removed: removed, kept: remainingCandidates.count, protected: protectedCount,
                      bytesFreed: freed,
                      bytesRemaining: remainingCandidates.reduce(0) { $0 + $1.bytes + $1.derivedBytes })
    }

    func removeDerivedFolder(_ hash: BlobHash) {
        snapshot.store.removeDerived(of: hash)
    }
}
