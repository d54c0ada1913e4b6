import BlobStore
import Foundation
import Imaging
import Pipeline
import TestSupport
import Testing
@testable import TileServer

@Suite struct DeepZoomEndpointTests {
    @Test func servesTheEagerPyramidFromDiskWithImmutableCaching() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let hex = fixture.eager.hex

        let dzi = try await fetch(server, "/dzi/\(hex).dzi")
        #expect(dzi.status == 200)
        #expect(dzi.header("content-type")?.hasPrefix("application/xml") == true)
        #expect(dzi.text.contains("Width=\"1200\"") && dzi.text.contains("Height=\"900\"") && dzi.text.contains("TileSize=\"256\""))
        #expect(dzi.header("access-control-allow-origin") == "*")

        // Level 11 is full size (2^11 = 2048 >= 1200); tile 4_3 is the bottom-right corner.
        let tile = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg")
        #expect(tile.status == 200)
        #expect(tile.header("content-type") == "image/jpeg")
        #expect(tile.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(tile.header("content-length") == String(tile.body.count))
        let onDisk = try [UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(
            "derived/\(fixture.eager.shard)/\(hex)/dz/image_files/11/4_3.jpg")))
        #expect(tile.body == onDisk)
        let pixels = try ImageDecoder.decode(tile.body)
        #expect(pixels.width == 1200 - 4 * 256 && pixels.height == 900 - 3 * 256)
        #expect(isClose(pixel(pixels, x: 10, y: 10), ServerFixture.quadrantColors[3]))

        let etag = try #require(tile.header("etag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("etag") == etag)
        let other = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg", headers: ["If-None-Match": "\"nope\", W/\(etag)"])
        #expect(other.status == 304)
        let stale = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg", headers: ["If-None-Match": "\"nope\""])
        #expect(stale.status == 200 && stale.body == onDisk)

        let head = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("content-length") == String(onDisk.count))
        #expect(head.header("etag") == etag)
    }

    @Test func makesLazyTilesOnceAndKeepsThem() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let hex = fixture.lazy.hex
        let folder = fixture.cache.appendingPathComponent("derived/\(fixture.lazy.shard)/\(hex)/dz")

        let dzi = try await fetch(server, "/dzi/\(hex).dzi")
        #expect(dzi.status == 200)
        #expect(dzi.text.contains("Width=\"1500\"") && dzi.text.contains("Height=\"1000\""))

        // Level 10 (half size, 750x500): tile 1_1 straddles the left/right boundary.
        let path = "/dzi/\(hex)_files/10/1_1.jpg"
        let file = folder.appendingPathComponent("image_files/10/1_1.jpg")
        try? FileManager.default.removeItem(at: file)
        let before = try await generatedCount(server)
        let answers = try await withThrowingTaskGroup(of: RawHTTPClient.Response.self) { group in
            for _ in 0..<8 { group.addTask { try await fetch(server, path) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 200 })
        #expect(Set(answers.map(\.body)).count == 1)
        #expect(try await generatedCount(server) - before == 1, "eight concurrent requests make the tile once")
        #expect(FileManager.default.fileExists(atPath: file.path), "the tile is kept on disk")

        // Identical to what a full build would write for that tile.
        let original = try ImageDecoder.decode([UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(
            "blobs/sha256/\(fixture.lazy.shard)/\(hex)"))))
        let expected = try TilePyramidBuilder.tile(of: original, level: 10, column: 1, row: 1)
        #expect(answers[0].body == expected)

        // A later request is a cache hit, not a new tile.
        _ = try await fetch(server, path)
        #expect(try await generatedCount(server) - before == 1)
    }

    @Test func refusesBadCoordinatesAndIdentifiers() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let hex = fixture.lazy.hex
        #expect(try await fetch(server, "/dzi/\(hex)_files/12/0_0.jpg").status == 404, "level past the top")
        #expect(try await fetch(server, "/dzi/\(hex)_files/10/9_0.jpg").status == 404, "column past the edge")
        #expect(try await fetch(server, "/dzi/\(hex)_files/x/0_0.jpg").status == 400)
        #expect(try await fetch(server, "/dzi/\(hex)_files/10/-1_0.jpg").status == 400)
        #expect(try await fetch(server, "/dzi/\(hex)_files/10/0_0_0.jpg").status == 400)
        #expect(try await fetch(server, "/dzi/\(hex.uppercased()).dzi").status == 400)
        #expect(try await fetch(server, "/dzi/\(String(repeating: "ab", count: 32)).dzi").status == 404, "not in the cache")
        #expect(try await fetch(server, "/dzi/\(fixture.video.hex).dzi").status == 404, "not an image")
        #expect(try await fetch(server, "/dzi/\(hex)_files/10/0_0.png").status == 404)
    }
}

func pixel(_ image: PixelBuffer, x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
    let i = (y * image.width + x) * image.channels
    return (image.bytes[i], image.bytes[i + 1], image.bytes[i + 2])
}

func isClose(_ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8), tolerance: Int = 24) -> Bool {
    abs(Int(a.0) - Int(b.0)) <= tolerance && abs(Int(a.1) - Int(b.1)) <= tolerance && abs(Int(a.2) - Int(b.2)) <= tolerance
}

/// `tweetcache_tiles_generated_total` as the server reports it.
func generatedCount(_ server: TileServer) async throws -> Int {
    try await metric(server, "tweetcache_tiles_generated_total")
}
