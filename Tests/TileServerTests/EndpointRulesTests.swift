import Testing
import TestSupport
@testable import TileServer

/// The rules every kind of endpoint keeps, asked of a running server: statuses,
/// the CORS header IIIF needs, conditional answers, and refusals of what names
/// nothing servable.
@Suite struct EndpointRulesTests {
    static func start(_ fixture: ServerFixture) async throws -> TileServer {
        try await fixture.start { $0.buildsPacks = false }
    }

    @Test func servesEveryKindOfEndpoint() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await Self.start(fixture)) { (server: TileServer) async throws in
            let health = try await fetch(server, "/healthz")
            #expect(health.status == 200)
            let info = try await fetch(server, "/iiif/3/\(fixture.eager.hex)/info.json")
            #expect(info.status == 200)
            #expect(info.text.contains("\"width\" : 1200") || info.text.contains("\"width\":1200"))
            #expect(info.header("access-control-allow-origin") == "*")
            let tile = try await fetch(server, "/dzi/\(fixture.eager.hex)_files/11/1_1.jpg")
            #expect(tile.status == 200)
            #expect(tile.header("content-type") == "image/jpeg")
            #expect(tile.body.prefix(2).elementsEqual([0xFF, 0xD8]))
            // Conditional: the tile's own ETag gets 304 with no body.
            let etag = try #require(tile.header("etag"))
            let again = try await fetch(server, "/dzi/\(fixture.eager.hex)_files/11/1_1.jpg", headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
        }
    }

    @Test(arguments: [
        ("/dzi/not-a-hash.dzi", 400), ("/blob/%2e%2e%2f%2e%2e%2fetc%2fpasswd", 400), ("/nothing/here", 404),
        ("/iiif/3/\(String(repeating: "0", count: 64))/info.json", 404),
    ])
    func refusesWhatNamesNothingServable(_ uri: String, _ status: Int) async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await Self.start(fixture)) { (server: TileServer) async throws in
            #expect(try await fetch(server, uri).status == status, "\(uri)")
        }
    }

    @Test func methodsOtherThanGetAndHeadAreRefused() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await Self.start(fixture)) { (server: TileServer) async throws in
            let post = try await fetch(server, "/iiif/3/\(fixture.eager.hex)/info.json", method: "POST")
            #expect(post.status == 405)
            #expect(post.header("allow")?.contains("GET") == true)
        }
    }
}
