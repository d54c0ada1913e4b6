import CacheCore
import BlobStore
import Foundation
import Imaging
import ImagingFixtures
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
        let cache = try temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150, 600]
        derive.tiles = .eager
        options.derive = derive
        let pipeline = try CachePipeline(options: options)
        let input = [ResultsInput(name: "p.json", data: Data(derivePage.utf8))]
        let run = try await pipeline.run(input)
        let problems = try await ManifestSchema.problems([run.manifestURL])
        #expect(problems == "", "thumbnails, tiles and PDQ as the schema names them: \(problems)")
        let tweet = try #require((try run.manifest).tweets.first)
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
        let packBytes = try [UInt8](Data(contentsOf: cache.appendingPathComponent(try #require(tiles.pack))))
        let pack = try PyramidPack(packBytes)
        #expect(pack.geometry.width == 1000 && pack.geometry.height == 700 && pack.geometry.tileSize == 256)
        try pack.checkAll(packBytes)
        #expect(tiles.bytes == packBytes.count)
        #expect(tiles.dzi == nil && tiles.iiif == nil, "no per-tile trees")
        // Avatars get thumbnails, not tiles; a 400 px avatar gets no 600 px thumbnail
        // (the server answers that size with the original).
        let av = try #require(tweet.author.avatar)
        #expect(av.tiles == nil)
        #expect(av.thumbnails?.map(\.width) == [150])
        #expect((try run.manifest).summary.derived == 2)

        // A second run derives nothing new but still links the files.
        let again = try await pipeline.run(input)
        #expect((try again.manifest).summary.derived == 0)
        #expect((try again.manifest).tweets.first?.media.first?.thumbnails == media.thumbnails)

        // A deleted thumbnail is made again.
        try FileManager.default.removeItem(at: cache.appendingPathComponent(media.thumbnails![0].path))
        let third = try await pipeline.run(input)
        #expect((try third.manifest).summary.derived == 1)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(media.thumbnails![0].path).path))
    }

    @Test func packsAreRewrittenIdenticallyAndOldTreesAreConverted() async throws {
        let photo = try realJPEG(width: 1000, height: 700, seed: 1)
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("Real1") ? .respond(status: 200, body: photo) : .respond(status: 404)
        }
        let cache = try temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150]
        options.derive = derive
        let pipeline = try CachePipeline(options: options)
        let input = [ResultsInput(name: "p.json", data: Data(derivePage.utf8))]
        let first = try await pipeline.run(input)
        let hex = try #require((try first.manifest).tweets.first?.media.first?.sha256)
        let hash = try #require(BlobHash(hex: hex))
        let packURL = cache.appendingPathComponent(CacheLayout.pack(hash))
        let packBytes = try Data(contentsOf: packURL)

        // Turn the image back into the old layout: per-tile trees in a folder, their rows, no pack.
        let index = try CacheIndex(path: cache.appendingPathComponent(CacheLayout.indexFile))
        let legacy = cache.appendingPathComponent(CacheLayout.legacyFolder(hash))
        let image = try ImageDecoder.decode(photo)
        var tileOptions = TilePyramidOptions()
        tileOptions.iiifID = "http://127.0.0.1:8080/iiif/3/\(hash.hex)"
        _ = try TilePyramidBuilder.build(image: image, outputs: [.deepZoom: legacy.appendingPathComponent("dz"),
                                                                  .iiif3: legacy.appendingPathComponent("iiif")],
                                         options: tileOptions)
        try FileManager.default.removeItem(at: packURL)
        try index.removeDerived(try index.derived(for: hash).filter { $0.kind == DerivedKind.pack })
        try index.recordDerived([
            DerivedRecord(hash: hash, kind: "dzi", sizeParameter: "256", path: "\(CacheLayout.legacyFolder(hash))/dz/image.dzi",
                          width: 1000, height: 700),
            DerivedRecord(hash: hash, kind: "iiif3", sizeParameter: "256", path: "\(CacheLayout.legacyFolder(hash))/iiif/info.json"),
        ])
        // A cache of that time had no layout marker.
        try? FileManager.default.removeItem(at: cache.appendingPathComponent(LayoutMigration.markerFile))

        // The next run opens it and converts it first: a pack identical to the first,
        // the old folder and rows gone, the marker written.
        let second = try await CachePipeline(options: options).run(input)
        #expect(try String(contentsOf: cache.appendingPathComponent(LayoutMigration.markerFile), encoding: .utf8) == "2\n")
        #expect((try second.manifest).tweets.first?.media.first?.tiles?.pack == CacheLayout.pack(hash))
        #expect(try Data(contentsOf: packURL) == packBytes, "byte-identical on re-run")
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        let kinds = try index.derived(for: hash).map(\.kind)
        #expect(Set(kinds) == [DerivedKind.thumbnail, DerivedKind.pack])

        // Another tile size replaces the pack and its row; going back rebuilds it.
        var big = derive
        big.tileSize = 384
        options.derive = big
        _ = try await CachePipeline(options: options).run(input)
        #expect(try index.derived(for: hash).filter { $0.kind == DerivedKind.pack }.map(\.sizeParameter) == ["384"])
        #expect(try PyramidPack([UInt8](Data(contentsOf: packURL))).geometry.tileSize == 384)
        options.derive = derive
        _ = try await CachePipeline(options: options).run(input)
        #expect(try index.derived(for: hash).filter { $0.kind == DerivedKind.pack }.map(\.sizeParameter) == ["256"])
        #expect(try Data(contentsOf: packURL) == packBytes)

        // Its Deep Zoom tiles are the ones `tweetcache tile` writes for the same image.
        let tree = try temporaryDirectory()
        _ = try TilePyramidBuilder.build(image: image, layout: .deepZoom, into: tree)
        let pack = try PyramidPack([UInt8](packBytes))
        for level in pack.geometry.levels {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let file = tree.appendingPathComponent("image_files/\(level.index)/\(column)_\(row).jpg")
                    #expect(try pack.tile([UInt8](packBytes), level: level.index, column: column, row: row)
                        == [UInt8](try Data(contentsOf: file)))
                }
            }
        }
    }

    /// A photo whose data ends early is shown as browsers show it: thumbnails and
    /// tiles of the rows that arrived, and the manifest says so, in this run and in a
    /// later one that finds them made (the index keeps what the decode found).
    @Test func aTruncatedPhotoIsShownAndEveryManifestSaysItIsDamaged() async throws {
        let whole = try realJPEG(width: 1000, height: 700, seed: 4)
        let photo = Array(whole.prefix(whole.count * 3 / 5))
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("Real1") ? .respond(status: 200, body: photo) : .respond(status: 404)
        }
        let cache = try temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150, 600]
        derive.tiles = .eager
        options.derive = derive
        let input = [ResultsInput(name: "p.json", data: Data(derivePage.utf8))]
        for run in 1...2 {
            let result = try await CachePipeline(options: options).run(input)
            let problems = try await ManifestSchema.problems([result.manifestURL])
            #expect(problems == "", "decode_warning as the schema names it: \(problems)")
            let media = try #require((try result.manifest).tweets.first?.media.first)
            #expect(media.deriveError == nil, "run \(run)")
            #expect(media.thumbnails?.map(\.size) == [150, 600], "run \(run)")
            #expect(media.tiles != nil, "run \(run)")
            let warning = try #require(media.decodeWarning, "run \(run)")
            #expect(warning.contains("damaged JPEG") && warning.contains("the data ends after row"), "\(warning)")
            #expect((try result.manifest).summary.deriveFailed == 0)
            let text = try manifestText(result.manifestURL)
            #expect(text.contains("\"decode_warning\""))
        }
    }

    @Test func anUndecodableImageIsReportedNotFatal() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let pipeline = try CachePipeline(options: try makeOptions(cache: cache, origin: origin))
        let run = try await pipeline.run(inputs)
        // The fake JPEGs of these fixtures have a JPEG signature and garbage after it.
        let media = try #require((try run.manifest).tweets.first?.media.first)
        #expect(media.sha256 != nil)
        #expect(media.deriveError != nil)
        #expect(media.thumbnails == nil || media.thumbnails == [])
        #expect((try run.manifest).summary.deriveFailed > 0)
    }
}

