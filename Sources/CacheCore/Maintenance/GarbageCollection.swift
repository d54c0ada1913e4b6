public import BlobStore
public import Foundation
import ObjectStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frees space in a cache without breaking a fetch running in another process,
/// as a plan (what would go, and why; nothing touched) and its application.
///
/// What the cache holds comes from the same ``ObjectInventory`` as `gc --store`'s,
/// taken of the cache's own folder (``Cache/folder``), and the first rule is the
/// bucket's too (``CollectionRule``: unreferenced and past the grace period). What
/// only a cache directory has is this layer: its index (when each blob was last
/// used, rows of a run still going), pins, the age and size budgets, and removal
/// that drops index rows before files.
///
/// Order: blobs nothing references; then, with `olderThan`, blobs not used for
/// that long; then, with `maxBytes`, least recently used blobs (referenced or not)
/// until blobs plus derived files fit. A blob's derived files go with it, and
/// derived files whose blob is gone are removed too.
///
/// Safe while another process fetches, by these rules:
/// - a blob is never removed if its file, or any index row about it (a URL fetched
///   or touched, the blob's own row), is younger than ``Options/gracePeriod`` (1
///   hour): a running fetch writes the file, then the rows, then touches what it
///   found cached, all well within that;
/// - nor if any of its index rows is newer than the newest manifest: such a row
///   belongs to a run whose manifest is not written yet;
/// - rows are deleted first, in one transaction that re-checks the rule above for
///   each blob, and only then are files unlinked: a reader either finds the row and
///   the file, or no row (and fetches again), never a row pointing at nothing made
///   by us.
///
/// What references a blob is the caller's to say (the manifests): see
/// ``plan(cache:referenced:newestManifest:options:)``.
public enum GarbageCollection {
    public struct Options: Sendable {
        public var maxBytes: Int?
        public var olderThan: TimeInterval?
        public var gracePeriod: TimeInterval = 3600
        public var now = Date()
        /// The media of pinned collections: never removed by age or budget (they are
        /// referenced, so never as unreferenced either).
        public var pinned: Set<BlobHash> = []

