import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

@Suite struct IIIFEndpointTests {
    @Test func baseRedirectsAndInfoDescribesALevel2Service() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.eager.hex

            let base = try await fetch(server, "/iiif/3/\(hex)")
            #expect(base.status == 303)
            #expect(base.header("location") == "http://127.0.0.1:\(server.port)/iiif/3/\(hex)/info.json")

            let info = try await fetch(server, "/iiif/3/\(hex)/info.json")
            #expect(info.status == 200)
            #expect(info.header("content-type") == "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"")
            #expect(info.header("access-control-allow-origin") == "*")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any])
            #expect(json["@context"] as? String == "http://iiif.io/api/image/3/context.json")
            #expect(json["id"] as? String == "http://127.0.0.1:\(server.port)/iiif/3/\(hex)")
            #expect(json["type"] as? String == "ImageService3")
            #expect(json["protocol"] as? String == "http://iiif.io/api/image")
            #expect(json["profile"] as? String == "level2")
            #expect(json["width"] as? Int == 1200 && json["height"] as? Int == 900)
            #expect(json["maxWidth"] as? Int == 4096 && json["maxArea"] as? Int == 4096 * 4096)
            let tiles = try #require((json["tiles"] as? [[String: Any]])?.first)
            #expect(tiles["width"] as? Int == 256)
            #expect((tiles["scaleFactors"] as? [Int])?.first == 1)
            #expect(((json["sizes"] as? [[String: Any]]) ?? []).isEmpty == false)
            #expect((json["extraQualities"] as? [String]).map(Set.init) == ["color", "gray", "bitonal"])