/// Every format the networks serve goes the whole way: fetched, typed by its bytes in
/// the manifest, thumbnailed and tiled, and a transparent one keeps its alpha.
@Suite struct FormatsEndToEndTests {
    @Test func webpGIFAndAVIFOriginalsGetThumbnailsAndTiles() async throws {
        var source = try ImageDecoder.decode(try realJPEG(width: 600, height: 400, seed: 3)).withAlpha()
        source.withUnsafeMutableBytes { bytes in
            for i in stride(from: 3, to: bytes.count, by: 4) where (i / 4) % 600 < 100 { bytes[i] = 0 }
        }
        let files: [(String, [UInt8], String)] = [
            ("A.webp", try WebPEncoder.encode(source, options: .init(quality: 85)), "image/webp"),
            ("B.avif", try HEIFEncoder.encode(source.flattened(), format: .avif, quality: 80), "image/avif"),
            ("C.gif", try GIFEncoder.encode(
                indices: (0..<(600 * 400)).map { UInt8($0 % 600 / 150) }, width: 600, height: 400,
                palette: [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255], transparentIndex: 0), "image/gif"),
        ]
        let origin = try LoopbackHTTPServer { req in
            for (name, body, _) in files where req.path.contains(name.prefix(1) + ".") { return .respond(status: 200, body: body) }
            return .respond(status: 404)
        }
        let media = files.enumerated().map { index, file in
            #"{"id_str":"\#(index + 5)","type":"photo","media_url_https":"https://pbs.twimg.com/media/\#(file.0)"}"#
        }.joined(separator: ",")
        let page = """
        {"statuses":[{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"pics",
          "extended_entities":{"media":[\(media)]},
          "user":{"id_str":"9","screen_name":"eve","name":"Eve"}}]}
        """
        let cache = try temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.thumbnailSizes = [150]
        derive.tiles = .eager
        options.derive = derive
        let run = try await CachePipeline(options: options).run([ResultsInput(name: "p.json", data: Data(page.utf8))])
        let tweet = try #require((try run.manifest).tweets.first)
        #expect(tweet.media.count == 3)
        for (item, file) in zip(tweet.media, files) {
            #expect(item.contentType == file.2, "\(file.0)")
            #expect(item.width == 600 && item.height == 400, "\(file.0)")
            let thumb = try #require(item.thumbnails?.first, "\(file.0) has no thumbnail")
            let bytes = try [UInt8](Data(contentsOf: cache.appendingPathComponent(thumb.path)))
            let info = try ImageDecoder.info(of: bytes)
            #expect(info.width == 150 && info.height == 100)
            // Transparent originals get PNG thumbnails; the AVIF here is opaque.
            #expect(info.format == (file.0 == "B.avif" ? .jpeg : .png), "\(file.0)")
            let tiles = try #require(item.tiles, "\(file.0) has no pyramid")
            let pack = try [UInt8](Data(contentsOf: cache.appendingPathComponent(try #require(tiles.pack))))
            try PyramidPack(pack).checkAll(pack)
        }
    }
}
