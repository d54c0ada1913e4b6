import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

@Suite struct FileEndpointTests {
    @Test func thumbnailsFromThePipelineOrMadeOnRequest() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let hex = fixture.lazy.hex
        let stored = try await fetch(server, "/thumb/\(hex)/600")
        #expect(stored.status == 200 && stored.header("content-type") == "image/jpeg")
        #expect(stored.header("cache-control") == "public, max-age=31536000, immutable")
        let onDisk = try [UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(
            "derived/\(fixture.lazy.shard)/\(hex)/thumb-600.jpg")))
        #expect(stored.body == onDisk)

        let made = try await fetch(server, "/thumb/\(hex)/300")
        #expect(made.status == 200)
        let image = try ImageDecoder.decode(made.body)
        #expect(image.width == 300 && image.height == 200)
        #expect(FileManager.default.fileExists(atPath: fixture.cache.appendingPathComponent(
            "derived/\(fixture.lazy.shard)/\(hex)/thumb-300.jpg").path))

        #expect(try await fetch(server, "/thumb/\(hex)/5000").status == 400)
        #expect(try await fetch(server, "/thumb/\(hex)/big").status == 400)
        #expect(try await fetch(server, "/thumb/\(fixture.video.hex)/150").status == 404)
    }

    @Test func blobsAreTheOriginalBytesTypedBySniffing() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
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

    @Test func manifestsListAndServe() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let list = try await fetch(server, "/manifests/")
        #expect(list.status == 200 && list.header("content-type") == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: [[String: Any]]])
        let entries = try #require(json["manifests"])
        #expect(entries.count == 2)
        let url = try #require(entries.first?["url"] as? String)
        let manifest = try await fetch(server, url)
        #expect(manifest.status == 200)
        #expect(manifest.text.contains("\"tweets\""))
        #expect(try await fetch(server, "/manifests/nope.json").status == 404)
        #expect(try await fetch(server, "/manifests/..%2Findex.sqlite").status == 400)
        #expect(try await fetch(server, "/manifests/.hidden.json").status == 400)
    }

    @Test func healthMetricsAndMethods() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
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

    @Test func slowRequestsGet503AndTheWorkIsKept() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start { $0.requestTimeout = .microseconds(1) }
        defer { Task { await server.stop() } }
        // A tile of the IIIF pyramid (scale factor 2): made on request and kept on disk.
        let path = "/iiif/3/\(fixture.lazy.hex)/0,0,512,512/256,256/0/default.jpg"
        let file = fixture.cache.appendingPathComponent(
            "derived/\(fixture.lazy.shard)/\(fixture.lazy.hex)/iiif/0,0,512,512/256,256/0/default.jpg")
        try? FileManager.default.removeItem(at: file)
        let first = try await fetch(server, path)
        #expect(first.status == 503)
        // The render finishes in the background and lands on disk under the canonical path.
        var waited = 0
        while !FileManager.default.fileExists(atPath: file.path), waited < 200 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func arbitraryRenditionsAreNotWrittenToDisk() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let response = try await fetch(server, "/iiif/3/\(fixture.lazy.hex)/full/333,/90/gray.png")
        #expect(response.status == 200)
        let folder = fixture.cache.appendingPathComponent("derived/\(fixture.lazy.shard)/\(fixture.lazy.hex)/iiif/full/333,222")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "a crawler must not be able to fill the disk")
        // Served again from memory, identical.
        let again = try await fetch(server, "/iiif/3/\(fixture.lazy.hex)/full/333,/90/gray.png")
        #expect(again.body == response.body)
    }

    @Test func aLazyPyramidKeepsTheGeometryOfItsFirstTile() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        _ = try await fetch(server, "/dzi/\(fixture.lazy.hex)_files/9/0_0.jpg")
        let restarted = try await fixture.start { $0.tileSize = 512 }
        defer { Task { await restarted.stop() } }
        let dzi = try await fetch(restarted, "/dzi/\(fixture.lazy.hex).dzi")
        #expect(dzi.text.contains("TileSize=\"256\""), "the descriptor written with the first tile wins")
    }
}
