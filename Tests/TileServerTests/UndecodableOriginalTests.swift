import BlobStore
import Foundation
import Imaging
import Testing
import TestSupport
@testable import TileServer

/// An original that does not decode is the image's fault: 422 (415 for no image
/// format at all) with the reason, remembered so it is not decoded again; never 500.
@Suite struct UndecodableOriginalTests {
    @Test func damagedOriginalsGet422AndAreNotDecodedAgain() async throws {
        let fixture = try await ServerFixture.get()
        let cache = try fixture.copyOfCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        // A JPEG cut just after its scan header, before a row of it (an interrupted download
        // someone stored: nothing to show), and bytes that are no image at all, each under
        // the hash of its bytes. A JPEG cut a third of the way is shown as browsers show it.
        let whole = try JPEGEncoder.encode(ServerFixture.quadrants(width: 640, height: 480), quality: 90)
        let sos = try #require(whole.indices.first { whole[$0] == 0xFF && whole[$0 + 1] == 0xDA })
        let truncated = Array(whole.prefix(sos + 2 + (Int(whole[sos + 2]) << 8 | Int(whole[sos + 3])) + 2))
        let partial = Array(whole.prefix(whole.count / 3))
        let noise = Array("just some text, not an image\n".utf8)
        for bytes in [truncated, partial, noise] {
            let url = cache.appendingPathComponent(CacheLayout.blob(BlobHash(hashing: bytes)))
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let cut = BlobHash(hashing: truncated).hex, text = BlobHash(hashing: noise).hex
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        configuration.buildsPacks = false
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in
            for path in ["/thumb/\(cut)/100", "/iiif/3/\(cut)/full/200,/0/default.jpg", "/dzi/\(cut)_files/0/0_0.jpg"] {
                let answer = try await fetch(server, path)
                #expect(answer.status == 422, "\(path): \(answer.status) \(answer.text)")
                #expect(answer.text.contains("cannot be decoded"), "\(path): \(answer.text)")
            }
            let shown = try await fetch(server, "/thumb/\(BlobHash(hashing: partial).hex)/100")
            #expect(shown.status == 200, "a partly arrived JPEG is shown: \(shown.status) \(shown.text)")
            for path in ["/thumb/\(text)/100", "/iiif/3/\(text)/info.json", "/dzi/\(text).dzi"] {
                let answer = try await fetch(server, path)
                #expect(answer.status == 415, "\(path): \(answer.status) \(answer.text)")
            }
            // Each was decoded once, however often it was asked for.
            #expect(try await metric(server, "tweetcache_originals_undecodable_total") == 2)
            #expect(try await metric(server, "tweetcache_http_requests_total{route=\"thumb\",status=\"500\"}") == 0)
        }
    }
}
