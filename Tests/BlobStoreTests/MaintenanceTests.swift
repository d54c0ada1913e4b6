import BlobStore
import TestSupport
import Foundation
import Testing

/// Garbage collection as the store's plan/apply pair, in process:
/// a fixed clock, files and rows made here, no CLI.
@Suite struct MaintenanceTests {
    let directory: TemporaryDirectory
    let store: BlobStore
    let index: CacheIndex
    /// Files are stamped now; the collector's clock runs two hours later.
    let later = Date().addingTimeInterval(7200)

    init() throws {
        directory = try TemporaryDirectory()
        store = try BlobStore(root: directory.appending("cache"))
        index = try CacheIndex(store: store)
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

    @Test func collectionPlansThenAppliesWithoutTouchingWhatItKeeps() throws {
        let kept = try put("kept", derived: 100)
        let dropped = try put("dropped", derived: 50)
        let orphan = BlobHash(hashing: Array("orphan".utf8))
        try store.publishDerived([UInt8](repeating: 2, count: 30), at: CacheLayout.pack(orphan))
        for path in [CacheLayout.blob(kept), CacheLayout.blob(dropped), CacheLayout.pack(orphan)] { try age(path) }
        var options = GarbageCollection.Options()
        options.now = later

        let plan = try GarbageCollection.plan(store: store, index: index, referenced: [kept], newestManifest: 2000, options: options)
        #expect(plan.removals.map(\.reason) == [.unreferenced, .orphanDerived])
        #expect(plan.removals.first?.sha256 == dropped.hex)
        #expect(plan.removals.first?.derivedBytes == 50)
        #expect(plan.removals.last?.derivedBytes == 30)
        #expect(plan.kept == 1)
        // A plan changes nothing.
        #expect(store.contains(dropped))
        #expect(FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.pack(orphan))))

        let done = try GarbageCollection.apply(plan, store: store, index: index)
        #expect(done.removed.count == 2)
        #expect(done.bytesFreed == "dropped".utf8.count + 50 + 30)
        #expect(!store.contains(dropped) && store.contains(kept))
        #expect(store.derivedEntries(of: dropped).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.pack(orphan))))
        #expect(store.derivedEntries(of: kept).count == 1)
        #expect(try index.lookup(url: "https://x/dropped") == nil)
    }

    @Test func aBudgetEvictsUnpinnedMediaLeastRecentlyUsedFirstAndNeverPinned() throws {
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
        let plan = try GarbageCollection.plan(store: store, index: index, referenced: [pinned, old, newer],
                                              newestManifest: 9_999_999_999, options: options)
        // The pinned one is the least recently used, and still stays; the old unpinned goes.
        #expect(plan.removals.map(\.sha256) == [old.hex])
        #expect(plan.pinnedBlobs == 1 && plan.pinnedBytes == "pinned-collection".utf8.count + 400)
        #expect(!plan.pinnedOverBudget)
        // A budget smaller than the pinned media: every unpinned blob goes, the pinned stay, and it is said.
        options.maxBytes = 100
        options.olderThan = 1
        let tight = try GarbageCollection.plan(store: store, index: index, referenced: [pinned, old, newer],
                                               newestManifest: 9_999_999_999, options: options)
        #expect(Set(tight.removals.map(\.sha256)) == [old.hex, newer.hex])
        #expect(tight.pinnedOverBudget)
        let done = try GarbageCollection.apply(tight, store: store, index: index)
        #expect(store.contains(pinned) && !store.contains(old) && !store.contains(newer))
        #expect(done.removed.count == 2)
    }

    @Test func applyingRechecksWhatAFetchTouchedSinceThePlan() throws {
        let hash = try put("busy")
        try age(CacheLayout.blob(hash))
        var options = GarbageCollection.Options()
        options.now = later
        let plan = try GarbageCollection.plan(store: store, index: index, referenced: [], newestManifest: 9_999_999_999, options: options)
        #expect(plan.removals.count == 1)
        // A fetch in another process uses it again before the plan is applied.
        try index.touch(hash: hash, at: later)
        let done = try GarbageCollection.apply(plan, store: store, index: index)
        #expect(done.removed.isEmpty && done.protected == 1)
        #expect(store.contains(hash))
    }

    @Test func recentFilesAreNeverPlannedForRemoval() throws {
        _ = try put("fresh")  // written just now: within the grace period
        let plan = try GarbageCollection.plan(store: store, index: index, referenced: [], newestManifest: 0, options: .init())
        #expect(plan.removals.isEmpty && plan.protected == 1)
    }
}

@Suite struct WorkProgressTests {
    @Test func oneLineSaysHowFarAndWhat() {
        let bytes = WorkProgress(unit: .bytes)
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes) == "starting")
        bytes.setPhase("reading")
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes) == "reading")
        bytes.setPhase(nil)
        bytes.addTotal(4 << 20)
        bytes.advance(by: 1 << 20)
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes).hasPrefix("25% "))
        let blobs = WorkProgress(unit: .items("blobs"))
        blobs.addTotal(8)
        blobs.setDone(6)
        blobs.setPhase("checking derived files")
        #expect(WorkProgress.text(blobs.snapshot, unit: blobs.unit) == "75% 6 of 8 blobs, checking derived files")
    }
}
