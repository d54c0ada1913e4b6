import CacheCore
import BlobStore
import Foundation
import Imaging
import Inspect
import MediaFetch
import Pipeline
import Testing
import TestSupport

/// `verify` on packs, in process: a damaged pack is found and rebuilt identical;
/// a cache in the layout before packs is reported and converted without loss.
@Suite struct CacheVerifierPackTests {
    static let page = """
    {"statuses":[{"id_str":"1","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"pic",
      "extended_entities":{"media":[{"id_str":"5","type":"photo","media_url_https":"https://pbs.twimg.com/media/Big1.jpg"}]},
      "user":{"id_str":"9","screen_name":"eve","name":"Eve"}}]}
    """

    /// A cache holding one 1000x700 photo with its pack; returns the cache and the photo's hash.
    static func cache(_ derive: DeriveOptions = DeriveOptions()) async throws -> (URL, BlobHash, [UInt8]) {
        var pixels = [UInt8](repeating: 0, count: 1000 * 700 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: (i / 3 % 1000) &+ (i / 3000) &* 7 &+ i % 3 * 50) }
        let photo = try JPEGEncoder.encode(try PixelBuffer(width: 1000, height: 700, channels: 3, bytes: pixels), quality: 90)
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("Big1") ? .respond(status: 200, body: photo) : .respond(status: 404)
        }
        defer { origin.stop() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("tc-verify-\(UUID().uuidString)")
        var fetch = FetchConfiguration()
        fetch.mirrors = try MirrorMap(specs: ["pbs.twimg.com=\(origin.baseURL)/pbs"])
        var options = PipelineOptions(cacheRoot: cache, fetch: fetch)
        options.derive = derive
        _ = try await CachePipeline(options: options).run([ResultsInput(name: "p.json", data: Data(page.utf8))])
        return (cache, BlobHash(hashing: photo), photo)
    }

    /// Flips a bit in the last tile of the pack; returns the sound bytes.
    static func damage(_ packURL: URL) throws -> Data {
        let good = try Data(contentsOf: packURL)
        var bad = [UInt8](good)
        bad[bad.count - 100] ^= 0x08
        try Data(bad).write(to: packURL)
        return good
    }

    @Test func aDamagedPackIsFoundAndRebuiltIdentical() async throws {
        let (cache, hash, _) = try await Self.cache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let packURL = cache.appendingPathComponent(CacheLayout.pack(hash))
        let good = try Self.damage(packURL)

        let found = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: false)
        #expect(found.problems.map(\.kind) == [.corruptPack])
        #expect(found.problems.first?.detail.contains("checksum") == true)
        let repaired = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: true)
        #expect(repaired.remaining == 0)
        #expect(repaired.problems.first?.repaired == "rebuilt from the original")
        #expect(try Data(contentsOf: packURL) == good)
        #expect(try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: false).problems.isEmpty)
    }

    @Test func aDamagedPackAndAMissingThumbnailOfOneImageAreBothRepairedWithThePacksSettings() async throws {
        var derive = DeriveOptions()
        derive.overlap = 1
        derive.quality = 70
        let (cache, hash, _) = try await Self.cache(derive)
        defer { try? FileManager.default.removeItem(at: cache) }
        let packURL = cache.appendingPathComponent(CacheLayout.pack(hash))
        let good = try Self.damage(packURL)
        try FileManager.default.removeItem(at: cache.appendingPathComponent(CacheLayout.thumbnail(hash, size: 150, png: false)))

        let repaired = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: true)
        #expect(Set(repaired.problems.map(\.kind)) == [.missingDerived, .corruptPack])
        #expect(repaired.remaining == 0, "\(repaired.problems)")
        #expect(try Data(contentsOf: packURL) == good, "rebuilt with the pack's own overlap and quality")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(CacheLayout.thumbnail(hash, size: 150, png: false)).path))
    }

    /// A thumbnail is judged as `verify --store` judges a bucket's: against the
    /// hash recorded when it was made, so a sound image of another picture is
    /// caught too; the repair keeps the bad file in quarantine and makes it again.
    @Test func aThumbnailThatIsNotTheOneRecordedIsFoundAndMadeAgain() async throws {
        let (cache, hash, _) = try await Self.cache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let thumbnail = cache.appendingPathComponent(CacheLayout.thumbnail(hash, size: 150, png: false))
        let good = try Data(contentsOf: thumbnail)
        var pixels = [UInt8](repeating: 0, count: 150 * 105 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 13) }
        let other = try JPEGEncoder.encode(try PixelBuffer(width: 150, height: 105, channels: 3, bytes: pixels), quality: 80)
        try Data(other).write(to: thumbnail)

        let found = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: false)
        #expect(found.problems.map(\.kind) == [.corruptDerived])
        #expect(found.problems.first?.detail.contains("recorded") == true)
        let repaired = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: true)
        #expect(repaired.remaining == 0, "\(repaired.problems)")
        #expect(try Data(contentsOf: thumbnail) == good)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("quarantine/" + thumbnail.lastPathComponent).path))
        #expect(try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: false).problems.isEmpty)

        // Not an image at all: the same.
        try Data("garbage".utf8).write(to: thumbnail)
        #expect(try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: true).remaining == 0)
        #expect(try Data(contentsOf: thumbnail) == good)
    }

    @Test func anOldLayoutCacheIsConvertedWhenFirstOpenedWithoutLoss() async throws {
        let (cache, hash, photo) = try await Self.cache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let packURL = cache.appendingPathComponent(CacheLayout.pack(hash))
        let pack = try Data(contentsOf: packURL)
        // The layout before packs: a folder of trees and their rows, no pack.
        let legacy = cache.appendingPathComponent(CacheLayout.legacyFolder(hash))
        var options = TilePyramidOptions()
        options.iiifID = "http://127.0.0.1:8080/iiif/3/\(hash.hex)"
        _ = try TilePyramidBuilder.build(image: try ImageDecoder.decode(photo),
                                         outputs: [.deepZoom: legacy.appendingPathComponent("dz"),
                                                   .iiif3: legacy.appendingPathComponent("iiif")], options: options)
        try FileManager.default.removeItem(at: packURL)
        let index = try CacheIndex(path: cache.appendingPathComponent(CacheLayout.indexFile))
        try index.removeDerived(try index.derived(for: hash).filter { $0.kind == DerivedKind.pack })
        try index.recordDerived([DerivedRecord(hash: hash, kind: "dzi", sizeParameter: "256",
                                               path: "\(CacheLayout.legacyFolder(hash))/dz/image.dzi", width: 1000, height: 700)])
        // A cache of that time had no layout marker.
        try? FileManager.default.removeItem(at: cache.appendingPathComponent(LayoutMigration.markerFile))

        // The first command that opens it (here `verify`) converts it before reading it.
        let found = try await CacheVerifier(snapshot: try CacheSnapshot(root: cache)).run(repair: false)
        #expect(found.problems.isEmpty, "\(found.problems)")
        #expect(try Data(contentsOf: packURL) == pack, "the pack a fresh run makes, byte for byte")
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
        #expect(try index.derived(for: hash).map(\.kind).sorted() == ["pack", "thumb", "thumb"])
        // Once: the marker says so, and a second opening converts nothing.
        #expect(LayoutMigration.runIfNeeded(layout: CacheLayout(root: cache)) == nil)
    }
}
