import CacheCore
import BlobStore
import Foundation
import Logging
import Imaging
import Pipeline
import TestSupport
import Testing
@testable import TileServer

@Suite struct DeepZoomEndpointTests {
    @Test func servesTheEagerPyramidFromDiskWithImmutableCaching() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
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
            let packBytes = try [UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(CacheLayout.pack(fixture.eager))))
            let onDisk = try #require(try PyramidPack(packBytes).tile(packBytes, level: 11, column: 4, row: 3))
            #expect(tile.body == onDisk)
            #expect(try await generatedCount(server) == 0, "a pack's tiles are read, not made")
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
    }

    @Test func cutsLazyTilesOnceThenBuildsThePack() async throws {
        let fixture = try await ServerFixture.get()
        // A copy: this server writes a pack into its cache.
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            let hex = fixture.lazy.hex
            let pack = cache.appendingPathComponent(CacheLayout.pack(fixture.lazy))
            #expect(!FileManager.default.fileExists(atPath: pack.path), "lazy: no pack yet")

            let dzi = try await fetch(server, "/dzi/\(hex).dzi")
            #expect(dzi.status == 200)
            #expect(dzi.text.contains("Width=\"1500\"") && dzi.text.contains("Height=\"1000\""))

            // Level 10 (half size, 750x500): tile 1_1 straddles the left/right boundary.
            let path = "/dzi/\(hex)_files/10/1_1.jpg"
            let before = try await generatedCount(server)
            let answers = try await withThrowingTaskGroup(of: RawHTTPClient.Response.self) { group in
                for _ in 0..<8 { group.addTask { try await fetch(server, path) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(Set(answers.map(\.body)).count == 1)
            // Counted first, so that a failure prints the counts.
            let made = try await generatedCount(server) - before
            #expect(made == 1, "eight concurrent requests make the tile once")
            // Made from the part of the original under it (a quarter of the image), not all of it.
            let decodedInPart = try await metric(server, "tweetcache_originals_decoded_in_part_total")
            #expect(decodedInPart == 1)

            // Identical to what a full build would write for that tile.
            let original = try ImageDecoder.decode([UInt8](Data(contentsOf: cache.appendingPathComponent(CacheLayout.blob(fixture.lazy)))))
            let expected = try TilePyramidBuilder.tile(of: original, level: 10, column: 1, row: 1)
            #expect(answers[0].body == expected)

            // The cut tile started the image's pack; once built, tiles come from it.
            await server.lazyPacks.settled()
            let packBytes = try [UInt8](Data(contentsOf: pack))
            let built = try PyramidPack(packBytes)
            try built.checkAll(packBytes)
            #expect(try built.tile(packBytes, level: 10, column: 1, row: 1) == expected)
            let other = try await fetch(server, "/dzi/\(hex)_files/11/2_2.jpg")
            #expect(other.status == 200)
            #expect(other.body == (try built.tile(packBytes, level: 11, column: 2, row: 2)))
            let madeInAll = try await generatedCount(server) - before
            #expect(madeInAll == 1, "read from the pack, not made")
        }
    }

    @Test func refusesBadCoordinatesAndIdentifiers() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.lazy.hex
            #expect(try await fetch(server, "/dzi/\(hex)_files/12/0_0.jpg").status == 404, "level past the top")
            #expect(try await fetch(server, "/dzi/\(hex)_files/10/9_0.jpg").status == 404, "column past the edge")
            #expect(try await fetch(server, "/dzi/\(hex)_files/x/0_0.jpg").status == 400)
            #expect(try await fetch(server, "/dzi/\(hex)_files/10/-1_0.jpg").status == 400)
            #expect(try await fetch(server, "/dzi/\(hex)_files/10/0_0_0.jpg").status == 400)
            #expect(try await fetch(server, "/dzi/\(hex.uppercased()).dzi").status == 400)
            #expect(try await fetch(server, "/dzi/\(String(repeating: "ab", count: 32)).dzi").status == 404, "not in the cache")
            #expect(try await fetch(server, "/dzi/\(fixture.video.hex).dzi").status == 415, "not an image")
            #expect(try await fetch(server, "/dzi/\(hex)_files/10/0_0.png").status == 404)
        }
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

@Suite struct DamagedPackTests {
    /// A pack that fails its checks is never served: the tile asked for is cut
    /// from the (checked) original with the pack's geometry, the problem is logged
    /// once and counted, and the damaged file is moved aside.
    @Test func aDamagedPacksTilesAreCutFromTheOriginalAndItIsLoggedOnce() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let packURL = cache.appendingPathComponent(CacheLayout.pack(fixture.eager))
        var bytes = try [UInt8](Data(contentsOf: packURL))
        let pack = try PyramidPack(bytes)
        let entry = try #require(pack.entry(level: 11, column: 4, row: 3))
        let sound = try ImageDecoder.decode(Array(bytes[entry.offset..<(entry.offset + entry.length)]))
        bytes[entry.offset + entry.length / 2] ^= 0x20
        try Data(bytes).write(to: packURL)

        let log = RecordedLog()
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .warning
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        try await withServer(try await TileServer.start(configuration, logger: logger, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            let cut = try await fetch(server, "/dzi/\(hex)_files/11/4_3.jpg")
            #expect(cut.status == 200)
            #expect(cut.header("content-type") == "image/jpeg")
            let image = try ImageDecoder.decode(cut.body)
            #expect(image.width == sound.width && image.height == sound.height)
            #expect(isClose(pixel(image, x: 5, y: 5), pixel(sound, x: 5, y: 5), tolerance: 6))
            let iiif = try await fetch(server, "/iiif/3/\(hex)/1024,768,176,132/176,132/0/default.jpg")
            #expect(iiif.status == 200, "the same tile under its IIIF name")
            #expect(try await fetch(server, "/dzi/\(hex)_files/11/0_0.jpg").status == 200)
            #expect(log.messages.filter { $0.contains("damaged pyramid pack") }.count == 1)
            #expect(try await metric(server, "tweetcache_integrity_failures_total{kind=\"pack\",source=\"disk\"}") >= 1)
            #expect(!FileManager.default.fileExists(atPath: packURL.path), "moved aside, so a new one can be built")
            #expect(FileManager.default.fileExists(
                atPath: cache.appendingPathComponent("quarantine/" + CacheLayout.pack(fixture.eager)).path))

            // A sound pack under another image's name is not served as that image.
            let misplaced = cache.appendingPathComponent(CacheLayout.pack(fixture.lazy))
            try Data(bytes).write(to: misplaced)
            let other = try await fetch(server, "/dzi/\(fixture.lazy.hex)_files/10/0_0.jpg")
            #expect(other.status == 200)
            #expect(try ImageDecoder.decode(other.body).width > 0)

            // Truncated: refused from its header, before any tile is read.
            try Data(bytes.prefix(bytes.count - 10)).write(to: packURL)
            try await withServer(try await TileServer.start(configuration, logger: logger, executor: ServerThreads.shared)) { (restarted: TileServer) async throws in
                #expect(try await fetch(restarted, "/dzi/\(hex)_files/11/0_0.jpg").status == 200)
                #expect(try await fetch(restarted, "/dzi/\(hex).dzi").status == 200)
            }
        }
    }
}

