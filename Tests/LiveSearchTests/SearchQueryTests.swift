import Testing
@testable import LiveSearch

@Suite struct SearchQueryTests {
    @Test func aHashtagIsSearchedAsItIs() throws {
        let q = try SearchQuery("#ucd")
        #expect(q.terms == "#ucd")
        #expect(q.apiQuery(for: .v2) == "#ucd -is:retweet")
        #expect(q.apiQuery(for: .v1_1) == "#ucd -filter:retweets")
    }

    @Test func aUserIsSearchedAsTheirTweets() throws {
        #expect(try SearchQuery("@NASA_Hubble").terms == "from:NASA_Hubble")
        #expect(try SearchQuery(" @dana ").apiQuery(for: .v2) == "from:dana -is:retweet")
        // Not a lone handle: an API query, verbatim.
        #expect(try SearchQuery("@dana cats").terms == "@dana cats")
        #expect(try SearchQuery("@").terms == "@")
        #expect(try SearchQuery("@this_name_is_far_too_long").terms == "@this_name_is_far_too_long")
    }

    @Test func anyOtherQueryIsVerbatim() throws {
        let q = try SearchQuery("(cats OR dogs) has:images lang:en")
        #expect(q.apiQuery(for: .v2) == "(cats OR dogs) has:images lang:en -is:retweet")
    }

    @Test func retweetsAreKeptWhenAskedOrWhenTheQuerySaysSo() throws {
        #expect(try SearchQuery("#ucd", includeRetweets: true).apiQuery(for: .v2) == "#ucd")
        #expect(try SearchQuery("#ucd", includeRetweets: true).apiQuery(for: .v1_1) == "#ucd")
        #expect(try SearchQuery("#ucd is:retweet").apiQuery(for: .v2) == "#ucd is:retweet")
        #expect(try SearchQuery("#ucd -filter:retweets").apiQuery(for: .v1_1) == "#ucd -filter:retweets")
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
        let endpoint = try SearchEndpoint(api: .v2, baseURL: "http://127.0.0.1:9/proxy/")
        let url = endpoint.url(query: "#ucd -is:retweet a+b&c=d", pageSize: 10, cursor: nil)
        #expect(url.hasPrefix("http://127.0.0.1:9/proxy/2/tweets/search/recent?query=%23ucd%20-is%3Aretweet%20a%2Bb%26c%3Dd&max_results=10&"))
        #expect(throws: LiveSearchError.invalidBaseURL("ftp://x")) { try SearchEndpoint(api: .v2, baseURL: "ftp://x") }
        #expect(throws: LiveSearchError.invalidBaseURL("http://x/?a=b")) { try SearchEndpoint(api: .v2, baseURL: "http://x/?a=b") }
        #expect(try SearchEndpoint(api: .v1_1, baseURL: nil).base == "https://api.twitter.com")
        #expect(try SearchEndpoint(api: .v2, baseURL: nil).base == "https://api.x.com")
    }

    @Test func apiNamesAsTyped() {
        #expect(SearchAPI(argument: "v1.1") == .v1_1)
        #expect(SearchAPI(argument: "1.1") == .v1_1)
        #expect(SearchAPI(argument: "V2") == .v2)
        #expect(SearchAPI(argument: "v3") == nil)
    }
}
