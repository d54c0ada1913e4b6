import Foundation
import Testing
import TestSupport
@testable import TileServer

@Suite struct ViewerEndpointTests {
    @Test func pagesAndAssets() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
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
    }

    /// `/api/duplicates/<sha256>`: the image's PDQ hash from the catalog, and the other
    /// photos near it with their posts (the two fixture photos are the same four
    /// quadrants at two sizes, so each finds the other unless too flat to match).
    @Test func apiDuplicatesAnswersFromTheCatalog() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
            func answer(_ hash: String) async throws -> [String: Any] {
                let response = try await fetch(server, "/api/duplicates/\(hash)")
                #expect(response.status == 200 && response.header("content-type") == "application/json")
                return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            }
            let eager = try await answer(fixture.eager.hex)
            let pdq = try #require(eager["pdq"] as? String)
            #expect(pdq.count == 64)
            #expect(eager["threshold"] as? Int == 31)
            let quality = try #require(eager["pdq_quality"] as? Int)
            let near = try #require(eager["near_duplicates"] as? [[String: Any]])
            if quality >= 50 {
                #expect(near.map { $0["sha256"] as? String } == [fixture.lazy.hex])
                #expect((near.first?["posts"] as? [[String: Any]])?.map { $0["id"] as? String } == ["102"])
            } else {
                #expect(near.isEmpty, "too flat to match")
            }
            // An image the catalog has no hash for has none; a malformed hash is refused.
            let unknown = try await answer(String(repeating: "7", count: 64))
            #expect(unknown["pdq"] == nil || unknown["pdq"] is NSNull)
            #expect((unknown["near_duplicates"] as? [Any])?.isEmpty == true)
            #expect(try await fetch(server, "/api/duplicates/xyz").status == 400)
        }
    }

    @Test func apiTweetsMergesManifestsAndFilters() async throws {
        let fixture = try await ServerFixture.get()
        try await withServer(try await fixture.start()) { (server: TileServer) async throws in
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
            // Each post's links come from the server (Network), not from a copy of its rules in the page.
            let links = try #require(first["links"] as? [String: Any])
            let post = try #require(links["post"] as? String)
            #expect(post.hasPrefix("https://x.com/") && post.hasSuffix("/status/101"))
            #expect((links["profile"] as? String)?.hasPrefix("https://x.com/") == true && links["network_name"] as? String == "X")
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
}

@Suite struct TweetPagingTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func feed(_ server: TileServer, _ query: String) async throws -> [String: Any] {
        let response = try await fetch(server, "/api/tweets\(query)")
        #expect(response.status == 200)
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func ids(_ feed: [String: Any]) -> [String] {
        (feed["tweets"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test func pagesFollowACursorNewestFirstWithoutRepeatsWhenARunAddsTweets() async throws {
        // 250 tweets a minute apart; ids 1000...1249, the newest the largest. Two pairs
        // share a second, so ties are ordered by id.
        var posts: [TextCacheFixture.Post] = []
        for i in 0..<250 {
            let text = i % 10 == 0 ? "#tenth tweet \(i)" : "tweet \(i)"
            posts.append(.init(id: String(1000 + i), createdAt: Self.start.addingTimeInterval(Double(i) * 60), text: text))
        }
        posts[11].createdAt = posts[10].createdAt
        posts[200].createdAt = posts[201].createdAt
        let cache = try await TextCacheFixture.make(posts, runAt: Self.start.addingTimeInterval(86_400))
        defer { try? FileManager.default.removeItem(at: cache) }
        var configuration = TileServerConfiguration(cacheRoot: cache)
        configuration.port = 0
        try await withServer(try await TileServer.start(configuration, executor: ServerThreads.shared)) { (server: TileServer) async throws in

            let first = try await feed(server, "")
            #expect(ids(first).count == 100 && first["total"] as? Int == 250)
            #expect(ids(first).first == "1249" && first["tags"] != nil)
            var seen = ids(first)
            var next = try #require(first["next"] as? String)

            // A run in between adds a tweet newer than all of them: the pages already in
            // the order go on where they were, without repeating one.
            try await TextCacheFixture.add([.init(id: "2000", createdAt: Self.start.addingTimeInterval(1e6), text: "late")],
                                           to: cache, runAt: Self.start.addingTimeInterval(2e6))
            while true {
                let page = try await feed(server, "?cursor=\(next)")
                #expect(page["tags"] == nil, "counts come with the first page only")
                seen += ids(page)
                guard let more = page["next"] as? String else { break }
                next = more
            }
            let expected = posts.sorted { (a: TextCacheFixture.Post, b: TextCacheFixture.Post) -> Bool in
                a.createdAt != b.createdAt ? a.createdAt > b.createdAt : Int(a.id)! > Int(b.id)!
            }.map(\.id)
            #expect(seen == expected)

            // Filters page too; text search covers the text and the author.
            let tagged = try await feed(server, "?tag=tenth&limit=10")
            #expect(ids(tagged).count == 10 && tagged["total"] as? Int == 25 && tagged["next"] is String)
            #expect(ids(try await feed(server, "?q=TWEET%20249")) == ["1249"])
            #expect((try await feed(server, "?q=ana&limit=1"))["total"] as? Int == 251)
            // One tweet by id, for a detail view opened by its URL.
            #expect(ids(try await feed(server, "?id=1003")) == ["1003"])
            #expect(ids(try await feed(server, "?id=nope")).isEmpty)
            // A cursor is the server's text; anything else is refused, not read as "from the start".
            #expect(try await fetch(server, "/api/tweets?cursor=bm90IGpzb24").status == 400)
            #expect(try await fetch(server, "/api/tweets?cursor=%00%01").status == 400)
        }
    }

    @Test func cursorsRoundTripAndEndTheOrder() throws {
        let cursor = try TweetCursor(text: TweetCursor(text: "eyJ0IjoxLjUsImlkIjoiOSJ9").text)
        #expect(cursor.id == "9" && cursor.t == 1.5)
        #expect(throws: RouteError.self) { try TweetCursor(text: String(repeating: "A", count: 2000)) }
        #expect(throws: RouteError.self) { try TweetCursor(text: "") }
    }
}
