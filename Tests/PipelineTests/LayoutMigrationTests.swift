import CacheCore
import BlobStore
import Foundation
import Testing
import TestSupport
@testable import Pipeline

/// The conversion of the layout before packs, run once by whatever opens a cache.
@Suite struct LayoutMigrationTests {
    /// A cache holding one photo (with its pack) and its hash.
    static func cache() async throws -> (URL, BlobHash, LoopbackHTTPServer) {
        let photo = try realJPEG(width: 1000, height: 700, seed: 3)
        let origin = try LoopbackHTTPServer { req in
            req.path.contains("Real1") ? .respond(status: 200, body: photo) : .respond(status: 404)
        }
        let cache = try temporaryDirectory()
        var options = try makeOptions(cache: cache, origin: origin)
        var derive = DeriveOptions()
        derive.tiles = .eager
        options.derive = derive
        _ = try await CachePipeline(options: options).run([ResultsInput(name: "p.json", data: Data(derivePage.utf8))])
        return (cache, BlobHash(hashing: photo), origin)
    }

    @Test func aFreshCacheIsMarkedCurrentAndNeverScannedAgain() async throws {
        let (cache, _, origin) = try await Self.cache()
        defer { origin.stop(); try? FileManager.default.removeItem(at: cache) }
        #expect(try String(contentsOf: cache.appendingPathComponent(LayoutMigration.markerFile), encoding: .utf8) == "2\n")
        #expect(LayoutMigration.runIfNeeded(layout: CacheLayout(root: cache)) == nil)
    }

    /// An image whose original is gone cannot be converted: its folder stays (for
    /// `verify` to report), the others are converted, and the cache is marked.
    @Test func anImageThatCannotBeConvertedKeepsItsFolderAndIsReported() async throws {
        let (cache, hash, origin) = try await Self.cache()
        defer { origin.stop(); try? FileManager.default.removeItem(at: cache) }
        let layout = CacheLayout(root: cache)
        let orphan = BlobHash(hashing: Array("an original nobody has".utf8))
        for owner in [hash, orphan] {
            let folder = layout.url(CacheLayout.legacyFolder(owner)).appendingPathComponent("dz")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"<?xml version="1.0"?><Image TileSize="256" Overlap="1" Format="jpg" xmlns="http://schemas.microsoft.com/deepzoom/2008"><Size Width="1000" Height="700"/></Image>"#.utf8)
                .write(to: folder.appendingPathComponent("image.dzi"))
        }
        try FileManager.default.removeItem(at: cache.appendingPathComponent(LayoutMigration.markerFile))

        let report = try #require(LayoutMigration.runIfNeeded(layout: CacheLayout(root: cache), threads: 1))
        #expect(report.converted == 1)
        #expect(report.failed.keys.sorted() == [orphan.hex])
        #expect(!FileManager.default.fileExists(atPath: layout.path(CacheLayout.legacyFolder(hash))))
        #expect(FileManager.default.fileExists(atPath: layout.path(CacheLayout.legacyFolder(orphan))))
        #expect(FileManager.default.fileExists(atPath: layout.path(CacheLayout.pack(hash))))
        #expect(LayoutMigration.runIfNeeded(layout: CacheLayout(root: cache)) == nil, "once")
    }
}
