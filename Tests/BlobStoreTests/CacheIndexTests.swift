import BlobStore
import Foundation
import GRDB
import Testing

@Suite("CacheIndex")
struct CacheIndexTests {
    let directory: TemporaryDirectory
    let index: CacheIndex
    let hashA = BlobHash(hashing: Array("a".utf8))
    let hashB = BlobHash(hashing: Array("b".utf8))
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    init() throws {
        directory = try TemporaryDirectory()
        index = try CacheIndex(path: directory.appending("index.sqlite"))
    }

    @Test func recordThenLookUp() throws {
        let entry = URLRecord(
            url: "https://pbs.twimg.com/media/A.jpg", hash: hashA, size: 123,
            contentType: "image/jpeg", httpStatus: 200, fetchedAt: t0
        )
        try index.record(entry)
        #expect(try index.lookup(url: entry.url) == entry)
        #expect(try index.lookup(url: "https://pbs.twimg.com/media/other.jpg") == nil)
        #expect(try index.lookup(url: entry.url)?.lastAccess == t0)
    }

    @Test func recordReplacesAnEarlierEntry() throws {
        let url = "https://pbs.twimg.com/media/A.jpg"
        try index.record(URLRecord(url: url, hash: hashA, size: 1, fetchedAt: t0))
        let newer = URLRecord(url: url, hash: hashB, size: 2, contentType: "image/png", httpStatus: 200,
                              fetchedAt: t0.addingTimeInterval(60))
        try index.record(newer)
        #expect(try index.lookup(url: url) == newer)
        #expect(try index.allURLRecords() == [newer])
    }

    @Test func batchRecordsManyURLsAndTheirBlobs() throws {
        let entries = (0..<500).map { i in
            URLRecord(url: "https://example.test/\(String(format: "%04d", i))", hash: i % 2 == 0 ? hashA : hashB,
                      size: i, fetchedAt: t0)
        }
        try index.record(entries, blobs: [BlobRecord(hash: hashA, size: 1), BlobRecord(hash: hashB, size: 1)])
        #expect(try index.allURLRecords() == entries)
        #expect(try index.urls(for: hashA).count == 250)
        #expect(try index.urls(for: hashA).allSatisfy { $0.hash == hashA })
        #expect(try Set(index.allBlobRecords().map(\.hash)) == [hashA, hashB])
    }

    @Test func touchUpdatesLastAccessOfURLsAndTheirBlobs() throws {
        try index.record(
            [URLRecord(url: "u1", hash: hashA, size: 1, fetchedAt: t0),
             URLRecord(url: "u2", hash: hashA, size: 1, fetchedAt: t0),
             URLRecord(url: "u3", hash: hashB, size: 1, fetchedAt: t0)],
            blobs: [BlobRecord(hash: hashA, size: 1, createdAt: t0), BlobRecord(hash: hashB, size: 1, createdAt: t0)]
        )
        let t1 = t0.addingTimeInterval(100)
        try index.touch(urls: ["u1", "missing"], at: t1)
        #expect(try index.lookup(url: "u1")?.lastAccess == t1)
        #expect(try index.lookup(url: "u2")?.lastAccess == t0)
        #expect(try index.blob(hashA)?.lastAccess == t1)
        #expect(try index.blob(hashB)?.lastAccess == t0)

        let t2 = t0.addingTimeInterval(200)
        try index.touch(hash: hashB, at: t2)
        #expect(try index.lookup(url: "u3")?.lastAccess == t2)
        #expect(try index.blob(hashB)?.lastAccess == t2)
        #expect(try index.allBlobRecords().map(\.hash) == [hashA, hashB])  // least recently used first
    }

