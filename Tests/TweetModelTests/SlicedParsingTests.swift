import Foundation
import Testing
@testable import TweetModel

/// A large document parsed in slices on every core reads exactly as parsed whole: the
/// same pages, tweets in order, included tweets once each, and problems at their index
/// in the whole array. Where the slices cannot be put back exactly, it is parsed whole.
@Suite struct SlicedParsingTests {
    static func v1Statuses(_ n: Int) -> [String] {
        let quoted = Fixtures.v1Tweet(id: "900", text: "the quoted one", user: Fixtures.v1User(id: "77", screenName: "quo"))
        return (0..<n).map { i -> String in
            switch i % 9 {
            case 3: return Fixtures.v1Tweet(id: "\(1000 + i)", text: "quoting \(i)", extra: #", "is_quote_status": true, "quoted_status_id_str": "900", "quoted_status": \#(quoted)"#)
            case 5: return Fixtures.v1Tweet(id: "\(1000 + i)", text: "RT \(i)", extra: #", "retweeted_status": \#(Fixtures.v1Tweet(id: "\(5000 + i)", text: "original \(i)"))"#)
            case 7: return i % 2 == 0 ? "42" : #"{"id_str": "\#(1000 + i)", "full_text": 7}"#
            default:
                let photo = Fixtures.v1Photo(id: "\(7000 + i)", name: "p\(i)")
                return Fixtures.v1Tweet(id: "\(1000 + i)", text: "photo \(i) https://t.co/pic \u{1F600} \"q\" \\ [x]",
                                        extra: #", "extended_entities": {"media": [\#(photo)]}"#)
            }
        }
    }

    static func expectSameAsWhole(_ json: String, slices: [Int] = [2, 3, 4, 7], split: Bool) throws {
        let data = Data(json.utf8)
        let whole = ResultsParser.parseWhole(data, source: "big.json")
        for n in slices {
            let sliced = ResultsParser.parseInSlices(data, source: "big.json", slices: n)
            #expect((sliced != nil) == split, "slices: \(n)")
            if let sliced { #expect(sliced == whole, "slices: \(n)") }
        }
    }

    @Test func aV1SearchPageWithQuotesRetweetsAndBadElements() throws {
        let json = Fixtures.v1SearchPage(Self.v1Statuses(60))
        try Self.expectSameAsWhole(json, split: true)
        let whole = ResultsParser.parseWhole(Data(json.utf8), source: "big.json")
        // The case is worth testing: problems deep in the array, one quoted tweet shared by many.
        #expect(whole.allProblems.map(\.location).contains("statuses[52]"))
        #expect(whole.pages[0].includedTweets.filter { $0.id == "900" }.count == 1)
    }

    @Test func aTimelineIsATopLevelArray() throws {
        try Self.expectSameAsWhole("[" + Self.v1Statuses(40).joined(separator: ",\n ") + "]\n", split: true)
    }

    @Test func aV2PageSlicesItsDataWithTheIncludesInEverySlice() throws {
        let data = (0..<60).map { i in
            Fixtures.v2Tweet(id: "\(i + 1)", text: "post \(i) #ucd", authorID: i % 2 == 0 ? "100" : "101",
                             extra: i % 5 == 0 ? #", "referenced_tweets": [{"type": "quoted", "id": "80"}], "attachments": {"media_keys": ["3_11", "3_404"]}"# : "")
        }
        let json = #"{"data": [\#(data.joined(separator: ","))], "includes": {"media": [{"media_key": "3_11", "type": "photo", "url": "https://pbs.twimg.com/media/A.jpg"}], "users": [\#(Fixtures.v2User()), \#(Fixtures.v2User(id: "101", username: "erin"))], "tweets": [\#(Fixtures.v2Tweet(id: "80", text: "q", authorID: "100"))]}, "meta": {"result_count": 60, "next_token": "abc"}}"#
        try Self.expectSameAsWhole(json, split: true)
    }

    @Test func aV2PageWithAPIErrorsReportsThemOnce() throws {
        // Mostly includes: not split.
        try Self.expectSameAsWhole(V2SearchTests.page, split: false)
        // Every slice reports the page's `errors`; the merged page has them once, in place.
        let posts = (0..<80).map { i in
            Fixtures.v2Tweet(id: "\(i + 1)", text: "post \(i)", extra: i % 9 == 4 ? #", "attachments": {"media_keys": ["3_404"]}"# : "")
        }
        let padded = #"{"data": [\#(posts.joined(separator: ","))], "includes": {"users": [\#(Fixtures.v2User())]}, "errors": [{"title": "Forbidden", "detail": "gone", "type": "https://api.twitter.com/2/problems/resource-not-found"}, {"title": "Not Found Error", "detail": "x", "type": "https://api.twitter.com/2/problems/resource-not-found"}], "meta": {"result_count": 80}}"#
        try Self.expectSameAsWhole(padded, split: true)
        let whole = ResultsParser.parseWhole(Data(padded.utf8), source: "big.json")
        #expect(whole.allProblems.count > 2)
    }

    @Test func mastodonStatusesWithReblogs() throws {
        let statuses = (0..<40).map { i in
            MastodonParsingTests.status(id: "\(100 + i)", content: #""<p>post \#(i)</p>""#,
                                        extra: i % 4 == 0 ? #", "reblog": \#(MastodonParsingTests.status(id: "99", content: #""<p>o</p>""#))"# : "")
        }
        try Self.expectSameAsWhole("[" + statuses.joined(separator: ",") + "]", split: true)
    }

    @Test func anArrayWhoseFirstElementsDecideTheShapeIsParsedWhole() throws {
        // The whole array is read as Mastodon statuses (its first element is one); a slice
        // starting among the v1 tweets would be read as a timeline. The shapes differ, so
        // the slices are not used.
        let mixed = [MastodonParsingTests.status(id: "1", content: #""<p>a</p>""#)] + Self.v1Statuses(30)
        try Self.expectSameAsWhole("[" + mixed.joined(separator: ",") + "]", slices: [2, 4], split: false)
    }

    @Test func brokenOrSmallArraysAreNotSplit() throws {
        let statuses = Self.v1Statuses(30)
        let data = Data((#"{"statuses": ["# + statuses.joined(separator: ",") + "]").utf8)  // no closing brace
        #expect(ResultsParser.parseInSlices(data, source: "x", slices: 4) == nil)
        // Mostly something else than the array.
        let padding = String(repeating: "x", count: 100_000)
        let lopsided = Data((#"{"statuses": ["# + statuses.prefix(3).joined(separator: ",") + #"], "note": "\#(padding)"}"#).utf8)
        #expect(ResultsParser.parseInSlices(lopsided, source: "x", slices: 4) == nil)
        #expect(ResultsParser.parseInSlices(Data("[]".utf8), source: "x", slices: 4) == nil)
        // Escaped quotes and brackets inside strings do not confuse the scan.
        try Self.expectSameAsWhole(#"{"statuses": [\#(statuses.joined(separator: ","))], "search_metadata": {"query": "a\"]}[{"}}"#, split: true)
    }

    @Test func aLargerArrayBesideTheResultsIsNotCut() throws {
        // Cutting `x` would give every slice the one tweet.
        let filler = Array(repeating: "0", count: 5_000).joined(separator: ",")
        let json = #"{"statuses": [\#(Self.v1Statuses(1)[0])], "x": [\#(filler)], "search_metadata": {"query": "q"}}"#
        try Self.expectSameAsWhole(json, split: false)
        // Nor is a document that names its array twice.
        let twice = #"{"statuses": [\#(Self.v1Statuses(20).joined(separator: ","))], "statuses": [\#(Self.v1Statuses(1)[0])]}"#
        #expect(ResultsParser.parseInSlices(Data(twice.utf8), source: "x", slices: 2) == nil)
        // A v2 page whose errors outweigh its data.
        let errors = (0..<300).map { _ in #"{"title": "Forbidden", "detail": "gone", "type": "https://api.twitter.com/2/problems/resource-not-found"}"# }
        let v2 = #"{"data": [\#(Fixtures.v2Tweet(id: "1", text: "a"))], "errors": [\#(errors.joined(separator: ","))]}"#
        try Self.expectSameAsWhole(v2, split: false)
    }

    @Test func theSplitterFindsEveryElement() {
        let json = #" { "a": 1, "b" : [ {"x": "]\"["}, [1, [2]], "s,t", 3.5e2 , null ] , "c": {"d": []} } "#
        let found = Data(json.utf8).withUnsafeBytes { ArraySplit.find(in: $0, minimumShare: 0.3) }
        let bytes = Array(json.utf8)
        #expect(found?.key == "b")
        #expect(found?.elements.map { String(decoding: bytes[$0], as: UTF8.self) } == [#"{"x": "]\"["}"#, "[1, [2]]", #""s,t""#, "3.5e2", "null"])
    }
}
