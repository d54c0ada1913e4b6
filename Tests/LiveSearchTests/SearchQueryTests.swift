import Testing
@testable import LiveSearch

@Suite struct SearchQueryTests {
    /// The query X is asked for `text`.
    func x(_ text: String, _ version: SearchAPI = .v2, retweets: Bool = false) throws -> String {
        let token = try BearerToken("t", source: .environment("T"))
        return try XSearch(version: version, query: SearchQuery(text, includeRetweets: retweets), token: token, baseURL: nil).apiQuery
    }

    @Test func aHashtagIsSearchedAsItIs() throws {
        let q = try SearchQuery("#ucd")
        #expect(q.terms == "#ucd")
        #expect(try x("#ucd") == "#ucd -is:retweet")
        #expect(try x("#ucd", .v1_1) == "#ucd -filter:retweets")
    }

    @Test func aUserIsSearchedAsTheirTweets() throws {
        #expect(try SearchQuery("@NASA_Hubble").terms == "from:NASA_Hubble")
        #expect(try x(" @dana ") == "from:dana -is:retweet")
        // Not a lone handle: an API query, verbatim.
        #expect(try SearchQuery("@dana cats").terms == "@dana cats")
        #expect(try SearchQuery("@").terms == "@")
        #expect(try SearchQuery("@this_name_is_far_too_long").terms == "@this_name_is_far_too_long")
    }

    @Test func anyOtherQueryIsVerbatim() throws {
        #expect(try x("(cats OR dogs) has:images lang:en") == "(cats OR dogs) has:images lang:en -is:retweet")
    }

    @Test func retweetsAreKeptWhenAskedOrWhenTheQuerySaysSo() throws {
        #expect(try x("#ucd", retweets: true) == "#ucd")
        #expect(try x("#ucd", .v1_1, retweets: true) == "#ucd")
        #expect(try x("#ucd is:retweet") == "#ucd is:retweet")
        #expect(try x("#ucd -filter:retweets", .v1_1) == "#ucd -filter:retweets")
    }

    @Test func refusesEmptyAndControlCharacters() {
        #expect(throws: LiveSearchError.emptyQuery) { try SearchQuery("   \n") }
        #expect(throws: LiveSearchError.queryHasControlCharacters) { try SearchQuery("#ucd\u{7}x") }
        #expect(throws: LiveSearchError.queryTooLong(2000)) { try SearchQuery(String(repeating: "a", count: 2000)) }
    }

    @Test func slugsAreShortAndFileNameSafe() throws {
        #expect(try SearchQuery("#ucd").slug == "ucd")
        #expect(try SearchQuery("@nasa").slug == "from-nasa")
        #expect(try SearchQuery("../../etc/passwd").slug == "etc-passwd")
        #expect(try SearchQuery("#日本").slug == "query")
        #expect(try SearchQuery(String(repeating: "ab ", count: 50)).slug.count <= 40)
    }

    @Test func urlsEncodeEverythingButUnreservedCharacters() throws {
        let token = try BearerToken("t", source: .environment("T"))
        let search = try XSearch(version: .v2, query: SearchQuery("#ucd a+b&c=d"), token: token, baseURL: "http://127.0.0.1:9/proxy/")
        #expect(search.pageURL(pageSize: 10, cursor: nil, since: nil).hasPrefix(
            "http://127.0.0.1:9/proxy/2/tweets/search/recent?query=%23ucd%20a%2Bb%26c%3Dd%20-is%3Aretweet&max_results=10&"))
        #expect(throws: LiveSearchError.invalidBaseURL("ftp://x")) { try ServiceURL("ftp://x") }
        #expect(throws: LiveSearchError.invalidBaseURL("http://x/?a=b")) { try ServiceURL("http://x/?a=b") }
        #expect(try XSearch(version: .v1_1, query: SearchQuery("a"), token: token, baseURL: nil).base.base == "https://api.twitter.com")
        #expect(try XSearch(version: .v2, query: SearchQuery("a"), token: token, baseURL: nil).base.base == "https://api.x.com")
        #expect(throws: LiveSearchError.missingToken) { try XSearch(version: .v2, query: SearchQuery("a"), token: nil, baseURL: nil) }
    }

    @Test func apiNamesAsTyped() {
        #expect(SearchAPI(argument: "v1.1") == .v1_1)
        #expect(SearchAPI(argument: "1.1") == .v1_1)
        #expect(SearchAPI(argument: "V2") == .v2)
        #expect(SearchAPI(argument: "v3") == nil)
    }
}
