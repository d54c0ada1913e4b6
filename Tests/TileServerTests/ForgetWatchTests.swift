import BlobStore
import Catalog
import Foundation
import Testing
import TestSupport
@testable import TileServer

/// A running server drops what it keeps in memory once `forget` (another process)
/// adds to the tombstone log: the forgotten images are not served from memory after.
@Suite struct ForgetWatchTests {
    @Test func aForgetElsewhereEmptiesTheMemoryItServesFrom() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try ScratchDirectory.make("tc-forget-watch").appendingPathComponent("cache")
        try FileManager.default.copyItem(at: fixture.cache, to: cache)
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.buildsPacks = false
        configuration.port = 0
        // The server's own watch never looks during the test: the test looks, by hand.
        configuration.forgetCheckInterval = .seconds(3600)
        let hash = fixture.eager
        let uris = ["/blob/\(hash.hex)", "/iiif/3/\(hash.hex)/full/max/0/default.jpg", "/dzi/\(hash.hex)_files/11/1_1.jpg"]
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (made: TileServer) async throws in
            for uri in uris {
                #expect(try await fetch(made, uri).status == 200, "\(uri)")
            }
            // A duplicate search holds the PDQ index (and maps the kept file beside the catalog).
            _ = try made.catalog.perceptualIndex(of: try made.catalog.catalog)
            #expect(made.catalog.holdsPerceptualIndex)
            // `forget` removes the image's files and writes its tombstone.
            let store = try BlobStore(root: cache)
            #expect(try store.remove(hash))
            _ = store.removeDerived(of: hash)
            var seen = made.forgetWatch.state()
            #expect(!made.forgetWatch.check(&seen), "nothing forgotten yet")
            let fromMemory = try await fetch(made, uris[1]).status
            try TombstoneLog(cacheRoot: cache).append([Tombstone(key: PostIdentity(network: .x, id: "1"), forgottenAt: Date(), reason: "deleted")])
            #expect(made.forgetWatch.check(&seen))
            // Its hashes include the forgotten photos', and the file it maps is unlinked.
            #expect(!made.catalog.holdsPerceptualIndex, "the PDQ index is let go")
            for uri in uris {
                let status = try await fetch(made, uri).status
                #expect(status == 404, "\(uri) after the forget: \(status)")
            }
            // What memory held was being served until the watch saw the tombstone.
            #expect(fromMemory == 200, "the rendition was served from memory: \(fromMemory)")
        }
    }
}
