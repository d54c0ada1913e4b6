import Foundation
import Testing
import TestSupport
@testable import LiveSearch

/// Paging against the fake API in both formats: the requests made, the pages saved,
/// `--count` honoured, and a clean stop at the end of results.
@Suite struct SearchClientPagingTests {
    @Test func v2PagesWithNextTokenUntilTheCountIsReached() async throws {
        let fake = try FakeSearchAPI()
        let cache = try temporaryDirectory()
        let outcome = try await search("#ucd", fake: fake, count: 250, cache: cache)

        #expect(outcome.stop == .countReached)
        #expect(outcome.tweets == 250)
        #expect(outcome.pages.map(\.tweets) == [100, 100, 50])
        #expect(outcome.requests == 3)

        let requests = fake.apiRequests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.path == FakeSearchAPI.v2Path })
        #expect(requests.allSatisfy { $0.headers["authorization"] == "Bearer \(fake.configuration.token)" })
        let params = requests.parameters
        #expect(params.map { $0["query"] } == Array(repeating: "#ucd -is:retweet", count: 3))
        #expect(params.map { $0["max_results"] } == ["100", "100", "50"])
        #expect(params[0]["next_token"] == nil)
        #expect(params[1]["next_token"] != nil)
        #expect(params[2]["next_token"] != params[1]["next_token"])
        #expect(params[0]["expansions"] == "attachments.media_keys,author_id,referenced_tweets.id,referenced_tweets.id.author_id")
        #expect(params[0]["tweet.fields"] == "created_at,entities,attachments,author_id,lang,referenced_tweets,note_tweet,possibly_sensitive")
        #expect(params[0]["media.fields"] == "url,preview_image_url,width,height,variants,alt_text,type")
        #expect(params[0]["user.fields"] == "username,name,profile_image_url")

        // Saved as served, under <cache>/results, named by time, API, query and page.
        for page in outcome.pages {
            #expect(page.file.deletingLastPathComponent().path == cache.appendingPathComponent("results").path)
            #expect(page.file.lastPathComponent.hasSuffix("-v2-ucd-p\(page.number).json"))
            #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: page.file)) is [String: Any])
            #expect(page.problem == nil)
        }
        let firstPage = try JSONSerialization.jsonObject(with: Data(contentsOf: outcome.pages[0].file)) as? [String: Any]
        #expect((firstPage?["data"] as? [Any])?.count == 100)
    }

    @Test func v2StopsCleanlyAtTheEndOfResults() async throws {
        var config = FakeSearchAPI.Configuration()
        config.totalTweets = 130
        let fake = try FakeSearchAPI(config)
        let outcome = try await search("#ucd", fake: fake, count: 1000, cache: try temporaryDirectory())
        #expect(outcome.stop == .endOfResults)
        #expect(outcome.pages.map(\.tweets) == [100, 30])
        #expect(fake.apiRequests.count == 2)
    }

    @Test func v2AsksForAtLeastTheMinimumPageSize() async throws {
        let fake = try FakeSearchAPI()
        let outcome = try await search("#ucd", fake: fake, count: 3, cache: try temporaryDirectory())
        #expect(fake.apiRequests.parameters.map { $0["max_results"] } == ["10"])
        #expect(outcome.stop == .countReached)
        #expect(outcome.tweets == 10)
    }

    @Test func v1PagesWithMaxIdBelowTheLowestIdSeen() async throws {
        var config = FakeSearchAPI.Configuration()
        config.totalTweets = 230
        let fake = try FakeSearchAPI(config)
        let outcome = try await search("@lab1", api: .v1_1, fake: fake, count: 1000, cache: try temporaryDirectory())

        #expect(outcome.stop == .endOfResults)
        #expect(outcome.pages.map(\.tweets) == [100, 100, 30])
        let params = fake.apiRequests.parameters
        #expect(fake.apiRequests.allSatisfy { $0.path == FakeSearchAPI.v1Path })
        #expect(params.map { $0["q"] } == Array(repeating: "from:lab1 -filter:retweets", count: 3))
        #expect(params.allSatisfy { $0["tweet_mode"] == "extended" && $0["include_entities"] == "true" && $0["count"] == "100" })
        // max_id is the lowest id of the previous page minus one, exactly (ids are past 2^53).
        let ids = fake.tweetIDs
        #expect(params[0]["max_id"] == nil)
        #expect(params[1]["max_id"] == String(UInt64(ids[99])! - 1))
        #expect(params[2]["max_id"] == String(UInt64(ids[199])! - 1))
        #expect(outcome.pages.allSatisfy { $0.file.lastPathComponent.contains("-v1.1-from-lab1-p") })
    }

    @Test func v1HonoursTheCountPerPage() async throws {
        let fake = try FakeSearchAPI()
        let outcome = try await search("#ucd", api: .v1_1, fake: fake, count: 150, cache: try temporaryDirectory(), retweets: true)
        #expect(outcome.stop == .countReached)
        #expect(outcome.tweets == 150)
        let params = fake.apiRequests.parameters
        #expect(params.map { $0["count"] } == ["100", "50"])
        #expect(params.map { $0["q"] } == ["#ucd", "#ucd"])
    }

    @Test(arguments: [SearchAPI.v2, .v1_1])
    func anEmptyResultIsOnePageAndNoError(api: SearchAPI) async throws {
        var config = FakeSearchAPI.Configuration()
        config.totalTweets = 0
        let fake = try FakeSearchAPI(config)
        let outcome = try await search("#nothing", api: api, fake: fake, count: 100, cache: try temporaryDirectory())
        #expect(outcome.stop == .endOfResults)
        #expect(outcome.tweets == 0)
        #expect(outcome.pages.count == 1)
        #expect(outcome.pages.first?.problem == nil)
        #expect(FileManager.default.fileExists(atPath: try #require(outcome.pages.first).file.path))
    }

    @Test func twoSearchesInTheSameSecondKeepTheirOwnPages() async throws {
        var config = FakeSearchAPI.Configuration()
        config.totalTweets = 20
        let fake = try FakeSearchAPI(config)
        let cache = try temporaryDirectory()
        let started = Date()
        let token = try BearerToken(fake.configuration.token, source: .environment("T"))
        let client = try SearchClient(query: try SearchQuery("#ucd"), token: token,
                                      options: testOptions(.v2, fake, count: 100, cache: cache))
        let first = await client.run(started: started)
        let second = await client.run(started: started)
        #expect(first.pages.first?.file != second.pages.first?.file)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("results").path)
        #expect(files.count == 2)
    }
}
