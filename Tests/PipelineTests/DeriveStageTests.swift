import BlobStore
import Foundation
import Imaging
import MediaFetch
import Testing
import TestSupport
@testable import Pipeline

/// A photo and an avatar that really decode, made with the project's own encoder.
func realJPEG(width: Int, height: Int, seed: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 3
            bytes[i] = UInt8(truncatingIfNeeded: x &* 255 / max(width - 1, 1))
            bytes[i + 1] = UInt8(truncatingIfNeeded: y &* 255 / max(height - 1, 1))
            bytes[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed)
        }
    }
    return try JPEGEncoder.encode(PixelBuffer(width: width, height: height, channels: 3, bytes: bytes), quality: 90)
}

let derivePage = """
{"statuses":[{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"pic",
  "extended_entities":{"media":[{"id_str":"5","type":"photo","media_url_https":"https://pbs.twimg.com/media/Real1.jpg"}]},
  "user":{"id_str":"9","screen_name":"eve","name":"Eve","profile_image_url_https":"https://pbs.twimg.com/profile_images/9/eve_normal.jpg"}}]}
"""

@Suite struct DeriveStageTests {
    @Test func makesThumbnailsForEveryImageAndTilesForMedia() async throws {
        let photo = try realJPEG(width: 1000, height: 700, seed: 1)
        let avatar = try realJPEG(width: 400, height: 400, seed: 2)
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("Real1") ? .respond(status: 200, body: photo)
                : req.path.contains("eve_400x400") ? .respond(status: 200, body: avatar) : .respond(status: 404)
        }
        let cache = temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150, 600]
        derive.tiles = .eager
        options.derive = derive
        let pipeline = try CachePipeline(options: options)
        let input = [ResultsInput(name: "p.json", data: Data(derivePage.utf8))]
        let run = try await pipeline.run(input)
        let tweet = try #require(run.manifest.tweets.first)
        let media = try #require(tweet.media.first)

        #expect(media.width == 1000 && media.height == 700)
        #expect(media.thumbnails?.map(\.size) == [150, 600])
        #expect(media.thumbnails?.map(\.width) == [150, 600])
        #expect(media.thumbnails?.map(\.height) == [105, 420])
        for t in media.thumbnails ?? [] {
            let bytes = try [UInt8](Data(contentsOf: cache.appendingPathComponent(t.path)))
            let info = try ImageDecoder.info(of: bytes)
            #expect(info.width == t.width && info.height == t.height)
        }
        let tiles = try #require(media.tiles)
        let dzi = try String(contentsOf: cache.appendingPathComponent(try #require(tiles.dzi)), encoding: .utf8)
        #expect(dzi.contains("Width=\"1000\"") && dzi.contains("Height=\"700\""))
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(try #require(tiles.iiif)).path))
        // Avatars get thumbnails, not tiles; a 400 px avatar is not enlarged to 600.
        let av = try #require(tweet.author.avatar)
        #expect(av.tiles == nil)
        #expect(av.thumbnails?.map(\.width) == [150, 400])
        #expect(run.manifest.summary.derived == 2)

        // A second run derives nothing new but still links the files.
        let again = try await pipeline.run(input)
        #expect(again.manifest.summary.derived == 0)
        #expect(again.manifest.tweets.first?.media.first?.thumbnails == media.thumbnails)

        // A deleted thumbnail is made again.
        try FileManager.default.removeItem(at: cache.appendingPathComponent(media.thumbnails![0].path))
        let third = try await pipeline.run(input)
        #expect(third.manifest.summary.derived == 1)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(media.thumbnails![0].path).path))
    }

    @Test func anUndecodableImageIsReportedNotFatal() async throws {
        let origin = try makeOrigin()
        let cache = temporaryDirectory()
        let pipeline = try CachePipeline(options: try makeOptions(cache: cache, origin: origin))
        let run = try await pipeline.run(inputs)
        // The fake JPEGs of these fixtures have a JPEG signature and garbage after it.
        let media = try #require(run.manifest.tweets.first?.media.first)
        #expect(media.sha256 != nil)
        #expect(media.deriveError != nil)
        #expect(media.thumbnails == nil || media.thumbnails == [])
        #expect(run.manifest.summary.deriveFailed > 0)
    }
}
