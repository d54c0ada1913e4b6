import BlobStore
import Foundation
import Imaging
import Logging
import Testing
import TestSupport
@testable import TileServer

/// Bytes read back from the cache directory are checked against what they must
/// hash to before they are served, fresh or warm.
@Suite struct IntegrityTests {
    func server(_ cache: URL, log: RecordedLog) async throws -> TileServer {
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .warning
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        // 151 is kept on disk like the pipeline's sizes (serve --thumb-sizes 151).
        configuration.storedThumbnailSizes.insert(151)
        return try await TileServer.start(configuration, logger: logger, executor: ServerThreads.shared)
    }

    @Test func aReplacedOrTruncatedOriginalIsNeverServedUnderItsHash() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hash = fixture.lazy
        let blob = cache.appendingPathComponent(CacheLayout.blob(hash))
        let original = try Data(contentsOf: blob)
        let log = RecordedLog()
        try await withServer(try await server(cache, log: log)) { (server: TileServer) async throws in

            // Warm first: served and remembered as a hot response under its hash.
            #expect(try await fetch(server, "/blob/\(hash.hex)").status == 200)
            // Replaced behind the server's back, then asked for by a path the hot cache has not seen.
            try Data("not the original".utf8).write(to: blob)
            let replaced = try await fetch(server, "/blob/\(hash.hex)?fresh=1")
            #expect(replaced.status == 502)
            #expect(!replaced.text.contains(cache.path))
            #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(CacheLayout.quarantined(hash)).path))
            #expect(!FileManager.default.fileExists(atPath: blob.path))
            // Truncated: the same.
            try original.prefix(original.count / 2).write(to: blob)
            #expect(try await fetch(server, "/blob/\(hash.hex)?again=1").status == 502)
            let iiif = try await fetch(server, "/iiif/3/\(hash.hex)/full/max/0/default.jpg")
            #expect(iiif.status == 404, "moved aside: the cache no longer holds it (\(iiif.status))")
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"original\",source=\"disk\"}") >= 2)
            #expect(log.messages.filter { $0.contains("does not match its SHA-256") }.count == 1, "\(log.messages)")
            // Put back: served again.
            try original.write(to: blob)
            let back = try await fetch(server, "/blob/\(hash.hex)?back=1")
            #expect(back.status == 200 && back.body == [UInt8](original))
        }
    }

    @Test func aGarbageThumbnailIsMadeAgainFromTheOriginal() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let relative = CacheLayout.thumbnail(fixture.lazy, size: 600, png: false)
        let file = cache.appendingPathComponent(relative)
        let made = try [UInt8](Data(contentsOf: file))
        // Same length, other bytes: a size check alone would pass it.
        var garbage = made
        garbage[garbage.count / 2] ^= 0xFF
        try Data(garbage).write(to: file)
        let log = RecordedLog()
        try await withServer(try await server(cache, log: log)) { (server: TileServer) async throws in
            let answer = try await fetch(server, "/thumb/\(fixture.lazy.hex)/600")
            #expect(answer.status == 200)
            #expect(answer.body != garbage)
            let image = try ImageDecoder.decode(answer.body)
            #expect(max(image.width, image.height) == 600)
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"thumbnail\",source=\"disk\"}") == 1)
            #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("quarantine/" + relative).path))
        }
    }

    @Test func aThumbnailNobodyRecordedIsMadeAgainAndRecorded() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        // A thumbnail file the index knows nothing about (an old cache, a stray file).
        let relative = CacheLayout.thumbnail(fixture.avatar, size: 150, png: false)
        let index = try CacheIndex(path: CacheLayout(root: cache).indexURL)
        #expect(try index.contentHashes(ofDerived: relative, source: fixture.avatar).isEmpty == false, "the pipeline records")
        let stray = CacheLayout.thumbnail(fixture.avatar, size: 151, png: false)
        try Data("planted".utf8).write(to: cache.appendingPathComponent(stray))
        let log = RecordedLog()
        try await withServer(try await server(cache, log: log)) { (server: TileServer) async throws in
            let answer = try await fetch(server, "/thumb/\(fixture.avatar.hex)/151")
            #expect(answer.status == 200)
            #expect(try ImageDecoder.info(of: answer.body).width == 151)
            #expect(try index.contentHashes(ofDerived: stray, source: fixture.avatar) == [BlobHash(hashing: answer.body)])
        }
    }
}

/// `/blob` answers `Range` (RFC 9110 §14): a video is sought, a large original resumed.
@Suite struct BlobRangeTests {
    @Test func rangesOfAnOriginalAreServedWith206() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let path = "/blob/\(fixture.lazy.hex)"
            let whole = try await fetch(server, path)
            #expect(whole.status == 200 && whole.header("accept-ranges") == "bytes")
            let length = whole.body.count
            let part = try await fetch(server, path, headers: ["Range": "bytes=10-19"])
            #expect(part.status == 206)
            #expect(part.body == Array(whole.body[10..<20]))
            #expect(part.header("content-range") == "bytes 10-19/\(length)")
            let tail = try await fetch(server, path, headers: ["Range": "bytes=-5"])
            #expect(tail.status == 206 && tail.body == Array(whole.body.suffix(5)))
            let open = try await fetch(server, path, headers: ["Range": "bytes=\(length - 3)-"])
            #expect(open.status == 206 && open.body.count == 3)
            let past = try await fetch(server, path, headers: ["Range": "bytes=\(length)-"])
            #expect(past.status == 416 && past.header("content-range") == "bytes */\(length)")
            // If-Range with this ETag: the range; with another: the whole body.
            let etag = try #require(whole.header("etag"))
            #expect(try await fetch(server, path, headers: ["Range": "bytes=0-0", "If-Range": etag]).status == 206)
            let stale = try await fetch(server, path, headers: ["Range": "bytes=0-0", "If-Range": "\"other\""])
            #expect(stale.status == 200 && stale.body.count == length)
            // Several ranges, or nonsense: the whole body, as RFC 9110 allows.
            #expect(try await fetch(server, path, headers: ["Range": "bytes=0-1,5-6"]).status == 200)
            #expect(try await fetch(server, path, headers: ["Range": "lines=1-2"]).status == 200)
            #expect(ByteRange.parse("bytes=5-2", length: 10) == .ignored)
            #expect(ByteRange.parse("bytes=-0", length: 10) == .unsatisfiable)
            #expect(ByteRange.parse("bytes=0-999", length: 10) == .satisfiable(0..<10))
        }
    }
}
