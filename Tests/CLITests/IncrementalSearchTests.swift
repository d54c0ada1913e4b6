import Foundation
import Testing
import TestSupport

/// A search repeated over weeks asks only for what is new: `since_id` from the newest
/// post the cache's manifests hold of the same search, one request when nothing is
/// new, ⌈k/100⌉ for k new posts; `--all` pages the whole query again.
@Suite struct IncrementalSearchTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    private func search(_ fake: FakeSearchAPI, cache: URL, _ extra: [String] = [], count: Int = 250) async throws -> [String: Any] {
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "\(count)", "--cache", cache.path,
                  "--mirror", fake.mirrorSpec, "--json", "--tiles", "none", "--thumb-sizes", "", "--no-pdq"] + extra,
            environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        return try #require(json?["summary"] as? [String: Any], "\(out.stdout) \(out.stderr)")
    }

    private func requests(_ fake: FakeSearchAPI, since before: Int) -> [[String: String]] {
        fake.apiRequests.dropFirst(before).map(FakeSearchAPI.parameters)
    }

    @Test func aRepeatAsksOnlyForWhatIsNew() async throws {
        var configuration = FakeSearchAPI.Configuration()
        configuration.totalTweets = 520
        configuration.unpublished = 270
        let fake = try FakeSearchAPI(configuration)
        let dir = try ScratchDirectory.make("tc-incremental")
        let cache = dir.appendingPathComponent("Cache")

        // The first search: every page, no boundary.
        let first = try await search(fake, cache: cache)
        #expect(first["tweets"] as? Int == 250)
        var asked = requests(fake, since: 0)
        #expect(asked.count == 3 && asked.allSatisfy { $0["since_id"] == nil })
        let newest = fake.tweetIDs[270]

        // Nothing new: one request, since the newest post held, no posts.
        var before = fake.apiRequests.count
        let nothing = try await search(fake, cache: cache)
        asked = requests(fake, since: before)
        #expect(asked.count == 1, "\(asked)")
        #expect(asked.first?["since_id"] == newest)
        #expect(nothing["tweets"] as? Int == 0)

        // 120 new posts: two pages of 100, only they, then nothing again from the newest.
        fake.publish(120)
        before = fake.apiRequests.count
        let new = try await search(fake, cache: cache)
        asked = requests(fake, since: before)
        #expect(asked.count == 2 && asked.allSatisfy { $0["since_id"] == newest }, "\(asked)")
        #expect(new["tweets"] as? Int == 120)
        #expect(new["downloaded"] as? Int ?? 0 > 0)

        // The state is the manifests': a catalog deleted is rebuilt with it.
        try FileManager.default.removeItem(at: cache.appendingPathComponent("catalog.sqlite"))
        before = fake.apiRequests.count
        _ = try await search(fake, cache: cache)
        asked = requests(fake, since: before)
        #expect(asked.count == 1 && asked.first?["since_id"] == fake.tweetIDs[150], "\(asked)")

        // --all pages the whole query again.
        before = fake.apiRequests.count
        let all = try await search(fake, cache: cache, ["--all"])
        asked = requests(fake, since: before)
        #expect(asked.count == 3 && asked.allSatisfy { $0["since_id"] == nil })
        #expect(all["tweets"] as? Int == 250)
    }

    /// A search cut short by its count above what was held leaves a gap: the next one
    /// starts from the old boundary again, so no post is skipped.
    @Test func aSearchCutShortDoesNotMoveTheBoundary() async throws {
        var configuration = FakeSearchAPI.Configuration()
        configuration.totalTweets = 400
        configuration.unpublished = 250
        let fake = try FakeSearchAPI(configuration)
        let cache = try ScratchDirectory.make("tc-incremental-gap").appendingPathComponent("Cache")
        _ = try await search(fake, cache: cache, count: 100)
        let boundary = fake.tweetIDs[250]
        fake.publish(150)
        // 150 new, but only 100 wanted: the 50 below them are not fetched.
        var before = fake.apiRequests.count
        let short = try await search(fake, cache: cache, count: 100)
        #expect(short["tweets"] as? Int == 100)
        #expect(requests(fake, since: before).first?["since_id"] == boundary)
        // The next search asks from the same boundary and gets all 150.
        before = fake.apiRequests.count
        let next = try await search(fake, cache: cache, count: 1000)
        #expect(requests(fake, since: before).allSatisfy { $0["since_id"] == boundary })
        #expect(next["tweets"] as? Int == 150)
        // Which reached the boundary: from now on, from the newest.
        before = fake.apiRequests.count
        _ = try await search(fake, cache: cache, count: 1000)
        #expect(requests(fake, since: before).map { $0["since_id"] } == [fake.tweetIDs[100]])
    }

    /// Another machine sharing the bucket continues the search after `sync`.
    @Test func anotherMachineContinuesFromTheBucket() async throws {
        var configuration = FakeSearchAPI.Configuration()
        configuration.totalTweets = 200
        let fake = try FakeSearchAPI(configuration)
        let dir = try ScratchDirectory.make("tc-incremental-shared")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("bucket"), withIntermediateDirectories: true)
        let store = "file://" + dir.appendingPathComponent("bucket").path
        _ = try await search(fake, cache: dir.appendingPathComponent("one"), ["--store", store], count: 50)
        let second = dir.appendingPathComponent("two")
        let sync = try await CommandRunner.run(bin, ["sync", "--cache", second.path, "--store", store])
        #expect(sync.status == 0, "\(sync.stderr)")
        let before = fake.apiRequests.count
        let again = try await search(fake, cache: second, count: 50)
        #expect(requests(fake, since: before).map { $0["since_id"] } == [fake.tweetIDs[0]])
        #expect(again["tweets"] as? Int == 0)
    }
}
