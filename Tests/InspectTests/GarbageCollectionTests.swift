import BlobStore
import CacheCore
import Foundation
import TestSupport
import Testing

/// Garbage collection as the cache's plan/apply pair, in process:
/// a fixed clock, files and rows made here, no CLI.
@Suite struct GarbageCollectionTests {
    let cache: Cache
    var store: BlobStore { cache.blobs }
    var index: CacheIndex { cache.index }
    /// Files are stamped now; the collector's clock runs two hours later.
    let later = Date().addingTimeInterval(7200)

    init() async throws {
        cache = try Cache.open(try ScratchDirectory.make("tc-gc").appendingPathComponent("cache"))
    }

    func put(_ text: String, derived: Int = 0) throws -> BlobHash {
        let hash = try store.put(Array(text.utf8)).hash
        try index.record([URLRecord(url: "https://x/\(text)", hash: hash, size: text.utf8.count,
                                    fetchedAt: Date(timeIntervalSince1970: 1000))],
                         blobs: [BlobRecord(hash: hash, size: text.utf8.count, createdAt: Date(timeIntervalSince1970: 1000))])
        if derived > 0 { try store.publishDerived([UInt8](repeating: 1, count: derived), at: CacheLayout.pack(hash)) }
        return hash
    }

    func age(_ relative: String) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1000)],
                                              ofItemAtPath: store.layout.path(relative))
    }

    @Test func collectionPlansThenAppliesWithoutTouchingWhatItKeeps() async throws {
        let kept = try put("kept", derived: 100)
        let dropped = try put("dropped", derived: 50)
        let orphan = BlobHash(hashing: Array("orphan".utf8))
        try store.publishDerived([UInt8](repeating: 2, count: 30), at: CacheLayout.pack(orphan))
        for path in [CacheLayout.blob(kept), CacheLayout.blob(dropped), CacheLayout.pack(orphan)] { try age(path) }
        var options = GarbageCollection.Options()
        options.now = later

        let plan = try await GarbageCollection.plan(cache: cache, referenced: [kept], newestManifest: 2000, options: options)
        #expect(plan.removals.map(\.reason) == [.unreferenced, .orphanDerived])
        #expect(plan.removals.first?.sha256 == dropped.hex)
        #expect(plan.removals.first?.derivedBytes == 50)
        #expect(plan.removals.last?.derivedBytes == 30)
        #expect(plan.kept == 1)
        // A plan changes nothing.
        #expect(store.contains(dropped))
        #expect(FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.pack(orphan))))

        let done = try GarbageCollection.apply(plan, cache: cache)
        #expect(done.removed.count == 2)
        #expect(done.bytesFreed == "dropped".utf8.count + 50 + 30)
        #expect(!store.contains(dropped) && store.contains(kept))
        #expect(store.derivedEntries(of: dropped).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.pack(orphan))))
        #expect(store.derivedEntries(of: kept).count == 1)
        #expect(try index.lookup(url: "https://x/dropped") == nil)
    }

    @Test func aBudgetEvictsUnpinnedMediaLeastRecentlyUsedFirstAndNeverPinned() async throws {
        // Oldest first by last use: pinned (1000), old (2000), newer (3000).
        let pinned = try put("pinned-collection", derived: 400)
        let old = try put("old-unpinned", derived: 300)
        let newer = try put("newer-unpinned", derived: 300)
        for (hash, use) in [(pinned, 1000.0), (old, 2000.0), (newer, 3000.0)] {
            try age(CacheLayout.blob(hash))
            try age(CacheLayout.pack(hash))
            try index.touch(hash: hash, at: Date(timeIntervalSince1970: use))
        }
        var options = GarbageCollection.Options(maxBytes: 800)
        options.now = later
        options.pinned = [pinned]
        let plan = try await GarbageCollection.plan(cache: cache, referenced: [pinned, old, newer],
                                              newestManifest: 9_999_999_999, options: options)
        // The pinned one is the least recently used, and still stays; the old unpinned goes.
        #expect(plan.removals.map(\.sha256) == [old.hex])
        #expect(plan.pinnedBlobs == 1 && plan.pinnedBytes == "pinned-collection".utf8.count + 400)
        #expect(!plan.pinnedOverBudget)
        // A budget smaller than the pinned media: every unpinned blob goes, the pinned stay, and it is said.
        options.maxBytes = 100
        options.olderThan = 1
        let tight = try await GarbageCollection.plan(cache: cache, referenced: [pinned, old, newer],
                                               newestManifest: 9_999_999_999, options: options)
        #expect(Set(tight.removals.map(\.sha256)) == [old.hex, newer.hex])
        #expect(tight.pinnedOverBudget)
        let done = try GarbageCollection.apply(tight, cache: cache)
        #expect(store.contains(pinned) && !store.contains(old) && !store.contains(newer))
        #expect(done.removed.count == 2)
    }

    @Test func applyingRechecksWhatAFetchTouchedSinceThePlan() async throws {
        let hash = try put("busy")
        try age(CacheLayout.blob(hash))
        var options = GarbageCollection.Options()
        options.now = later
        let plan = try await GarbageCollection.plan(cache: cache, referenced: [], newestManifest: 9_999_999_999, options: options)
        #expect(plan.removals.count == 1)
        // A fetch in another process uses it again before the plan is applied.
        try index.touch(hash: hash, at: later)
        let done = try GarbageCollection.apply(plan, cache: cache)
        #expect(done.removed.isEmpty && done.protected == 1)
        #expect(store.contains(hash))
    }

    @Test func recentFilesAreNeverPlannedForRemoval() async throws {
        _ = try put("fresh")  // written just now: within the grace period
        let plan = try await GarbageCollection.plan(cache: cache, referenced: [], newestManifest: 0, options: .init())
        #expect(plan.removals.isEmpty && plan.protected == 1)
    }

    @Test func theInventoryGroupsEveryDerivedFileWithItsOriginalAndTheRuleIsTheBucketsToo() async throws {
        let hash = try put("inventoried", derived: 10)
        let folder = CacheLayout.derivedShard(hash)
        // What only a folder holds: a tree of the layout before packs, a half-written thumbnail.
        for (path, bytes) in [("\(folder)/\(hash.hex)/0/0_0.jpg", 3), ("\(folder)/\(hash.hex).thumb-150.jpg.tmp-42", 4),
                              ("\(CacheLayout.derivedFolder)/zz/stray", 5)] {
            let url = cache.layout.url(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 7, count: bytes).write(to: url)
        }
        let inventory = try await ObjectInventory.taking(cache.folder)
        #expect(inventory.originals.keys.sorted() == [hash])
        #expect(inventory.derivedBytes(of: hash) == 10 + 3 + 4)
        #expect(inventory.foreign.map(\.key) == ["\(CacheLayout.derivedFolder)/zz/stray"])
        // The one rule: past the grace period at `now`, or too new to judge.
        let object = try #require(inventory.originals[hash])
        let written = try #require(object.lastModified)
        #expect(CollectionRule.expired([object], grace: 3600, now: written.addingTimeInterval(3599)).tooNew == 1)
        #expect(CollectionRule.expired([object], grace: 3600, now: written.addingTimeInterval(3600)).expired == [object])
    }
}
