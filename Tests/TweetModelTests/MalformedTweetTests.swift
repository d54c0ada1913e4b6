import Foundation
import Testing
@testable import TweetModel

@Suite("Malformed tweets cost only themselves")
struct MalformedTweetTests {
    @Test func badV1TweetsAreSkippedWithTheirPosition() throws {
        let statuses = [
            Fixtures.v1Tweet(id: "1", text: "good"),
            #"{"full_text": "no id at all", "user": \#(Fixtures.v1User())}"#,
            #"{"id_str": "3", "full_text": 12345, "user": \#(Fixtures.v1User())}"#,
            #"{"id_str": "4", "full_text": "bad user", "user": {"id_str": "1", "screen_name": ["x"]}}"#,
            #""not even an object""#,
            Fixtures.v1Tweet(id: "6", text: "also good"),
            #"{"id_str": "7", "user": \#(Fixtures.v1User())}"#,
        ]
        let results = Fixtures.parse(Fixtures.v1SearchPage(statuses), source: "page.json")
        let page = try #require(results.pages.first)
        #expect(page.tweets.map(\.id) == ["1", "6"])
        #expect(page.problems.map(\.location) == ["statuses[1]", "statuses[2]", "statuses[3]", "statuses[4]", "statuses[6]"])
        let byLocation = Dictionary(uniqueKeysWithValues: page.problems.map { ($0.location, $0.message) })
        #expect(byLocation["statuses[1]"]?.contains("id_str") == true)
        #expect(byLocation["statuses[2]"]?.contains("\"full_text\" has the wrong type") == true)
        #expect(byLocation["statuses[3]"]?.contains("user.screen_name") == true)
        #expect(byLocation["statuses[6]"]?.contains("text") == true)
        #expect(page.problems.allSatisfy { $0.source == "page.json" && !$0.message.contains("\n") })
    }

    @Test func badV2TweetsAreSkippedWithTheirPosition() throws {
        let json = #"""
        {"data": [{"id": "1", "text": "ok"}, {"text": "no id"}, {"id": 3, "text": "numeric id"}, {"id": "4", "text": "ok",
                   "entities": {"hashtags": [{"start": "zero", "end": 2, "tag": "x"}]}}],
         "includes": {"users": [{"username": "no_id"}, {"id": "9", "username": "fine"}]}}
        """#
        let results = Fixtures.parse(json)
        // A bad entity is dropped; the tweet around it survives.
        #expect(results.tweets.map(\.id) == ["1", "4"])
        #expect(results.tweets.last?.entities.hashtags.isEmpty == true)
        #expect(results.allProblems.map(\.location) == ["includes.users[0]", "data[1]", "data[2]"])
        #expect(results.allProblems[1].message == "missing field \"id\"")
        #expect(results.allProblems[2].message.hasPrefix("field \"id\" has the wrong type"))
    }

    @Test func brokenEmbeddedOriginalIsReportedButTheRetweetKept() throws {
        let retweet = Fixtures.v1Tweet(id: "1", text: "RT @x: hi", extra: #", "retweeted_status": {"full_text": "no id"}"#)
        let page = try #require(Fixtures.parse(Fixtures.v1SearchPage([retweet])).pages.first)
        #expect(page.tweets.map(\.id) == ["1"])
        #expect(page.includedTweets.isEmpty)
        #expect(page.tweets[0].references.isEmpty)
        #expect(page.problems.map(\.location) == ["statuses[0].retweeted_status"])
    }

    @Test func hostileNumbersDoNotTrap() throws {
        let entities = #"""
        {"hashtags": [{"text": "a", "indices": [9223372036854775807, -9223372036854775808]},
                      {"text": "b", "indices": [0, 99999999999999999999]},
                      {"text": "c", "indices": [1.5, 2]}, {"text": "d", "indices": [0]}, {"text": "e", "indices": [0, 1, 2]},
                      {"text": "f", "indices": [-1, 1]}, {"text": "g", "indices": [3, 1]}, {"text": "ok", "indices": [0, 3]}]}
        """#
        let media = #", "extended_entities": {"media": [{"id_str": "1", "type": "photo", "media_url_https": "https://pbs.twimg.com/media/X.jpg", "sizes": {"large": {"w": -5, "h": 1e400}}}]}"#
        let tweet = try #require(Fixtures.parse(Fixtures.v1Tweet(id: "1", text: "#ok tweet", entities: entities, extra: media)).tweets.first)
        #expect(tweet.entities.hashtags.map(\.tag) == ["ok"])
        // The media object with an unreadable size is dropped, not the tweet.
        #expect(tweet.media.isEmpty)
    }
}
