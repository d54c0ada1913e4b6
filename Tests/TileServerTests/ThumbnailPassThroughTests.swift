import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

/// `/thumb/<hash>/<size>` at or past an original's size sends the original only when
/// it already is what a thumbnail would be (upright, sRGB); a turned or CMYK one is
/// converted, as every other route does.
@Suite struct ThumbnailPassThroughTests {
    @Test func onlyUprightSRGBOriginalsPassThrough() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let stored = try ServerFixture.quadrants(width: 60, height: 40)
        let turned = try JPEGEncoder.encode(stored, options: .init(quality: 92, exifOrientation: .right))
        // The same picture as inks (R = (255 - C)(255 - K) / 255, as untagged CMYK is read).
        var ink: [UInt8] = []
        for i in stride(from: 0, to: stored.bytes.count, by: stored.channels) {
            let rgb = stored.bytes[i..<(i + 3)].map(Int.init), top = rgb.max()!
            ink += rgb.map { top == 0 ? 0 : UInt8(255 - $0 * 255 / top) } + [UInt8(255 - top)]
        }
        let inks = try JPEGEncoder.encodeCMYK(ink: ink, width: stored.width, height: stored.height)
        let plain = try JPEGEncoder.encode(stored, quality: 92)
        for bytes in [turned, inks, plain] {
            let url = cache.appendingPathComponent(CacheLayout.blob(BlobHash(hashing: bytes)))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            let same = try await fetch(server, "/thumb/\(BlobHash(hashing: plain).hex)/600")
            #expect(same.status == 200 && same.body == plain, "an upright sRGB original is its own thumbnail")

            let upright = try await fetch(server, "/thumb/\(BlobHash(hashing: turned).hex)/600")
            #expect(upright.status == 200 && upright.body != turned)
            let info = try ImageDecoder.info(of: upright.body)
            #expect(info.orientation == .up && info.width == 40 && info.height == 60, "turned as EXIF says, tag gone")
            #expect(try ImageDecoder.decode(upright.body).width == 40)

            let converted = try await fetch(server, "/thumb/\(BlobHash(hashing: inks).hex)/600")
            #expect(converted.status == 200 && converted.body != inks)
            #expect(ImageDecoder.isUprightSRGB(converted.body), "RGB now, not inks")
            let pixels = try ImageDecoder.decode(converted.body)
            let reference = try ImageDecoder.decode(plain)
            // The top-left quadrant's colour survives the round trip through inks.
            let at = { (image: PixelBuffer) in Array(image.bytes[(5 * image.width + 5) * image.channels..<((5 * image.width + 5) * image.channels + 3)]) }
            #expect(zip(at(pixels), at(reference)).allSatisfy { abs(Int($0) - Int($1)) < 24 }, "\(at(pixels)) vs \(at(reference))")
        }
    }
}
