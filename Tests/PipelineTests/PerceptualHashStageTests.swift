import CacheCore
import BlobStore
import Catalog
import Foundation
import Imaging
import MediaTypes
import Testing
import TestSupport
@testable import Pipeline

/// A smooth picture (blobs of colour on waves and a gradient), as photos are: its hash
/// survives scaling and re-encoding, which a pattern of single-pixel detail's does not.
func smoothPicture(width: Int, height: Int) throws -> PixelBuffer {
    var bytes = [UInt8](repeating: 0, count: width * height * 3)
    let blobs: [(x: Double, y: Double, r: Double, colour: [Double])] = [
        (0.3, 0.4, 0.2, [220, 60, 40]), (0.7, 0.3, 0.15, [40, 200, 90]), (0.55, 0.75, 0.25, [30, 60, 210]),
    ]
    for y in 0..<height {
        for x in 0..<width {
            let u = Double(x) / Double(width), v = Double(y) / Double(height)
            // Waves across the picture: edges enough for PDQ's quality to pass 50.
            let wave = 45 * sin(2 * Double.pi * 7 * u) * cos(2 * Double.pi * 5 * v)
            var pixel = [90 + 100 * v + wave, 120 + 60 * u - wave, 160 - 80 * v + wave]
            for blob in blobs where (u - blob.x) * (u - blob.x) + (v - blob.y) * (v - blob.y) < blob.r * blob.r {
                pixel = blob.colour
            }
            for k in 0..<3 { bytes[(y * width + x) * 3 + k] = UInt8(max(0, min(255, pixel[k]))) }
        }
    }
    return try PixelBuffer(width: width, height: height, channels: 3, bytes: bytes)
}

private let repostPage = """
{"statuses":[
 {"id_str":"2","created_at":"Thu Oct 11 20:19:24 +0000 2018","full_text":"again",
  "extended_entities":{"media":[{"id_str":"6","type":"photo","media_url_https":"https://pbs.twimg.com/media/Copy.jpg"}]},
  "user":{"id_str":"8","screen_name":"mallory","name":"Mallory","profile_image_url_https":"https://pbs.twimg.com/profile_images/8/m_normal.jpg"}},
 {"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"first",
  "extended_entities":{"media":[{"id_str":"5","type":"photo","media_url_https":"https://pbs.twimg.com/media/First.jpg"}]},
  "user":{"id_str":"9","screen_name":"eve","name":"Eve","profile_image_url_https":"https://pbs.twimg.com/profile_images/9/eve_normal.jpg"}}]}
"""

@Suite struct PerceptualHashStageTests {
    struct Fixture {
        let first: [UInt8]
        let copy: [UInt8]
        let avatar: [UInt8]
        let origin: LoopbackHTTPServer

        init() throws {
            let picture = try smoothPicture(width: 1000, height: 700)
            let first = try JPEGEncoder.encode(picture, quality: 92)
            let copy = try JPEGEncoder.encode(try Resampler.resize(picture, width: 500, height: 350), quality: 60)
            let avatar = try realJPEG(width: 400, height: 400, seed: 2)
            self.first = first
            self.copy = copy
            self.avatar = avatar
            origin = try LoopbackHTTPServer { req in
                req.path.contains("First") ? .respond(status: 200, body: first)
                    : req.path.contains("Copy") ? .respond(status: 200, body: copy)
                    : req.path.contains("400x400") ? .respond(status: 200, body: avatar) : .respond(status: 404)
            }
        }
    }

    static func options(_ cache: URL, _ origin: LoopbackHTTPServer, hashes: Bool) throws -> PipelineOptions {
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150]
        derive.perceptualHashes = hashes
        options.derive = derive
        return options
    }

    @Test func everyImageIsHashedIntoTheManifestTheIndexAndTheCatalog() async throws {
        let fixture = try Fixture()
        let cache = try temporaryDirectory()
        let input = [ResultsInput(name: "p.json", data: Data(repostPage.utf8))]
        let run = try await CachePipeline(options: Self.options(cache, fixture.origin, hashes: true)).run(input)
        let manifest = try run.manifest
        let first = try #require(manifest.tweets.first { $0.id == "1" }?.media.first)
        let expected = try PDQHasher.signature(ofFile: fixture.first)
        #expect(expected.isUseful, "quality \(expected.quality)")
        #expect(first.pdq == expected.hash.hex)
        #expect(first.pdqQuality == expected.quality)
        #expect(first.pdqDihedral == expected.dihedral.dropFirst().map(\.hex))
        // Avatars too (no pyramid: decoded at full size for the hash).
        let avatar = try #require(manifest.tweets.first?.author.avatar)
        #expect(avatar.pdq == (try PDQHasher.signature(ofFile: fixture.avatar)).hash.hex)

        // The index keeps them, so a re-run copies them without decoding.
        let index = try CacheIndex(path: cache.appendingPathComponent(CacheLayout.indexFile))
        #expect(try index.pdqCount() == 3)
        let again = try await CachePipeline(options: Self.options(cache, fixture.origin, hashes: true)).run(input)
        #expect((try again.manifest).tweets.first { $0.id == "1" }?.media.first?.pdq == expected.hash.hex)

        // The catalog groups the repost with the first post, earliest first.
        let catalog = try PostCatalog.open(cacheRoot: cache).catalog
        let groups = try catalog.duplicateGroups(in: catalog.perceptualIndex()).groups
        #expect(groups.count == 1)
        #expect(groups.first?.images.map { $0.posts.map(\.id) } == [["1"], ["2"]])
        #expect((groups.first?.images.last?.distance ?? 99) <= 31)
    }

    @Test func aCacheMadeWithoutHashesGetsThemOnTheNextRun() async throws {
        let fixture = try Fixture()
        let cache = try temporaryDirectory()
        let input = [ResultsInput(name: "p.json", data: Data(repostPage.utf8))]
        let bare = try await CachePipeline(options: Self.options(cache, fixture.origin, hashes: false)).run(input)
        #expect((try bare.manifest).tweets.allSatisfy { $0.media.allSatisfy { $0.pdq == nil } })
        let index = try CacheIndex(path: cache.appendingPathComponent(CacheLayout.indexFile))
        #expect(try index.pdqCount() == 0)

        // Nothing else to make: the images are decoded for their hashes alone.
        let backfill = try await CachePipeline(options: Self.options(cache, fixture.origin, hashes: true)).run(input)
        #expect((try backfill.manifest).summary.derived == 0)
        #expect((try backfill.manifest).tweets.allSatisfy { $0.media.allSatisfy { $0.pdq != nil } })
        #expect(try index.pdqCount() == 3)
    }
}