/// Keeps what a logger was given, for tests that count log lines.
final class RecordedLog: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] { lock.withLock { lines } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { lines.append(event.message.description) }
    }
}

@Suite struct OldLayoutServingTests {
    /// A cache from before packs is converted when the server opens it: the pack
    /// keeps the old tree's tile size, and its tiles are the tree's, byte for byte.
    @Test func aCacheFromBeforePacksIsConvertedWhenServed() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hash = fixture.eager
        let legacy = cache.appendingPathComponent(CacheLayout.legacyFolder(hash))
        let image = try ImageDecoder.decode([UInt8](Data(contentsOf: cache.appendingPathComponent(CacheLayout.blob(hash)))))
        var options = TilePyramidOptions(tileSize: 512)
        options.iiifID = "http://127.0.0.1:8080/iiif/3/\(hash.hex)"
        _ = try TilePyramidBuilder.build(image: image, outputs: [.deepZoom: legacy.appendingPathComponent("dz"),
                                                                  .iiif3: legacy.appendingPathComponent("iiif")], options: options)
        try FileManager.default.removeItem(at: cache.appendingPathComponent(CacheLayout.pack(hash)))
        let oldTile = [UInt8](try Data(contentsOf: legacy.appendingPathComponent("dz/image_files/11/1_1.jpg")))
        try? FileManager.default.removeItem(at: cache.appendingPathComponent(LayoutMigration.markerFile))
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            let dzi = try await fetch(server, "/dzi/\(hash.hex).dzi")
            #expect(dzi.text.contains("TileSize=\"512\""), "the old tree's tile size")
            #expect(!FileManager.default.fileExists(atPath: legacy.path), "converted before serving")
            #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(CacheLayout.pack(hash)).path))
            let tile = try await fetch(server, "/dzi/\(hash.hex)_files/11/1_1.jpg")
            #expect(tile.status == 200)
            #expect(tile.body == oldTile, "the pack's tile is the tree's")
            let iiif = try await fetch(server, "/iiif/3/\(hash.hex)/0,0,1024,900/512,450/0/default.jpg")
            #expect(iiif.status == 200)
            #expect(try await generatedCount(server) == 0, "read from the pack, nothing made on request")
        }
    }
}
