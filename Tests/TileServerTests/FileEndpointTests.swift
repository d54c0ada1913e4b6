import BlobStore
import Catalog
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

@Suite struct FileEndpointTests {
    @Test func thumbnailsFromThePipelineOrMadeOnRequest() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.lazy.hex
            let stored = try await fetch(server, "/thumb/\(hex)/600")
            #expect(stored.status == 200 && stored.header("content-type") == "image/jpeg")
            #expect(stored.header("cache-control") == "public, max-age=31536000, immutable")
            let onDisk = try [UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(
                CacheLayout.thumbnail(fixture.lazy, size: 600, png: false))))
            #expect(stored.body == onDisk)

            // A size the cache does not make: made, served, kept in memory, not on disk.
            let made = try await fetch(server, "/thumb/\(hex)/300")
            #expect(made.status == 200)
            let image = try ImageDecoder.decode(made.body)
            #expect(image.width == 300 && image.height == 200)
            #expect(!FileManager.default.fileExists(atPath: fixture.cache.appendingPathComponent(
                CacheLayout.thumbnail(fixture.lazy, size: 300, png: false)).path))
            #expect(try await fetch(server, "/thumb/\(hex)/300").body == made.body)
            // Not larger than the image: the original itself.
            let whole = try await fetch(server, "/thumb/\(fixture.avatar.hex)/600")
            #expect(whole.status == 200)
            #expect(whole.body == [UInt8](try Data(contentsOf: fixture.cache.appendingPathComponent(CacheLayout.blob(fixture.avatar)))))

            #expect(try await fetch(server, "/thumb/\(hex)/5000").status == 400)
            #expect(try await fetch(server, "/thumb/\(hex)/big").status == 400)
            #expect(try await fetch(server, "/thumb/\(fixture.video.hex)/150").status == 415)
        }
    }

    @Test func blobsAreTheOriginalBytesTypedBySniffing() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let photo = try await fetch(server, "/blob/\(fixture.eager.hex)")
            #expect(photo.status == 200)
            #expect(photo.header("content-type") == "image/jpeg")
            #expect(photo.header("etag") == "\"\(fixture.eager.hex)\"")
            #expect(BlobHash(hashing: photo.body) == fixture.eager)
            #expect(photo.header("x-content-type-options") == "nosniff")
            let video = try await fetch(server, "/blob/\(fixture.video.hex)")
            #expect(video.header("content-type") == "video/mp4")
            #expect(try await fetch(server, "/blob/\(String(repeating: "f", count: 64))").status == 404)
        }
    }

    @Test func manifestsListAndServe() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let list = try await fetch(server, "/manifests/")
            #expect(list.status == 200 && list.header("content-type") == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: [[String: Any]]])
            let entries = try #require(json["manifests"])
            #expect(entries.count == 2)
            let url = try #require(entries.first?["url"] as? String)
            let manifest = try await fetch(server, url)
            #expect(manifest.status == 200 && manifest.header("content-type") == "application/zstd")
            #expect(url.hasSuffix(".json.zst"))
            // The file as it is: any zstd reader (or this one) gives its JSON.
            let onDisk = fixture.cache.appendingPathComponent(String(url.dropFirst()))
            #expect(Data(manifest.body) == (try Data(contentsOf: onDisk)))
            #expect(String(decoding: try SeekableZstd.decompress(Data(manifest.body)), as: UTF8.self).contains("\"tweets\""))
            #expect(try await fetch(server, "/manifests/nope.json").status == 404)
            #expect(try await fetch(server, "/manifests/..%2Findex.sqlite").status == 400)
            #expect(try await fetch(server, "/manifests/.hidden.json").status == 400)
        }
    }

    @Test func healthMetricsAndMethods() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let health = try await fetch(server, "/healthz")
            #expect(health.status == 200 && health.text.contains("ok"))
            _ = try await fetch(server, "/dzi/\(fixture.eager.hex)_files/11/0_0.jpg")
            _ = try await fetch(server, "/dzi/\(fixture.eager.hex)_files/11/0_0.jpg")
            let metrics = try await fetch(server, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.text
            #expect(text.contains("tweetcache_http_requests_total{route=\"dzi_tile\",status=\"200\"} 2"))
            #expect(text.contains("tweetcache_http_request_duration_seconds_bucket{route=\"dzi_tile\",le=\""))
            #expect(text.contains("tweetcache_cache_hits_total{store=\"memory\"} 1"))
            #expect(text.contains("tweetcache_cache_hits_total{store=\"disk\"} 1"))
            #expect(text.contains("tweetcache_tiles_generated_total"))

            let post = try await fetch(server, "/healthz", method: "POST")
            #expect(post.status == 405)
            #expect(post.header("allow")?.contains("GET") == true)
            let options = try await fetch(server, "/iiif/3/\(fixture.eager.hex)/info.json", method: "OPTIONS")
            #expect(options.status == 204 && options.header("access-control-allow-origin") == "*")
        }
    }

    @Test func slowRequestsGet503AndTheWorkIsKept() async throws {
        let fixture = try await ServerFixture.get()
        // The time limit runs out at once: on this clock sleeping is instant, and a minute
        // passes between any two readings, so the render is late whichever ends first.
        try await withServer(try await fixture.start { $0.clock = VirtualClock(eachReading: .seconds(60)) }) {
            (server: TileServer) async throws in
            // A tile of the IIIF pyramid (scale factor 2), cut on request.
            let path = "/iiif/3/\(fixture.lazy.hex)/0,0,512,512/256,256/0/default.jpg"
            let before = try await generatedCount(server)
            let first = try await fetch(server, path)
            #expect(first.status == 503)
            // The render goes on without the client and is kept: once the server counts
            // it (polling its metrics, no sleeping), asking again answers from memory.
            var polls = 0
            while try await generatedCount(server) == before, polls < 10_000 { polls += 1 }
            let again = try await fetch(server, path)
            #expect(again.status == 200)
            #expect(try await generatedCount(server) - before == 1)
        }
    }

    @Test func aChangeOfTheSystemDateDuringARenderMovesNoDeadline() async throws {
        let fixture = try await ServerFixture.get()
        // The date jumps an hour at each reading, as when NTP or an operator sets it; the
        // uptime, which the time limit runs on, stands still, and no sleep ends.
        try await withServer(try await fixture.start { $0.clock = ManualClock(dateEachReading: .seconds(3600)) }) {
            (server: TileServer) async throws in
            let made = try await fetch(server, "/thumb/\(fixture.lazy.hex)/271")
            #expect(made.status == 200)
            #expect(try ImageDecoder.decode(made.body).width == 271)
        }
    }

    @Test func arbitraryRenditionsAreNotWrittenToDisk() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let store = try BlobStore(root: fixture.cache)
            let before = store.derivedEntries(of: fixture.lazy)
            let response = try await fetch(server, "/iiif/3/\(fixture.lazy.hex)/full/333,/90/gray.png")
            #expect(response.status == 200)
            // Only thumbnails (which other tests make at once on this shared cache) may appear.
            let added = Set(store.derivedEntries(of: fixture.lazy).map(\.path)).subtracting(before.map(\.path))
            #expect(added.allSatisfy { $0.contains(".thumb-") }, "a crawler must not be able to fill the disk: \(added)")
            // Served again from memory, identical.
            let again = try await fetch(server, "/iiif/3/\(fixture.lazy.hex)/full/333,/90/gray.png")
            #expect(again.body == response.body)
        }
    }

    @Test func aLazyPyramidKeepsTheGeometryOfItsPack() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        let server = try await TileServer.start(configuration, executor: ServerThreads.shared)
        _ = try await fetch(server, "/dzi/\(fixture.lazy.hex)_files/9/0_0.jpg")
        await server.lazyPacks.settled()
        await server.stop()
        configuration.tileSize = 512
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (restarted: TileServer) async throws in
            let dzi = try await fetch(restarted, "/dzi/\(fixture.lazy.hex).dzi")
            #expect(dzi.text.contains("TileSize=\"256\""), "the pack built after the first tile fixes the geometry")
            let info = try await fetch(restarted, "/iiif/3/\(fixture.lazy.hex)/info.json")
            #expect(info.text.contains("\"width\" : 256"), "IIIF tiles are the pack's too")
        }
    }
}
