import Foundation
import Testing
import TestSupport
@testable import TileServer

@Suite struct ViewerEndpointTests {
    @Test func pagesAndAssets() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        let index = try await fetch(server, "/")
        #expect(index.status == 200 && index.header("content-type") == "text/html; charset=utf-8")
        #expect(index.text.contains("/static/app.js"))
        #expect(index.header("content-security-policy")?.contains("default-src 'self'") == true)
        let etag = try #require(index.header("etag"))
        #expect(try await fetch(server, "/", headers: ["If-None-Match": etag]).status == 304)

        let zoom = try await fetch(server, "/view/\(fixture.eager.hex)")
        #expect(zoom.status == 200 && zoom.text.contains("/static/zoom.js"))
        #expect(try await fetch(server, "/view/\(String(repeating: "1", count: 64))").status == 404)
        #expect(try await fetch(server, "/static/app.js").header("content-type") == "text/javascript; charset=utf-8")
        #expect(try await fetch(server, "/static/zoom.js").status == 200)
        #expect(try await fetch(server, "/static/viewer.css").header("content-type") == "text/css; charset=utf-8")
        #expect(try await fetch(server, "/static/nope.js").status == 404)
    }

    @Test func apiTweetsMergesManifestsAndFilters() async throws {
        let fixture = try await ServerFixture.get()
        let server = try await fixture.start()
        defer { Task { await server.stop() } }
        func feed(_ query: String) async throws -> [String: Any] {
            let response = try await fetch(server, "/api/tweets\(query)")
            #expect(response.status == 200 && response.header("content-type") == "application/json")
            return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        }
        let all = try await feed("")
        let tweets = try #require(all["tweets"] as? [[String: Any]])
        #expect(Set(tweets.compactMap { $0["id"] as? String }) == ["101", "102"])
        #expect(all["now"] is String)
        let first = try #require(tweets.first { $0["id"] as? String == "101" })
        let media = try #require((first["media"] as? [[String: Any]])?.first)
        #expect(media["sha256"] as? String == fixture.eager.hex)
        #expect((all["tags"] as? [[String: Any]])?.first?["tag"] as? String == "zoom")

        let byBob = try #require(try await feed("?user=%40Bob")["tweets"] as? [[String: Any]])
        #expect(byBob.map { $0["id"] as? String } == ["102"])
        let tagged = try #require(try await feed("?tag=%23ZOOM")["tweets"] as? [[String: Any]])
        #expect(tagged.count == 2)
        let none = try #require(try await feed("?tag=nothing")["tweets"] as? [[String: Any]])
        #expect(none.isEmpty)
        let limited = try await feed("?limit=1")
        #expect((limited["tweets"] as? [Any])?.count == 1 && limited["total"] as? Int == 2)
    }
}
