import Foundation
import Testing
import TestSupport
@testable import LiveSearch

/// A search that knows what the collection holds asks each network only for what is
/// newer, and stops at the first page that reaches a post already held.
@Suite struct SearchBoundaryTests {
    typealias Helpers = OtherNetworksSearchTests

    @Test func aMastodonTimelineAsksSinceTheNewestHeld() async throws {
        // The instance honours since_id: statuses 1000 down to 981 are newer than 980.
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/api/v1/timelines/tag/astro" else { return .respond(status: 404) }
            let p = Helpers.parameters(request)
            let since = p["since_id"].flatMap(Int.init) ?? 0
            let below = p["max_id"].flatMap(Int.init) ?? 1001
            let limit = p["limit"].flatMap(Int.init) ?? 20
            return .respond(status: 200, body: Helpers.statuses(from: below - 1, count: max(0, min(limit, below - 1 - since))))
        }
        var options = try Helpers.options(.mastodon, base: server.baseURL, count: 500)
        options.since = SearchBoundary(newestID: "980")
        let client = try SearchClient(query: try SearchQuery("#astro"), token: nil, options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.tweets == 20)
        #expect(outcome.reachedHeld)
        #expect(server.requests.allSatisfy { Helpers.parameters($0)["since_id"] == "980" })
    }

    @Test func mastodonTextSearchStopsAtTheFirstHeldStatus() async throws {
        // /api/v2/search has no since_id: the second page holds status 960, already held.
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/api/v2/search" else { return .respond(status: 404) }
            let below = Helpers.parameters(request)["max_id"].flatMap(Int.init) ?? 1001
            let statuses = String(decoding: Helpers.statuses(from: below - 1, count: 20), as: UTF8.self)
            return .respond(status: 200, body: Array(#"{"accounts": [], "hashtags": [], "statuses": \#(statuses)}"#.utf8))
        }
        var options = try Helpers.options(.mastodon, base: server.baseURL, count: 500)
        options.since = SearchBoundary(newestID: "970")
        let client = try SearchClient(query: try SearchQuery("night sky"), token: try BearerToken("mastodon-secret", source: .environment(SearchClient.mastodonTokenVariable)),
                                      options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .reachedHeld)
        #expect(outcome.reachedHeld)
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { Helpers.parameters($0)["since_id"] == nil })
    }

    @Test func blueskyAsksSinceTheNewestTimeAndStopsAtAnOlderPost() async throws {
        let held = Date(timeIntervalSince1970: 1_764_000_000)
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/xrpc/app.bsky.feed.searchPosts" else { return .respond(status: 404) }
            func post(_ n: Int, _ at: String) -> String {
                #"{"uri": "at://did:plc:a/app.bsky.feed.post/\#(n)", "cid": "c\#(n)", "author": {"did": "did:plc:a", "handle": "a"}, "record": {"text": "t", "createdAt": "\#(at)"}, "indexedAt": "\#(at)"}"#
            }
            // The AppView sends one page past `since` anyway: its second post is older.
            let body = Helpers.parameters(request)["cursor"] == nil
                ? #"{"posts": [\#(post(3, "2025-11-24T16:10:00.000Z")), \#(post(2, "2025-11-24T16:00:00.000Z"))], "cursor": "next"}"#
                : #"{"posts": [\#(post(1, "2025-11-24T15:59:59.000Z")), \#(post(0, "2025-11-24T15:00:00.000Z"))], "cursor": "more"}"#
            return .respond(status: 200, headers: [("RateLimit-Remaining", "100")], body: Array(body.utf8))
        }
        var options = try Helpers.options(.bluesky, base: server.baseURL, count: 100)
        options.since = SearchBoundary(newestAt: held)
        let client = try SearchClient(query: try SearchQuery("#night"), token: nil, options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .reachedHeld)
        #expect(server.requests.count == 2, "the page that reaches an older post is the last")
        #expect(server.requests.allSatisfy { Helpers.parameters($0)["since"] == "2025-11-24T16:00:00.000Z" })
    }

    @Test func theBoundarysForms() throws {
        let byID = SearchBoundary(newestID: "99")
        #expect(byID.decimalID?.digits == "99")
        let byTime = SearchBoundary(newestAt: Date(timeIntervalSince1970: 100))
        #expect(byTime.isoTime == "1970-01-01T00:01:40.000Z")
    }
}
