import Foundation
import Testing
import TweetModel
@testable import LiveSearch

/// Each network's service reads its pages with TweetModel's parser and finds the next
/// page in the one before; a page of another shape is malformed, and says why.
@Suite struct SearchServiceTests {
    static let token = try! BearerToken("t", source: .environment("T"))

    static func x(_ version: SearchAPI) throws -> XSearch {
        try XSearch(version: version, query: SearchQuery("#a"), token: token, baseURL: nil)
    }

    /// The page's post count and next cursor, or the reason it is malformed.
    static func read(_ json: String, _ service: some SearchService) -> (posts: Int, next: PageCursor?)? {
        guard case let .success(page) = service.readPage(Array(json.utf8)) else { return nil }
        return (page.tweets.count, service.cursor(after: page))
    }

    static func problem(_ json: String, _ service: some SearchService) -> String? {
        guard case let .failure(problem) = service.readPage(Array(json.utf8)) else { return nil }
        return problem.reason
    }

    @Test func v2CountsPostsAndFollowsTheNextToken() throws {
        let v2 = try Self.x(.v2)
        let page = Self.read(#"{"data":[{"id":"1","text":"a"},{"id":"2","text":"b"}],"meta":{"result_count":2,"next_token":"abc"}}"#, v2)
        #expect(page?.posts == 2 && page?.next == .nextToken("abc"))
        let none = Self.read(#"{"meta":{"result_count":0}}"#, v2)
        #expect(none?.posts == 0 && none?.next == nil)
        #expect(Self.read(#"{"data":[{"id":"1","text":"a"}],"meta":{"next_token":""}}"#, v2)?.next == nil)
    }

    @Test func v1PagesBelowTheLowestIdExactly() throws {
        let v1 = try Self.x(.v1_1)
        let page = #"""
            {"statuses":[{"id_str":"1790000000000000001","full_text":"a","user":{"id_str":"9","screen_name":"a"}},
             {"id_str":"1789999999999999000","full_text":"b","user":{"id_str":"9","screen_name":"a"}},
             {"id":1789999999999999500,"full_text":"c","user":{"id_str":"9","screen_name":"a"}}],
             "search_metadata":{"next_results":"?max_id=1&q=x"}}
            """#
        let read = Self.read(page, v1)
        #expect(read?.posts == 3)
        #expect(read?.next == .maxID(try #require(DecimalID("1789999999999998999"))))
        // No next_results: the end, whatever the ids say.
        #expect(Self.read(#"{"statuses":[{"id_str":"5","full_text":"a","user":{"id_str":"9"}}],"search_metadata":{"count":1}}"#, v1)?.next == nil)
        #expect(Self.read(#"{"statuses":[],"search_metadata":{}}"#, v1)?.posts == 0)
    }

    @Test func mastodonPagesBelowTheLastStatusAsGiven() throws {
        let mastodon = try MastodonSearch(query: SearchQuery("#astro"), token: nil, instance: "https://m.example")
        let statuses = #"[{"id":"01HZZ","account":{"id":"1","acct":"a"},"content":"<p>x</p>","created_at":"2026-01-01T00:00:00Z"},"#
            + #"{"id":"01HZA","account":{"id":"1","acct":"a"},"content":"<p>y</p>","created_at":"2026-01-01T00:00:00Z"}]"#
        let read = Self.read(statuses, mastodon)
        #expect(read?.posts == 2 && read?.next == .olderThan("01HZA"))
        let empty = Self.read("[]", mastodon)
        #expect(empty?.posts == 0 && empty?.next == nil, "an empty timeline is the last page, not a malformed one")
    }

    @Test func blueskyFollowsItsCursorUntilAnEmptyPage() throws {
        let bluesky = try BlueskySearch(query: SearchQuery("#night"), login: nil, baseURL: nil)
        let post = #"{"uri":"at://did:plc:a/app.bsky.feed.post/1","cid":"c","author":{"did":"did:plc:a","handle":"a"},"record":{"text":"t"}}"#
        #expect(Self.read(#"{"posts":[\#(post)],"cursor":"c2"}"#, bluesky)?.next == .nextToken("c2"))
        #expect(Self.read(#"{"posts":[],"cursor":"c3"}"#, bluesky)?.next == nil)
    }

    @Test func malformedPagesSayWhy() throws {
        let v2 = try Self.x(.v2), v1 = try Self.x(.v1_1)
        #expect(Self.problem(#"{"data":[{"id":"1""#, v2)?.contains("JSON") == true)
        // A single tweet, a v2 page asked of v1.1, a Bluesky page asked of X: each names what it found.
        #expect(Self.problem(#"{"data":{"id":"1","text":"a"}}"#, v2)?.contains("v2 tweet") == true)
        #expect(Self.problem(#"{"data":[]}"#, v1)?.contains("v2 search page") == true)
        let bluesky = Self.problem(#"{"posts":[]}"#, v2)
        #expect(bluesky?.contains("Bluesky posts") == true && bluesky?.contains("the X API") == true)
        #expect(Self.problem("", v2) == "the page is empty")
        #expect(Self.problem(#"{"errors":[{"message":"x"}]}"#, v2) != nil, "errors only is no page")
        #expect(Self.problem(#"{"data":"x"}"#, v2) != nil)
    }

    @Test func errorDetailsAreOneShortLine() {
        #expect(APIErrorDetail.read(Array(#"{"title":"Unauthorized","detail":"Unauthorized","status":401}"#.utf8)) == "Unauthorized")
        #expect(APIErrorDetail.read(Array(#"{"errors":[{"code":89,"message":"Invalid or expired token."}]}"#.utf8))
            == "Invalid or expired token. (code 89)")
        let long = APIErrorDetail.read(Array("{\"title\":\"a\\nb\(String(repeating: "x", count: 500))\"}".utf8))
        #expect(long?.contains("\n") == false)
        #expect((long?.count ?? 0) <= 201)
        #expect(APIErrorDetail.read(Array("<html>".utf8)) == nil)
    }

    @Test func rateLimitHeadersAreReadDefensively() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let ok = RateLimitStatus(headers: ["x-rate-limit-remaining": "0", "x-rate-limit-reset": "1700000060"], names: .x, now: now)
        #expect(ok.exhaustedUntil == Date(timeIntervalSince1970: 1_700_000_060))
        let silly = RateLimitStatus(headers: ["x-rate-limit-remaining": "-3", "x-rate-limit-reset": "99999999999999"], names: .x, now: now)
        #expect(silly.remaining == nil)
        #expect(silly.reset == now.addingTimeInterval(86_400))
        let garbage = RateLimitStatus(headers: ["x-rate-limit-reset": "soon", "retry-after": "30"], names: .x, now: now)
        #expect(garbage.reset == now.addingTimeInterval(30))
    }

    @Test func refusalsAreWordedByTheService() throws {
        let v1 = try Self.x(.v1_1)
        #expect(v1.refusal(status: 403, detail: nil) == .forbidden(api: .v1_1, source: Self.token.source, detail: nil))
        #expect(v1.refusal(status: 400, detail: "bad").description.hasPrefix("the X API refused the search (HTTP 400: bad)"))
        let mastodon = try MastodonSearch(query: SearchQuery("#a"), token: nil, instance: "https://m.example")
        #expect(mastodon.refusal(status: 422, detail: nil).description.hasPrefix("Mastodon refused the search (HTTP 422)"))
        #expect(mastodon.refusal(status: 401, detail: nil).description.contains(MastodonSearch.tokenVariable))
        #expect(throws: LiveSearchError.missingInstance) { try MastodonSearch(query: SearchQuery("#a"), token: nil, instance: nil) }
    }

    @Test func credentialsComeFromWhereEachNetworkKeepsThem() throws {
        #expect(throws: LiveSearchError.missingToken) { try SearchAPI.v2.credentials(tokenFile: nil, environment: [:]) }
        #expect(try SearchAPI.v2.credentials(tokenFile: nil, environment: [BearerToken.environmentVariable: "tok"]).token != nil)
        // Mastodon's is optional, and X's variable is not Mastodon's.
        #expect(try SearchAPI.mastodon.credentials(tokenFile: nil, environment: [BearerToken.environmentVariable: "tok"]).token == nil)
        #expect(try SearchAPI.mastodon.credentials(tokenFile: nil, environment: [MastodonSearch.tokenVariable: "m"]).token != nil)
        let bluesky = try SearchAPI.bluesky.credentials(
            tokenFile: nil, environment: [BlueskyLogin.handleVariable: "me", BlueskyLogin.passwordVariable: "pw"])
        #expect(bluesky.blueskyLogin?.handle == "me" && bluesky.token == nil)
        #expect(throws: LiveSearchError.self) { try SearchAPI.bluesky.credentials(tokenFile: "/t", environment: [:]) }
    }
}
