import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LiveSearch

/// `search` against loopback stand-ins of a Mastodon instance and a Bluesky AppView:
/// which endpoint a query reads, paging, tokens, rate limits.
@Suite struct OtherNetworksSearchTests {
    /// Statuses with ids from `top` down, newest first.
    static func statuses(from top: Int, count: Int) -> [UInt8] {
        let items = (0..<count).map { i in
            #"{"id": "\#(top - i)", "content": "<p>post \#(top - i)</p>", "account": {"id": "9", "acct": "ana"}}"#
        }
        return Array(("[" + items.joined(separator: ",") + "]").utf8)
    }

    static func options(_ api: SearchAPI, base: String, count: Int, clock: VirtualClock = VirtualClock()) throws -> SearchOptions {
        var options = SearchOptions(cacheRoot: try temporaryDirectory())
        options.api = api
        options.baseURL = base
        options.count = count
        options.backoffBase = .milliseconds(20)
        options.backoffCap = .milliseconds(100)
        options.clock = clock
        return options
    }

    static func parameters(_ request: LoopbackHTTPServer.Request) -> [String: String] { FakeSearchAPI.parameters(request) }

    @Test func aMastodonTagPagesByMaxIDWithoutAToken() async throws {
        // 95 statuses in the tag's timeline, 40 a page, ids 1000 down to 906.
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/api/v1/timelines/tag/astro" else { return .respond(status: 404) }
            let below = Self.parameters(request)["max_id"].flatMap(Int.init) ?? 1001
            let limit = Self.parameters(request)["limit"].flatMap(Int.init) ?? 20
            let left = max(0, below - 906)
            return .respond(status: 200, body: Self.statuses(from: below - 1, count: min(limit, left)))
        }
        let client = try SearchClient(query: try SearchQuery("#astro"), token: nil,
                                      options: try Self.options(.mastodon, base: server.baseURL, count: 500))
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .endOfResults)
        #expect(outcome.tweets == 95)
        let asked = server.requests.map { Self.parameters($0)["max_id"] }
        #expect(asked == [nil, "961", "921", "906"])
        #expect(server.requests.allSatisfy { $0.headers["authorization"] == nil })
        #expect(outcome.pages.first?.file.lastPathComponent.contains("-mastodon-astro-p1") == true)
    }

    @Test func aMastodonAccountIsLookedUpThenReadWithoutReblogs() async throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/api/v1/accounts/lookup":
                return Self.parameters(request)["acct"] == "ana@example.social"
                    ? .respond(status: 200, body: Array(#"{"id": "4242", "acct": "ana@example.social"}"#.utf8))
                    : .respond(status: 404, body: Array(#"{"error": "Record not found"}"#.utf8))
            case "/api/v1/accounts/4242/statuses":
                return .respond(status: 200, body: Self.statuses(from: 50, count: 3))
            default:
                return .respond(status: 404)
            }
        }
        let options = try Self.options(.mastodon, base: server.baseURL, count: 3)
        let client = try SearchClient(query: try SearchQuery("@ana@example.social"), token: nil, options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .countReached && outcome.tweets == 3)
        #expect(server.requests.last.map(Self.parameters)?["exclude_reblogs"] == "true")

        let unknown = try SearchClient(query: try SearchQuery("@nobody@example.social"), token: nil, options: options)
        defer { unknown.shutdown() }
        let missing = await unknown.run()
        #expect(missing.stop == .failed(.noSuchAccount("nobody@example.social")))
        #expect(missing.stop.description.contains("knows no account @nobody@example.social"))
    }

    @Test func mastodonTextSearchNeedsATokenAndSendsIt() async throws {
        let seen = Mutex<[String?]>([])
        let server = try LoopbackHTTPServer { request in
            seen.withLock { $0.append(request.headers["authorization"]) }
            guard request.path == "/api/v2/search", Self.parameters(request)["type"] == "statuses" else {
                return .respond(status: 404)
            }
            return .respond(status: 200, body: Array(#"{"accounts": [], "hashtags": [], "statuses": []}"#.utf8))
        }
        let options = try Self.options(.mastodon, base: server.baseURL, count: 10)
        #expect(throws: LiveSearchError.self) { try SearchClient(query: try SearchQuery("night sky"), token: nil, options: options) }
        let token = try BearerToken("mastodon-secret", source: .environment(SearchClient.mastodonTokenVariable))
        let client = try SearchClient(query: try SearchQuery("night sky"), token: token, options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .endOfResults)
        #expect(seen.withLock { $0 } == ["Bearer mastodon-secret"])
    }

    @Test func aMastodon429IsWaitedOutByItsISOReset() async throws {
        let clock = VirtualClock()
        let served = Mutex(0)
        let server = try LoopbackHTTPServer { _ in
            let n = served.withLock { $0 += 1; return $0 }
            if n == 1 {
                let reset = ISO8601DateFormatter().string(from: clock.now().addingTimeInterval(30))
                return .respond(status: 429, headers: [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", reset)],
                                body: Array(#"{"error": "Too many requests"}"#.utf8))
            }
            return .respond(status: 200, body: Self.statuses(from: 10, count: 2))
        }
        let client = try SearchClient(query: try SearchQuery("#astro"), token: nil,
                                      options: try Self.options(.mastodon, base: server.baseURL, count: 2, clock: clock))
        defer { client.shutdown() }
        let started = clock.now()
        let outcome = await client.run()
        #expect(outcome.stop == .countReached)
        #expect(clock.now().timeIntervalSince(started) >= 30, "waited (on the virtual clock) for the reset")
    }

    @Test func aMastodonRefusalNamesTheTokenVariable() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 401, body: Array(#"{"error": "The access token is invalid"}"#.utf8)) }
        let token = try BearerToken("bad", source: .environment(SearchClient.mastodonTokenVariable))
        let client = try SearchClient(query: try SearchQuery("words"), token: token,
                                      options: try Self.options(.mastodon, base: server.baseURL, count: 5))
        defer { client.shutdown() }
        let outcome = await client.run()
        let message = outcome.stop.description
        #expect(message.contains("Mastodon refused the search (HTTP 401: The access token is invalid)"))
        #expect(message.contains(SearchClient.mastodonTokenVariable) && !message.contains("bad"))
    }

    @Test func blueskyPagesByCursorAndAHandleBecomesFrom() async throws {
        let server = try LoopbackHTTPServer { request in
            guard request.path == "/xrpc/app.bsky.feed.searchPosts" else { return .respond(status: 404) }
            let cursor = Self.parameters(request)["cursor"]
            let post = #"{"uri": "at://did:plc:a/app.bsky.feed.post/x", "cid": "c", "author": {"did": "did:plc:a", "handle": "a"}, "record": {"text": "t"}}"#
            let body = cursor == nil
                ? #"{"posts": [\#(post), \#(post)], "cursor": "next-1"}"#
                : #"{"posts": [\#(post)]}"#
            return .respond(status: 200, headers: [("RateLimit-Remaining", "100")], body: Array(body.utf8))
        }
        let client = try SearchClient(query: try SearchQuery("@ana.bsky.social"), token: nil,
                                      options: try Self.options(.bluesky, base: server.baseURL, count: 50))
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .endOfResults && outcome.tweets == 3)
        let asked = server.requests.map(Self.parameters)
        #expect(asked.map { $0["q"] } == ["from:ana.bsky.social", "from:ana.bsky.social"])
        #expect(asked.map { $0["cursor"] } == [nil, "next-1"])
    }

    @Test func aBluesky429IsWaitedOutByItsRateLimitReset() async throws {
        let clock = VirtualClock()
        let served = Mutex(0)
        let server = try LoopbackHTTPServer { _ in
            let n = served.withLock { $0 += 1; return $0 }
            if n == 1 {
                let reset = Int(clock.now().timeIntervalSince1970) + 20
                return .respond(status: 429, headers: [("RateLimit-Remaining", "0"), ("RateLimit-Reset", String(reset))],
                                body: Array(#"{"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"}"#.utf8))
            }
            let post = #"{"uri": "at://did:plc:a/app.bsky.feed.post/1", "cid": "c", "author": {"did": "did:plc:a"}, "record": {"text": "t"}}"#
            return .respond(status: 200, body: Array(#"{"posts": [\#(post)]}"#.utf8))
        }
        let client = try SearchClient(query: try SearchQuery("#night"), token: nil,
                                      options: try Self.options(.bluesky, base: server.baseURL, count: 1, clock: clock))
        defer { client.shutdown() }
        let started = clock.now()
        let outcome = await client.run()
        #expect(outcome.stop == .countReached)
        #expect(clock.now().timeIntervalSince(started) >= 20, "waited (on the virtual clock) for the reset")
    }

    @Test func rateLimitResetsAreReadInEveryForm() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RateLimitStatus(headers: ["x-rate-limit-reset": "1800000060"], names: .x, now: now).reset == now.addingTimeInterval(60))
        #expect(RateLimitStatus(headers: ["ratelimit-reset": "1800000030", "ratelimit-remaining": "0"], names: .bluesky, now: now)
            .exhaustedUntil == now.addingTimeInterval(30))
        let iso = RateLimitStatus(headers: ["x-ratelimit-reset": "2027-01-15T08:00:45.123Z", "x-ratelimit-remaining": "0"], names: .mastodon, now: now)
        #expect(iso.reset == Date(timeIntervalSince1970: 1_800_000_045))
        // Mastodon writes six fractional digits.
        #expect(RateLimitStatus(headers: ["x-ratelimit-reset": "2027-01-15T08:00:45.082327Z"], names: .mastodon, now: now).reset
            == Date(timeIntervalSince1970: 1_800_000_045))
        #expect(iso.exhaustedUntil != nil)
        // Each service's own names: X's headers say nothing to a Mastodon search.
        #expect(RateLimitStatus(headers: ["x-rate-limit-reset": "1800000060"], names: .mastodon, now: now).reset == nil)
    }
}

/// Bluesky with an app password: sign in, search with the access token, refresh it
/// when the server says it expired, and never show a secret.
@Suite struct BlueskySignInTests {
    /// What the stand-in was asked, in order.
    final class RequestLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    static func server(log: RequestLog) throws -> LoopbackHTTPServer {
        let access = Mutex("access-1")
        return try LoopbackHTTPServer { request in
            let auth = request.headers["authorization"] ?? "-"
            log.lines.withLock { $0.append("\(request.method) \(request.path) \(auth)") }
            switch request.path {
            case "/xrpc/com.atproto.server.createSession":
                guard request.method == "POST" else { return .respond(status: 405) }
                return .respond(status: 200, body: Array(#"{"did": "did:plc:me", "handle": "me.example", "accessJwt": "access-1", "refreshJwt": "refresh-1"}"#.utf8))
            case "/xrpc/com.atproto.server.refreshSession":
                guard auth == "Bearer refresh-1" else { return .respond(status: 401) }
                access.withLock { $0 = "access-2" }
                return .respond(status: 200, body: Array(#"{"accessJwt": "access-2", "refreshJwt": "refresh-2"}"#.utf8))
            case "/xrpc/app.bsky.feed.searchPosts":
                let current = access.withLock { $0 }
                if auth == "Bearer access-1", current == "access-1" {
                    // The first token has expired by the time the search asks.
                    return .respond(status: 400, body: Array(#"{"error": "ExpiredToken", "message": "Token has expired"}"#.utf8))
                }
                guard auth == "Bearer \(current)" else { return .respond(status: 401, body: Array(#"{"error": "AuthenticationRequired"}"#.utf8)) }
                return .respond(status: 200, body: Array(#"{"posts": [{"uri": "at://did:plc:a/app.bsky.feed.post/1", "cid": "c", "author": {"did": "did:plc:a", "handle": "a"}, "record": {"text": "t"}}]}"#.utf8))
            default:
                return .respond(status: 404)
            }
        }
    }

    @Test func signsInRefreshesAnExpiredTokenAndSearches() async throws {
        let log = RequestLog()
        let server = try Self.server(log: log)
        var options = try OtherNetworksSearchTests.options(.bluesky, base: server.baseURL, count: 1)
        options.blueskyLogin = try BlueskyLogin(handle: "me.example", password: "app-pass-word")
        let client = try SearchClient(query: try SearchQuery("#night"), token: nil, options: options)
        defer { client.shutdown() }
        let outcome = await client.run()
        #expect(outcome.stop == .countReached && outcome.tweets == 1)
        #expect(log.lines.withLock { $0 } == [
            "POST /xrpc/com.atproto.server.createSession -",
            "GET /xrpc/app.bsky.feed.searchPosts Bearer access-1",
            "POST /xrpc/com.atproto.server.refreshSession Bearer refresh-1",
            "GET /xrpc/app.bsky.feed.searchPosts Bearer access-2",
        ])
        #expect(!String(describing: options.blueskyLogin!).contains("app-pass-word"))
    }

    @Test func aRefusedSignInNamesTheVariableNotThePassword() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 401, body: Array(#"{"error": "AuthenticationRequired", "message": "Invalid identifier or password"}"#.utf8))
        }
        var options = try OtherNetworksSearchTests.options(.bluesky, base: server.baseURL, count: 1)
        options.blueskyLogin = try BlueskyLogin(handle: "me.example", password: "app-pass-word")
        let client = try SearchClient(query: try SearchQuery("#night"), token: nil, options: options)
        defer { client.shutdown() }
        let message = await client.run().stop.description
        #expect(message.contains("HTTP 401") && message.contains(BlueskyLogin.passwordVariable))
        #expect(!message.contains("app-pass-word"))
        #expect(throws: LiveSearchError.self) { try BlueskyLogin.fromEnvironment([BlueskyLogin.handleVariable: "me"]) }
        #expect(try BlueskyLogin.fromEnvironment([:]) == nil)
    }
}
