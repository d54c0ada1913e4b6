import BlobStore
import CacheCore
import Foundation
import TestSupport
import Testing

/// `verify`'s plan and repair of a cache directory, in process: the objects judged by
/// the same audit as a bucket's, the index and derived area by the local layer.
@Suite struct CacheVerificationTests {
    let cache: Cache

    init() throws {
        cache = try Cache.open(try ScratchDirectory.make("tc-verification").appendingPathComponent("cache"))
    }

    func put(_ text: String) throws -> BlobHash {
        let hash = try cache.blobs.put(Array(text.utf8)).hash
        try cache.index.record([URLRecord(url: "https://x/\(text)", hash: hash, size: text.utf8.count,
                                          fetchedAt: Date(timeIntervalSince1970: 1000))],
                               blobs: [BlobRecord(hash: hash, size: text.utf8.count, createdAt: Date(timeIntervalSince1970: 1000))])
        return hash
    }

    @Test func damageIsFoundAndOnlyWhatWasFixedIsSaidFixed() async throws {
        let store = cache.blobs
        let good = try put("good")
        let bad = try put("bad")
        let damaged = try put("damaged-pack")
        // Not a pack at all under a pack's name, and an original's bytes changed behind the store's back.
        try store.publishDerived([UInt8](repeating: 1, count: 64), at: CacheLayout.pack(damaged))
        try Data("BAD".utf8).write(to: store.path(for: bad))

        let plan = try await CacheVerification.plan(cache: cache, lanes: 2)
        #expect(plan.blobsChecked == 3)
        #expect(plan.bytesHashed == "good".utf8.count + "damaged-pack".utf8.count)
        #expect(Set(plan.problems.map(\.kind)) == [.corruptBlob, .corruptPack], "\(plan.problems)")
        #expect(plan.problems.first { $0.kind == .corruptBlob }?.sha256 == bad.hex)
        #expect(plan.problems.first { $0.kind == .corruptPack }?.sha256 == damaged.hex)
        #expect(store.contains(bad), "a plan touches nothing")

        // A rebuild that makes nothing: the damaged pack is gone, no sound one is there.
        let calls = Calls()
        let checks = CacheVerification.Checks { hash, _, pyramid in
            calls.add(hash, pyramid)
            try? FileManager.default.removeItem(atPath: store.layout.path(CacheLayout.pack(hash)))
        }
        let repaired = CacheVerification.repair(plan, cache: cache, checks: checks)
        #expect(repaired.first { $0.kind == .corruptBlob }?.repaired != nil)
        #expect(repaired.first { $0.kind == .corruptPack }?.repaired == nil, "a rebuild that left no sound pack is not a repair")
        #expect(!store.contains(bad))
        #expect(FileManager.default.fileExists(atPath: store.layout.path(CacheLayout.quarantined(bad))))
        #expect(try cache.index.lookup(url: "https://x/bad") == nil)
        #expect(calls.rebuilt == [damaged: true], "the damaged pack is rebuilt as a pyramid")
        #expect(store.contains(good))
    }

    @Test func aStrayFileAmongTheBlobsIsNotABlob() async throws {
        _ = try put("kept")
        let stray = cache.layout.path(CacheLayout.blobsFolder + "/ab/notes.txt~")
        try FileManager.default.createDirectory(atPath: (stray as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: stray))
        let plan = try await CacheVerification.plan(cache: cache, lanes: 1)
        #expect(plan.blobsChecked == 1 && plan.problems.isEmpty, "\(plan.problems)")
    }
}

/// What a test's rederive closure was asked to do.
final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [BlobHash: Bool] = [:]
    var rebuilt: [BlobHash: Bool] { lock.withLock { made } }
    func add(_ hash: BlobHash, _ pyramid: Bool) { lock.withLock { made[hash] = pyramid } }
}