    @Test func failuresCountAttemptsAndClear() throws {
        let url = "https://pbs.twimg.com/media/gone.jpg"
        let first = try index.recordFailure(url: url, reason: "HTTP 404", httpStatus: 404, at: t0)
        #expect(first.attempts == 1)
        let second = try index.recordFailure(url: url, reason: "timed out", at: t0.addingTimeInterval(5))
        #expect(second == FailureRecord(url: url, reason: "timed out", httpStatus: nil, attempts: 2,
                                        failedAt: t0.addingTimeInterval(5)))
        #expect(try index.failure(url: url) == second)
        #expect(try index.allFailures() == [second])
        try index.clearFailure(url: url)
        #expect(try index.failure(url: url) == nil)
        #expect(try index.recordFailure(url: url, reason: "HTTP 500", httpStatus: 500).attempts == 1)
    }

    @Test func recordingContentClearsThatURLsFailureOnly() throws {
        // No failures yet: recording skips the per-URL delete, and nothing breaks.
        try index.record([URLRecord(url: "https://a/1.jpg", hash: hashA, size: 1)])
        _ = try index.recordFailure(url: "https://a/2.jpg", reason: "HTTP 503", httpStatus: 503, at: t0)
        _ = try index.recordFailure(url: "https://a/3.jpg", reason: "HTTP 404", httpStatus: 404, at: t0)
        try index.record([URLRecord(url: "https://a/2.jpg", hash: hashB, size: 2)],
                         blobs: [BlobRecord(hash: hashB, size: 2)])
        #expect(try index.failure(url: "https://a/2.jpg") == nil)
        #expect(try index.allFailures().map(\.url) == ["https://a/3.jpg"])
        #expect(try index.lookup(url: "https://a/2.jpg")?.hash == hashB)
    }

    @Test func blobRecordsMergeWhatIsKnown() throws {
        try index.recordBlob(BlobRecord(hash: hashA, size: 10, contentType: "image/jpeg", width: 640, height: 480,
                                        createdAt: t0))
        try index.recordBlob(BlobRecord(hash: hashA, size: 10, createdAt: t0.addingTimeInterval(9)))
        let merged = try #require(try index.blob(hashA))
        #expect(merged.width == 640 && merged.height == 480)
        #expect(merged.contentType == "image/jpeg")
        #expect(merged.createdAt == t0)
        #expect(merged.lastAccess == t0.addingTimeInterval(9))
        #expect(try index.blob(hashB) == nil)
    }

    @Test func derivedFilesAndForget() throws {
        try index.record([URLRecord(url: "u", hash: hashA, size: 1)], blobs: [BlobRecord(hash: hashA, size: 1)])
        let thumb = DerivedRecord(hash: hashA, kind: "thumb", sizeParameter: "256", path: "thumbs/a.jpg",
                                  width: 256, height: 192, bytes: 9000)
        try index.recordDerived(thumb)
        var bigger = thumb
        bigger.bytes = 9100
        try index.recordDerived(bigger)
        try index.recordDerived(DerivedRecord(hash: hashA, kind: "dzi", path: "tiles/a.dzi"))
        #expect(try index.derived(for: hashA).map(\.kind) == ["dzi", "thumb"])
        #expect(try index.derived(for: hashA).last == bigger)

        #expect(try index.forget(hashA) == ["u"])
        #expect(try index.lookup(url: "u") == nil)
        #expect(try index.blob(hashA) == nil)
        #expect(try index.derived(for: hashA).isEmpty)
    }

    @Test func survivesReopeningAndSharesWithASecondConnection() throws {
        let path = directory.appending("index.sqlite")
        let other = try CacheIndex(path: path)
        try index.record(URLRecord(url: "first", hash: hashA, size: 1, fetchedAt: t0))
        try other.record(URLRecord(url: "second", hash: hashB, size: 2, fetchedAt: t0))
        let reopened = try CacheIndex(path: path)
        #expect(try reopened.allURLRecords().map(\.url) == ["first", "second"])
    }

    @Test func aCorruptRowIsAnErrorNotACrash() throws {
        let path = directory.appending("index.sqlite")
        try DatabaseQueue(path: path.path).write { db in
            try db.execute(sql: "INSERT INTO urls (url, sha256, size) VALUES ('bad', 'ZZ-not-a-hash', 1)")
        }
        do {
            _ = try index.lookup(url: "bad")
            Issue.record("a row with an invalid hash decoded")
        } catch {
            guard case .index(_, let errorPath, let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(errorPath == path.standardizedFileURL.path)
            #expect(message.contains("not a SHA-256"))
        }
    }

    @Test func refusesAnIndexFromANewerVersion() throws {
        let path = directory.appending("future.sqlite")
        _ = try CacheIndex(path: path)
        try DatabaseQueue(path: path.path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        #expect(throws: BlobStoreError.indexFromNewerVersion(path: path.standardizedFileURL.path)) {
            try CacheIndex(path: path)
        }
    }

    @Test func anUnopenablePathIsAClearError() throws {
        let blocker = directory.appending("file")
        try Data("x".utf8).write(to: blocker)
        #expect(throws: BlobStoreError.self) {
            try CacheIndex(path: blocker.appendingPathComponent("index.sqlite"))
        }
    }
}
