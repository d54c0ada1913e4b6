import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

/// Images with alpha keep it in their pyramids: WebP tiles, lossy with lossless alpha
/// (`Format="webp"` in the descriptor, `preferredFormats: ["webp", "png"]` in `info.json`), alpha at every level,
/// colours averaged by their opacity, the same bytes whether cut on request or read
/// from the pack built afterwards.
@Suite struct TransparencyTests {
    /// 1200x800: opaque red left of x = 601, fully transparent (green, alpha 0) right of it.
    static func image() throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: 1200 * 800 * 4)
        for y in 0..<800 {
            for x in 0..<1200 {
                let i = (y * 1200 + x) * 4
                if x < 601 { bytes[i] = 220; bytes[i + 1] = 30; bytes[i + 2] = 30; bytes[i + 3] = 255 } else {
                    bytes[i + 1] = 255
                }
            }
        }
        return try PixelBuffer(width: 1200, height: 800, channels: 4, bytes: bytes)
    }

    /// A cache holding only the transparent PNG.
    static func cache() throws -> (URL, BlobHash) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tc-alpha-\(UUID().uuidString)")
        let store = try BlobStore(root: root)
        let blob = try store.put(try PNGEncoder.encode(try image()))
        return (root, blob.hash)
    }

    static func rgba(_ bytes: [UInt8]) throws -> PixelBuffer {
        let image = try ImageDecoder.decode(bytes)
        #expect(image.channels == 4)
        return image
    }

    static func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * image.width + x) * 4
        return Array(image.bytes[i..<i + 4])
    }

    static func close(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 3 }
    }

    @Test func webpTilesKeepAlphaAtEveryLevelAndMatchThePack() async throws {
        let (root, hash) = try Self.cache()
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = TileServerConfiguration(cacheRoot: root)
        configuration.port = 0
        let server = try await TileServer.start(configuration, executor: ServerThreads.shared)
        let hex = hash.hex

        let dzi = try await fetch(server, "/dzi/\(hex).dzi")
        #expect(dzi.text.contains("Format=\"webp\""))
        let info = try await fetch(server, "/iiif/3/\(hex)/info.json")
        #expect(info.text.contains("\"preferredFormats\""))
        #expect(info.text.contains("\"webp\""))
        #expect(try await fetch(server, "/dzi/\(hex)_files/11/2_0.jpg").status == 404)
        #expect(try await fetch(server, "/dzi/\(hex)_files/11/2_0.png").status == 404)

        // Full resolution, across the edge at x = 601 (the tile starts at 512). Colour is
        // lossy (within 3 levels here), alpha exact.
        let cut = try await fetch(server, "/dzi/\(hex)_files/11/2_0.webp")
        #expect(cut.status == 200)
        #expect(cut.header("content-type") == "image/webp")
        let full = try Self.rgba(cut.body)
        #expect(Self.close(Self.pixel(full, 80, 10), [220, 30, 30, 255]))
        #expect(Self.pixel(full, 88, 10)[3] == 255)
        #expect(Self.pixel(full, 89, 10)[3] == 0)
        // Half size: pixel 300 covers x = 600 (red) and 601 (transparent green). Half
        // opaque, and red: the unseen green of the transparent pixel does not bleed in.
        let half = try Self.rgba(try await fetch(server, "/dzi/\(hex)_files/10/1_0.webp").body)
        #expect(Self.pixel(half, 300 - 256, 5)[3] == 128)
        let edge = Self.pixel(half, 300 - 256, 5)
        #expect(edge[0] > 180 && edge[1] < 80, "\(edge)")
        #expect(Self.pixel(half, 301 - 256, 5)[3] == 0)
        // The IIIF name of the same tile in the pack's format is the same bytes.
        let iiif = try await fetch(server, "/iiif/3/\(hex)/512,0,256,256/256,256/0/default.webp")
        #expect(iiif.status == 200 && iiif.body == cut.body)

        // The pack built after the first lazy tile holds WebP tiles, byte for byte those.
        await server.lazyPacks.settled()
        await server.stop()
        let packBytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(CacheLayout.pack(hash))))
        let pack = try PyramidPack(packBytes)
        #expect(pack.format == .webp)
        #expect(try pack.tile(packBytes, level: 11, column: 2, row: 0) == cut.body)
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (again: TileServer) async throws in
            let fromPack = try await fetch(again, "/dzi/\(hex)_files/11/2_0.webp")
            #expect(fromPack.body == cut.body)
            #expect(try await fetch(again, "/dzi/\(hex).dzi").text.contains("Format=\"webp\""))
        }
    }

    @Test func opaqueImagesKeepJPEGTiles() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let dzi = try await fetch(server, "/dzi/\(fixture.eager.hex).dzi")
            #expect(dzi.text.contains("Format=\"jpg\""))
            #expect(!(try await fetch(server, "/iiif/3/\(fixture.eager.hex)/info.json").text.contains("preferredFormats")))
            #expect(try await fetch(server, "/dzi/\(fixture.eager.hex)_files/11/1_1.png").status == 404)
        }
    }
}