            // A public URL, when configured, names the service instead of the Host header.
            try await withServer(try await fixture.start { $0.publicBaseURL = "https://tiles.example.org/" }) { (proxied: TileServer) async throws in
                let proxiedInfo = try await fetch(proxied, "/iiif/3/\(hex)/info.json")
                #expect(proxiedInfo.text.contains("\"id\" : \"https://tiles.example.org/iiif/3/\(hex)\""))
            }
        }
    }

    @Test(arguments: [
        // region, size, rotation, quality.format → expected output size
        ("full", "max", "0", "default.jpg", 1200, 900),
        ("full", "600,", "0", "default.jpg", 600, 450),
        ("full", ",300", "0", "default.png", 400, 300),
        ("full", "pct:25", "0", "color.jpg", 300, 225),
        ("full", "!200,200", "0", "default.jpg", 200, 150),
        ("full", "100,100", "0", "default.jpg", 100, 100),
        ("square", "max", "0", "default.jpg", 900, 900),
        ("0,0,600,450", "max", "0", "default.jpg", 600, 450),
        ("pct:50,50,50,50", "300,", "0", "default.jpg", 300, 225),
        ("0,0,512,512", "256,256", "0", "default.jpg", 256, 256),
        ("full", "300,", "90", "default.jpg", 225, 300),
        ("full", "300,", "!180", "gray.jpg", 300, 225),
        ("full", "^1800,", "0", "default.jpg", 1800, 1350),
        ("1000,800,1000,1000", "max", "270", "bitonal.png", 100, 200),
    ])
    func imageRequestsHaveTheRequestedSize(
        region: String, size: String, rotation: String, qualityFormat: String, width: Int, height: Int
    ) async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let response = try await fetch(server, "/iiif/3/\(fixture.eager.hex)/\(region)/\(size)/\(rotation)/\(qualityFormat)")
            #expect(response.status == 200, "\(response.text.prefix(200))")
            #expect(response.header("content-type") == (qualityFormat.hasSuffix(".png") ? "image/png" : "image/jpeg"))
            #expect(response.header("cache-control") == "public, max-age=31536000, immutable")
            #expect(response.header("access-control-allow-origin") == "*")
            #expect(response.header("link")?.contains("<http://127.0.0.1:\(server.port)/iiif/3/\(fixture.eager.hex)/") == true)
            let image = try ImageDecoder.decode(response.body)
            #expect(image.width == width && image.height == height)
        }
    }

    @Test func pixelsFollowRegionRotationMirroringAndQuality() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            let (red, green, blue, yellow) = (ServerFixture.quadrantColors[0], ServerFixture.quadrantColors[1],
                                              ServerFixture.quadrantColors[2], ServerFixture.quadrantColors[3])
            func image(_ tail: String) async throws -> PixelBuffer {
                let response = try await fetch(server, "/iiif/3/\(hex)/\(tail)")
                #expect(response.status == 200, "\(tail): \(response.text.prefix(200))")
                return try ImageDecoder.decode(response.body)
            }
            // Region: the top-right quadrant alone.
            let corner = try await image("600,0,600,450/150,/0/default.jpg")
            #expect(isClose(pixel(corner, x: 75, y: 50), green))
            // Rotate 90 clockwise: the bottom-left (blue) moves to the top-left.
            let turned = try await image("full/400,/90/default.jpg")
            #expect(isClose(pixel(turned, x: 20, y: 20), blue))
            #expect(isClose(pixel(turned, x: turned.width - 20, y: 20), red))
            // Mirror: red moves to the top right.
            let mirrored = try await image("full/400,/!0/default.jpg")
            #expect(isClose(pixel(mirrored, x: mirrored.width - 20, y: 20), red))
            #expect(isClose(pixel(mirrored, x: 20, y: mirrored.height - 20), yellow))
            // Gray and bitonal.
            let gray = try await image("full/200,/0/gray.png")
            let g = pixel(gray, x: 20, y: 20)
            #expect(g.0 == g.1 && g.1 == g.2)
            let bitonal = try await image("full/200,/0/bitonal.png")
            #expect(bitonal.bytes.allSatisfy { $0 == 0 || $0 == 255 })
        }
    }

    @Test func errorsFollowTheSpec() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start { $0.maxWidth = 2000; $0.maxHeight = 2000; $0.maxArea = 2000 * 2000 }) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            func status(_ tail: String) async throws -> Int { try await fetch(server, "/iiif/3/\(hex)/\(tail)").status }
            #expect(try await status("full/max/45/default.jpg") == 501)
            #expect(try await status("full/max/0/default.tif") == 501)
            let webp = try await fetch(server, "/iiif/3/\(hex)/full/200,/0/default.webp")
            #expect(webp.status == 200 && ImageFormat.sniff(webp.body) == .webp)
            #expect(try ImageDecoder.info(of: webp.body).width == 200)
            #expect(try await status("full/max/0/default.foo") == 400)
            #expect(try await status("full/max/0/sepia.jpg") == 400)
            #expect(try await status("0,0,0,0/max/0/default.jpg") == 400)
            #expect(try await status("5000,5000,10,10/max/0/default.jpg") == 400)
            #expect(try await status("a,b,c,d/max/0/default.jpg") == 400)
            #expect(try await status("full/2400,/0/default.jpg") == 400, "upscaling without ^")
            #expect(try await status("full/^3000,/0/default.jpg") != 200, "beyond maxWidth")
            #expect(try await status("full/max/0") == 400)
            #expect(try await fetch(server, "/iiif/3/not-an-image/info.json").status == 404)
            #expect(try await fetch(server, "/iiif/3/\(String(repeating: "0", count: 64))/info.json").status == 404)
            #expect(try await fetch(server, "/iiif/3/\(fixture.video.hex)/info.json").status == 415)
            #expect(try await fetch(server, "/iiif/2/\(hex)/info.json").status == 404)
        }
    }

    @Test func conditionalRequestsWithCommaBearingETagsGet304() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            // What OpenSeadragon asks for: a tile whose ETag holds commas.
            for path in ["/iiif/3/\(hex)/768,512,256,256/256,256/0/default.jpg", "/iiif/3/\(hex)/info.json"] {
                let first = try await fetch(server, path)
                #expect(first.status == 200)
                let etag = try #require(first.header("etag"))
                let again = try await fetch(server, path, headers: ["If-None-Match": etag])
                #expect(again.status == 304, "\(path) with If-None-Match: \(etag)")
                #expect(again.body.isEmpty)
                let listed = try await fetch(server, path, headers: ["If-None-Match": "\"a,b\", W/\(etag)"])
                #expect(listed.status == 304)
                let other = try await fetch(server, path, headers: ["If-None-Match": "\"a,b\""])
                #expect(other.status == 200)
            }
        }
    }

    @Test func aRequestForAPyramidTileIsServedFromThePack() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            let hex = fixture.eager.hex
            let before = try await generatedCount(server)
            let response = try await fetch(server, "/iiif/3/\(hex)/0,0,512,512/256,256/0/default.jpg")
            #expect(response.status == 200)
            // Scale factor 2, tile 0,0: Deep Zoom level 10, tile 0_0, the same bytes.
            let packBytes = try [UInt8](Data(contentsOf: fixture.cache.appendingPathComponent(CacheLayout.pack(fixture.eager))))
            let pack = try PyramidPack(packBytes)
            #expect(response.body == (try pack.tile(packBytes, level: 10, column: 0, row: 0)))
            let dz = try await fetch(server, "/dzi/\(hex)_files/10/0_0.jpg")
            #expect(dz.body == response.body)
            // A `sizes` entry is a single-tile level of the pack too.
            let small = try await fetch(server, "/iiif/3/\(hex)/full/75,57/0/default.jpg")
            #expect(small.status == 200)
            #expect(small.body == (try pack.tile(packBytes, level: 7, column: 0, row: 0)))
            #expect(try await generatedCount(server) == before)
        }
    }
}