        public init(maxBytes: Int? = nil, olderThan: TimeInterval? = nil) {
            self.maxBytes = maxBytes
            self.olderThan = olderThan
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

    /// What would be removed; applying it re-checks every rule before touching anything.
    public struct Plan: Sendable, Equatable {
        /// Blobs to remove (with their derived files), then orphaned derived files.
        public var removals: [Removal]
        /// Blobs that stay.
        public var kept: Int
        /// Candidates left alone because a fetch may be using them.
        public var protected: Int
        public var bytesRemaining: Int
        /// Pinned media present, and their bytes (with derived files).
        public var pinnedBlobs = 0
        public var pinnedBytes = 0
        /// The pinned media alone are more than `maxBytes`: kept all the same.
        public var pinnedOverBudget = false
        /// Originals whose derived files are orphaned, for ``apply(_:cache:)``.
        var orphanOwners: [BlobHash]
        /// Rows newer than this belong to a run still going.
        var protectAfter: Double
        var graceCutoff: Double
    }

    /// What ``apply(_:cache:)`` did.
    public struct Outcome: Sendable, Equatable {
        public var removed: [Removal]
        public var kept: Int
        public var protected: Int
        public var bytesFreed: Int
        public var bytesRemaining: Int
    }

    /// Decides what goes. `referenced` are the blobs manifests link to;
    /// `newestManifest` is when the newest one was written (seconds since 1970).
    public static func plan(
        cache: Cache, referenced: Set<BlobHash>, newestManifest: Double, options: Options
    ) async throws(CacheError) -> Plan {
        // What is on disk, not what the index says: the tile server makes packs it records nowhere.
        let inventory: ObjectInventory
        do { inventory = try await .taking(cache.folder) } catch { throw .unusable(error.description) }
        var lastUse: [BlobHash: Double] = [:]
        do {
            for b in try cache.index.allBlobRecords() {
                lastUse[b.hash] = max(lastUse[b.hash] ?? 0, b.createdAt.timeIntervalSince1970, b.lastAccess.timeIntervalSince1970)
            }
            for u in try cache.index.allURLRecords() {
                lastUse[u.hash] = max(lastUse[u.hash] ?? 0, u.fetchedAt.timeIntervalSince1970, u.lastAccess.timeIntervalSince1970)
            }
        } catch {
            throw .unusable(error.description)
        }

        let now = options.now.timeIntervalSince1970
        let graceCutoff = now - options.gracePeriod
        let protectAfter = min(graceCutoff, newestManifest)
        func isProtected(use: Double?, modified: Double) -> Bool {
            modified > graceCutoff || (use ?? 0) > protectAfter
        }

        struct Candidate {
            var hash: BlobHash
            var object: StoredObject
            var bytes: Int
            var derivedBytes: Int
            var lastUse: Double
            var fileModified: Double
            var referenced: Bool
        }
        var candidates: [Candidate] = []
        for (hash, object) in inventory.originals.sorted(by: { $0.key < $1.key }) {
            let modified = object.lastModified?.timeIntervalSince1970 ?? now
            candidates.append(Candidate(hash: hash, object: object, bytes: object.size, derivedBytes: inventory.derivedBytes(of: hash),
                                        lastUse: lastUse[hash] ?? modified, fileModified: modified,
                                        referenced: referenced.contains(hash)))
        }

        var chosen: [(Candidate, Reason)] = []
        var chosenSet = Set<BlobHash>()
        var protected = Set<BlobHash>()
        func choose(_ c: Candidate, _ reason: Reason) -> Bool {
            guard !chosenSet.contains(c.hash) else { return false }
            if isProtected(use: lastUse[c.hash], modified: c.fileModified) {
                protected.insert(c.hash)
                return false
            }
            chosen.append((c, reason))
            chosenSet.insert(c.hash)
            return true
        }
        // The rule every store shares: unreferenced and past the grace period. Then this
        // cache's own: no index row of a run still going.
        let unreferenced = candidates.filter { !$0.referenced && !options.pinned.contains($0.hash) }
        let rule = CollectionRule.expired(unreferenced.map(\.object), grace: options.gracePeriod, now: options.now)
        let expired = Set(rule.expired.map(\.key))
        for c in unreferenced {
            if expired.contains(c.object.key) { _ = choose(c, .unreferenced) } else { protected.insert(c.hash) }
        }
        if let olderThan = options.olderThan {
            for c in candidates where c.lastUse < now - olderThan && !options.pinned.contains(c.hash) { _ = choose(c, .olderThan) }
        }
        let pinned = candidates.filter { options.pinned.contains($0.hash) }
        let pinnedBytes = pinned.reduce(0) { $0 + $1.bytes + $1.derivedBytes }
        if let budget = options.maxBytes {
            // Least recently used first, among what no pinned collection uses.
            var total = candidates.filter { !chosenSet.contains($0.hash) }.reduce(0) { $0 + $1.bytes + $1.derivedBytes }
            for c in candidates.sorted(by: { ($0.lastUse, $0.hash) < ($1.lastUse, $1.hash) })
            where total > budget && !options.pinned.contains(c.hash) {
                if !chosenSet.contains(c.hash), choose(c, .overBudget) { total -= c.bytes + c.derivedBytes }
            }
        }
        var removals = chosen.map { Removal(sha256: $0.0.hash.hex, reason: $0.1, bytes: $0.0.bytes, derivedBytes: $0.0.derivedBytes) }

        // Derived files whose original is gone, by the same rule: all of an image's files
        // past the grace period (one written since is an image being derived into now).
        var orphanOwners: [BlobHash] = []
        for (owner, files) in inventory.derived.sorted(by: { $0.key < $1.key }) where inventory.originals[owner] == nil {
            guard CollectionRule.expired(files, grace: options.gracePeriod, now: options.now).tooNew == 0 else { continue }
            orphanOwners.append(owner)
            removals.append(Removal(sha256: owner.hex, reason: .orphanDerived, bytes: 0, derivedBytes: files.reduce(0) { $0 + $1.size }))
        }
        let remaining = candidates.filter { !chosenSet.contains($0.hash) }
        return Plan(removals: removals, kept: remaining.count, protected: protected.subtracting(chosenSet).count,
                    bytesRemaining: remaining.reduce(0) { $0 + $1.bytes + $1.derivedBytes },
                    pinnedBlobs: pinned.count, pinnedBytes: pinnedBytes,
                    pinnedOverBudget: options.maxBytes.map { pinnedBytes > $0 } ?? false,
                    orphanOwners: orphanOwners, protectAfter: protectAfter, graceCutoff: graceCutoff)
    }

    /// Carries out a plan: index rows first (re-checking, inside the transaction,
    /// that no fetch touched a blob since the plan), then the files.
    public static func apply(_ plan: Plan, cache: Cache) throws(CacheError) -> Outcome {
        let store = cache.blobs, index = cache.index
        let blobs = plan.removals.filter { $0.reason != .orphanDerived }
        let hashes = blobs.compactMap { BlobHash(hex: $0.sha256) }
        let protectAfter = plan.protectAfter
        let forgotten: Set<BlobHash>
        do { forgotten = Set(try index.forget(hashes) { _, use in (use ?? 0) > protectAfter }) } catch { throw .unusable(error.description) }
        var removed: [Removal] = []
        var protected = plan.protected + hashes.count - forgotten.count
        var kept = plan.kept
        var remaining = plan.bytesRemaining
        for removal in blobs {
            guard let hash = BlobHash(hex: removal.sha256) else { continue }
            guard forgotten.contains(hash) else {
                kept += 1
                remaining += removal.bytes + removal.derivedBytes
                continue
            }
            // Re-check the file too: a fetch may have re-published it a moment ago.
            var info = stat()
            if stat(store.path(for: hash).path, &info) == 0, Double(info.st_mtim.tv_sec) > plan.graceCutoff {
                protected += 1
                kept += 1
                remaining += removal.bytes + removal.derivedBytes
                continue
            }
            _ = try? store.remove(hash)
            store.removeDerived(of: hash)
            removed.append(removal)
        }
        // Orphans re-checked too: a fetch may have published the original, or derived
        // into its names, since the plan.
        var orphansLeft = Set<String>()
        for owner in plan.orphanOwners {
            guard !store.contains(owner), store.derivedEntries(of: owner).allSatisfy({ $0.modified <= plan.graceCutoff }) else {
                orphansLeft.insert(owner.hex)
                continue
            }
            store.removeDerived(of: owner)
        }
        removed += plan.removals.filter { $0.reason == .orphanDerived && !orphansLeft.contains($0.sha256) }
        return Outcome(removed: removed, kept: kept, protected: protected,
                       bytesFreed: removed.reduce(0) { $0 + $1.bytes + $1.derivedBytes },
                       bytesRemaining: remaining)
    }
}
