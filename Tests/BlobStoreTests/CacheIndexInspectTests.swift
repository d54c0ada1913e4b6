import BlobStore
import Foundation
import Testing

@Suite struct CacheIndexInspectTests {
    let directory: TemporaryDirectory
    let index: CacheIndex
    let a = BlobHash(hashing: Array("a".utf8))
    let b = BlobHash(hashing: Array("b".utf8))

    init() throws {
        directory = try TemporaryDirectory()
        index = try CacheIndex(path: directory.appending("index.sqlite"))
    }

    @Test func forgetDropsEveryRowUnlessVetoedWithTheNewestUse() throws {
        let old = Date(timeIntervalSince1970: 1000), recent = Date(timeIntervalSince1970: 5000)
        try index.record([URLRecord(url: "https://x/a", hash: a, size: 1, fetchedAt: old),
                          URLRecord(url: "https://x/b", hash: b, size: 1, fetchedAt: old, lastAccess: recent)],
                         blobs: [BlobRecord(hash: a, size: 1, createdAt: old), BlobRecord(hash: b, size: 1, createdAt: old)])
        try index.recordDerived([DerivedRecord(hash: a, kind: "thumb", sizeParameter: "150", path: "p", bytes: 7),
                                 DerivedRecord(hash: b, kind: "thumb", sizeParameter: "150", path: "q", bytes: 9)])
        #expect(try index.urlCount() == 2)
        #expect(try index.allDerivedRecords().map(\.bytes) == (a.hex < b.hex ? [7, 9] : [9, 7]))

        let seen = Seen()
        let forgotten = try index.forget([a, b]) { hash, use in
            seen.set(hash, use)
            return (use ?? 0) > 2000
        }
        #expect(forgotten == [a])
        #expect(seen.get(a) == 1000)
        #expect(seen.get(b) == 5000)
        #expect(try index.lookup(url: "https://x/a") == nil)
        #expect(try index.blob(a) == nil)
        #expect(try index.derived(for: a).isEmpty)
        #expect(try index.lookup(url: "https://x/b") != nil)
        #expect(try index.urlCount() == 1)

        let q = try #require(try index.derived(for: b).first)
        try index.removeDerived([q])
        #expect(try index.allDerivedRecords().isEmpty)
    }
}

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [BlobHash: Double] = [:]
    func set(_ hash: BlobHash, _ value: Double?) { lock.withLock { values[hash] = value } }
    func get(_ hash: BlobHash) -> Double? { lock.withLock { values[hash] } }
}
