import Catalog
import Foundation
import Testing
import TestSupport

/// `tweetcache watch`: polls that ask only for what is new, a collection that grows
/// while it is watched (the fake API publishes posts as it is asked, no clock), and
/// a stop by signal between polls.
@Suite struct WatchCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    func arguments(_ fake: FakeSearchAPI, cache: URL) -> [String] {
        ["watch", "#ucd", "@lab2", "--api-base", fake.baseURL, "--count", "250", "--cache", cache.path,
         "--mirror", fake.mirrorSpec, "--quiet", "--tiles", "none", "--thumb-sizes", "", "--no-pdq"]
    }

    @Test func eachPollAsksOnlyForWhatIsNew() async throws {
        var configuration = FakeSearchAPI.Configuration()
        configuration.totalTweets = 300
        configuration.unpublished = 250
        configuration.publishedPerRequest = 10
        let fake = try FakeSearchAPI(configuration)
        let dir = try ScratchDirectory.make("tc-watch")
        let cache = dir.appendingPathComponent("Cache")
        let tokenFile = dir.appendingPathComponent("token")
        try Data(fake.configuration.token.utf8).write(to: tokenFile)
        let out = try await CommandRunner.run(
            bin, arguments(fake, cache: cache) + ["--polls", "3", "--every", "0s", "--pin", "--retweets", "--max-wait", "1m",
                                                  "--api", "v2", "--token-file", tokenFile.path],
            environment: ["TWEETCACHE_BEARER_TOKEN": "not-this-one"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("watch: poll 3 at"))
        #expect(out.stderr.contains("watch: stopped after 3 polls"))
        // Two queries, three polls: six requests, one each (nothing needs a second page).
        let asked = fake.apiRequests.map(FakeSearchAPI.parameters)
        #expect(asked.count == 6, "\(asked)")
        // The first poll of each query asks for everything; every later one from the
        // newest post the cache holds of that query.
        #expect(asked[0]["since_id"] == nil && asked[1]["since_id"] == nil)
        #expect(asked.dropFirst(2).allSatisfy { $0["since_id"] != nil }, "\(asked)")
        // 50 posted at first, 10 more after each request: the second query's first poll
        // already sees 60; every post ends in the cache once.
        let catalog = try PostCatalog.open(cacheRoot: cache).catalog
        let ids = fake.tweetIDs
        #expect(try catalog.known(Set(ids.suffix(50).map { PostIdentity(network: .x, id: $0) })).count == 50)
        let manifests = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("manifests").path)
        #expect(manifests.filter { $0.hasSuffix(".json.zst") }.count == 6, "one run per query per poll")
        #expect(try CollectionPins(cacheRoot: cache).read().map(\.query) == ["#ucd", "@lab2"])
        // X v2 pages name no query: the posts carry the search as typed, so the pins hold them.
        let gc = try await CommandRunner.run(bin, ["gc", "--dry-run", "--json", "--grace", "0", "--max-size", "1KB", "--cache", cache.path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(gc.stdout.utf8)) as? [String: Any])
        #expect((report["pinned_blobs"] as? Int ?? 0) > 0, "\(gc.stdout)")
        #expect((report["removed"] as? [Any])?.isEmpty == true, "\(gc.stdout)")
    }

    @Test func aSignalStopsItBetweenPolls() async throws {
        var configuration = FakeSearchAPI.Configuration()
        configuration.totalTweets = 40
        let fake = try FakeSearchAPI(configuration)
        let dir = try ScratchDirectory.make("tc-watch-stop")
        let cache = dir.appendingPathComponent("Cache")
        // An hour between polls: only the signal ends the wait.
        let process = try ServingProcess.start(bin, arguments(fake, cache: cache) + ["--every", "1h", "--network", "x"],
                                               environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        defer { process.kill() }
        _ = try await process.errors(untilLine: "watch: next poll at")
        let status = try await process.stop()
        #expect(status == 0)
        let errors = try String(contentsOf: process.errors, encoding: .utf8)
        #expect(errors.contains("watch: stopped after 1 poll"), "\(errors)")
        #expect(fake.apiRequests.count == 2)
        let catalog = try PostCatalog.open(cacheRoot: cache).catalog
        #expect(try catalog.known(Set(fake.tweetIDs.map { PostIdentity(network: .x, id: $0) })).count == 40)
    }

    @Test func aFirstPollThatCannotRunEndsIt() async throws {
        let dir = try ScratchDirectory.make("tc-watch-token")
        let out = try await CommandRunner.run(
            bin, ["watch", "#ucd", "--api-base", "http://127.0.0.1:9", "--cache", dir.path, "--polls", "2", "--every", "0s"],
            environment: ["TWEETCACHE_BEARER_TOKEN": "t"])
        #expect(out.status == 2, "\(out.stderr)")
        #expect(!out.stderr.contains("poll 2"))
        let mastodon = try await CommandRunner.run(bin, ["watch", "#ucd", "--network", "mastodon", "--cache", dir.path])
        #expect(mastodon.status != 0 && mastodon.stderr.contains("--instance"))
        let instance = try await CommandRunner.run(bin, ["watch", "#ucd", "--instance", "https://127.0.0.1:9", "--cache", dir.path])
        #expect(instance.status != 0 && instance.stderr.contains("--instance is for --network mastodon"))
    }
}
