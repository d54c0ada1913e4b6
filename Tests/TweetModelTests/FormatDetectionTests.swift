import Foundation
import Testing
@testable import TweetModel

@Suite("Detecting what a document is")
struct FormatDetectionTests {
    @Test func premiumSearchPage() throws {
        let json = #"""
        {"results": [\#(Fixtures.v1Tweet(id: "1", text: "a")), \#(Fixtures.v1Tweet(id: "2", text: "b"))],
         "next": "eyJtYXhJZCI6MTAwfQ==", "requestParameters": {"maxResults": 100, "fromDate": "201801010000", "query": "#ucd lang:en"}}
        """#
        let page = try #require(Fixtures.parse(json).pages.first)
        #expect(page.format == .premiumSearch)
        #expect(page.tweets.map(\.id) == ["1", "2"])
        #expect(page.nextToken == "eyJtYXhJZCI6MTAwfQ==")
        #expect(page.query == "#ucd lang:en")
    }

    @Test func timelineArray() throws {
        let json = "[\(Fixtures.v1Tweet(id: "1", text: "a")), \(Fixtures.v1Tweet(id: "2", text: "b"))]"
        let results = Fixtures.parse(json)
        #expect(results.pages.map(\.format) == [.v1Timeline])
        #expect(results.tweets.map(\.id) == ["1", "2"])
        #expect(results.pages.first?.query == nil)
    }

    @Test func singleV1Tweet() throws {
        let results = Fixtures.parse(Fixtures.v1Tweet(id: "42", text: "just one"))
        #expect(results.pages.map(\.format) == [.v1Tweet])
        #expect(results.tweets.map(\.text) == ["just one"])
    }

    @Test func singleV2TweetWithIncludes() throws {
        let json = #"""
        {"data": \#(Fixtures.v2Tweet(id: "7", text: "pic", extra: #", "attachments": {"media_keys": ["3_1"]}"#)),
         "includes": {"users": [\#(Fixtures.v2User())], "media": [{"media_key": "3_1", "type": "photo", "url": "https://pbs.twimg.com/media/FzX1aB2cD3eF4gH.jpg"}]}}
        """#
        let results = Fixtures.parse(json)
        #expect(results.pages.map(\.format) == [.v2Tweet])
        let tweet = try #require(results.tweets.first)
        #expect(tweet.id == "7")
        #expect(tweet.author.screenName == "bob")
        #expect(tweet.media.map(\.id) == ["3_1"])
    }

    @Test func bareFlattenedV2Tweet() throws {
        // twarc's flattened form inlines author and media into the tweet.
        let json = Fixtures.v2Tweet(id: "8", text: "flat", extra: #"""
            , "author": \#(Fixtures.v2User(id: "100", username: "bob")),
              "attachments": {"media_keys": ["3_2"], "media": [{"media_key": "3_2", "type": "photo", "url": "https://pbs.twimg.com/media/AbCdEfGhIjKlMnO.jpg"}]}
            """#)
        let results = Fixtures.parse(json)
        #expect(results.pages.map(\.format) == [.v2Tweet])
        let tweet = try #require(results.tweets.first)
        #expect(tweet.author.screenName == "bob")
        #expect(tweet.media.first?.imageURL == "https://pbs.twimg.com/media/AbCdEfGhIjKlMnO?format=jpg&name=orig")
        #expect(results.allProblems.isEmpty)
    }

    @Test func jsonLinesKeepsGoodLinesAndReportsBadOnes() throws {
        let lines = [
            Fixtures.v1SearchPage([Fixtures.v1Tweet(id: "1", text: "a")]),
            "",
            #"{"data": [\#(Fixtures.v2Tweet(id: "2", text: "b"))], "meta": {"result_count": 1}}"#,
            #"{"statuses": [{"id_str": "3", "full_text": "c""#,     // truncated line
            "   ",
            Fixtures.v1Tweet(id: "4", text: "d"),
            #"{"hello": "world"}"#,
            #"{"data": [{"id": "5"}, \#(Fixtures.v2Tweet(id: "6", text: "f"))]}"#,
        ]
        let results = Fixtures.parse(lines.joined(separator: "\r\n") + "\n", source: "crawl.jsonl")
        #expect(results.pages.map(\.format) == [.v1Search, .v2Search, .v1Tweet, .v2Search])
        #expect(results.tweets.map(\.id) == ["1", "2", "4", "6"])
        #expect(results.problems.map(\.location) == ["line 4", "line 7"])
        #expect(results.problems[0].message.hasPrefix("it is not valid JSON"))
        #expect(results.problems[1].message.contains("not a Twitter API response"))
        #expect(results.allProblems.map(\.location) == ["line 4", "line 7", "line 8, data[0]"])
        #expect(results.allProblems.allSatisfy { $0.source == "crawl.jsonl" })
    }

    @Test func jsonLinesWithADamagedFirstLineIsStillJSONLines() {
        let lines = [
            ##"{"statuses": [{"id_str": "#"##,
            Fixtures.v1Tweet(id: "2", text: "b"),
            Fixtures.v1Tweet(id: "3", text: "c"),
        ]
        let results = Fixtures.parse(lines.joined(separator: "\n"))
        #expect(results.tweets.map(\.id) == ["2", "3"])
        #expect(results.problems.map(\.location) == ["line 1"])
    }

    @Test func notJSONReportsTheBytePosition() throws {
        // A missing comma (trailing commas are tolerated by Foundation's parser).
        let json = "{\"statuses\": [\n  {\"id_str\": \"1\" \"full_text\": \"x\"}\n]}"
        let results = Fixtures.parse(json)
        #expect(results.pages.isEmpty)
        let problem = try #require(results.problems.first)
        #expect(results.problems.count == 1)
        #expect(problem.location == "byte 32")
        #expect(problem.message.hasSuffix("at line 2, column 18"))
        #expect(problem.message.hasPrefix("it is not valid JSON"))
    }

    @Test func brokenPrettyPrintedDocumentIsOneProblemNotOnePerLine() throws {
        let pretty = """
        {
          "data": [
            {"id": "1", "text": "a"},
            {"id": "2", "text": "b"}
            {"id": "3", "text": "c"}
          ],
          "meta": {"result_count": 3}
        }
        """
        let results = Fixtures.parse(pretty)
        #expect(results.pages.isEmpty)
        #expect(results.problems.count == 1)
        #expect(results.problems.first?.location.hasPrefix("byte ") == true)
        #expect(results.problems.first?.message.contains("line 5") == true)
    }

    @Test(arguments: ["", "  \n\n ", "\u{FEFF}"])
    func emptyOrBinaryInputIsAProblemNotACrash(_ text: String) {
        let results = Fixtures.parse(text)
        #expect(results.pages.isEmpty)
        #expect(results.problems.count == 1)
    }

    @Test func garbageBytesAreAProblem() {
        let results = ResultsParser.parse(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46]), source: "photo.jpg")
        #expect(results.pages.isEmpty)
        #expect(results.problems.map(\.source) == ["photo.jpg"])
    }

    @Test(arguments: [
        (#"{"foo": 1, "bar": 2}"#, "keys bar, foo"),
        (#"{}"#, "an empty object"),
        (#""just a string""#, "single JSON value"),
        (#"42"#, "single JSON value"),
    ])
    func unknownShapesSayWhatWasFound(_ json: String, _ expected: String) throws {
        let results = Fixtures.parse(json)
        #expect(results.pages.isEmpty)
        let problem = try #require(results.problems.first)
        #expect(problem.location == "document")
        #expect(problem.message.contains(expected))
    }

    @Test func errorResponsesBecomeProblems() {
        let v1 = Fixtures.parse(#"{"errors": [{"code": 88, "message": "Rate limit exceeded"}]}"#)
        #expect(v1.pages.isEmpty)
        #expect(v1.problems.map(\.message) == ["the API reported: Rate limit exceeded"])
        let v2 = Fixtures.parse(#"{"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}"#)
        #expect(v2.problems.map(\.message) == ["the API reported: Unauthorized: Unauthorized"])
    }

    @Test func brokenPageStructureNamesTheField() throws {
        let results = Fixtures.parse(#"{"statuses": {"oops": true}, "search_metadata": {}}"#)
        #expect(results.pages.isEmpty)
        let problem = try #require(results.problems.first)
        #expect(problem.location == "document")
        #expect(problem.message.hasPrefix("broken v1.1 search page"))
        #expect(problem.message.contains("statuses"))
    }
}
