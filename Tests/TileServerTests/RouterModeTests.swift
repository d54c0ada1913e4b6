import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TileServer

/// The tile server's application driven through HummingbirdTesting's `.router`
/// mode: requests go straight to the responder, with no port bound and no
/// connection. Endpoint rules are tested here; the socket tests keep what only a
/// connection shows (the hot-response handler, keep-alive, pipelining).
@Suite struct RouterModeTests {
    static func app() async throws -> (ServerFixture, some ApplicationProtocol) {
        let fixture = try await ServerFixture.get()
        var configuration = TileServerConfiguration(cacheRoot: fixture.cache)
        configuration.buildsPacks = false
        return (fixture, try TileServer.application(configuration, logger: Logger(label: "test")).app)
    }

    @Test func servesEveryKindOfEndpointWithoutASocket() async throws {
        let (fixture, app) = try await Self.app()
        try await app.test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            let info = try await client.execute(uri: "/iiif/3/\(fixture.eager.hex)/info.json", method: .get)
            #expect(info.status == .ok)
            #expect(String(buffer: info.body).contains("\"width\" : 1200") || String(buffer: info.body).contains("\"width\":1200"))
            #expect(info.headers[.accessControlAllowOrigin] == "*")
            let tile = try await client.execute(uri: "/dzi/\(fixture.eager.hex)_files/11/1_1.jpg", method: .get)
            #expect(tile.status == .ok)
            #expect(tile.headers[.contentType] == "image/jpeg")
            #expect(tile.body.readableBytesView.prefix(2).elementsEqual([0xFF, 0xD8]))
            // Conditional: the tile's own ETag gets 304 with no body.
            let etag = try #require(tile.headers[.eTag])
            let again = try await client.execute(
                uri: "/dzi/\(fixture.eager.hex)_files/11/1_1.jpg", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
        }
    }

    @Test(arguments: [
        ("/dzi/not-a-hash.dzi", 400), ("/blob/%2e%2e%2f%2e%2e%2fetc%2fpasswd", 400), ("/nothing/here", 404),
        ("/iiif/3/\(String(repeating: "0", count: 64))/info.json", 404),
    ])
    func refusesWhatNamesNothingServable(_ uri: String, _ status: Int) async throws {
        let (_, app) = try await Self.app()
        try await app.test(.router) { client in
            let response = try await client.execute(uri: uri, method: .get)
            #expect(Int(response.status.code) == status, "\(uri)")
        }
    }

    @Test func methodsOtherThanGetAndHeadAreRefused() async throws {
        let (fixture, app) = try await Self.app()
        try await app.test(.router) { client in
            let post = try await client.execute(uri: "/iiif/3/\(fixture.eager.hex)/info.json", method: .post)
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow]?.contains("GET") == true)
        }
    }
}
