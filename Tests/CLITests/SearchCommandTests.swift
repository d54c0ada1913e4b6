import Foundation
import Testing
import TestSupport

/// `tweetcache search` as a user runs it: the built binary against the fake X API,
/// with the results' media served by the same server through --mirror.
@Suite struct SearchCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    private func directory() throws -> URL {
        try ScratchDirectory.make("tc-search")
    }

    /// Every file under `dir`, as bytes, for checking nothing holds the token.
    @Test func searchesPagesCachesAndCanBeReRunOffline() async throws {
        let fake = try FakeSearchAPI()
        let dir = try directory()
        let cache = dir.appendingPathComponent("Cache")
        let token = fake.configuration.token
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "250", "--cache", cache.path,
                  "--mirror", fake.mirrorSpec, "--json"],
            environment: ["TWEETCACHE_BEARER_TOKEN": token])
        #expect(out.status == 0, "\(out.stderr)")
        let s = try summary(out)
        #expect(s["tweets"] as? Int == 250)
        #expect(s["failed"] as? Int == 0)
        // 250 tweets, every seventh with two photos, plus 5 authors' avatars.
        let photos = (0..<250).reduce(0) { $0 + ($1 % 7 == 3 ? 2 : 1) }
        #expect(s["urls"] as? Int == photos + 5)
        #expect(s["downloaded"] as? Int == photos + 5)
        // The fake serves real, distinct images: none stored twice, every one decodable.
        #expect(s["deduplicated"] as? Int == 0)
        #expect((s["derive_failed"] as? Int ?? 0) == 0)

        // Requests: three pages, the token in each, the retweet filter in the query.
        let params = fake.apiRequests.map(FakeSearchAPI.parameters)
        #expect(params.map { $0["max_results"] } == ["100", "100", "50"])
        #expect(params.allSatisfy { $0["query"] == "#ucd -is:retweet" })
        #expect(fake.apiRequests.allSatisfy { $0.headers["authorization"] == "Bearer \(token)" })

        // Pages saved as served, the history written, the token nowhere.
        let results = cache.appendingPathComponent("results")
        let pages = try FileManager.default.contentsOfDirectory(atPath: results.path).sorted()
        #expect(pages.count == 3)
        #expect(pages.allSatisfy { $0.contains("-v2-ucd-p") && $0.hasSuffix(".json") })
        let history = try JSONSerialization.jsonObject(with: Data(contentsOf: cache.appendingPathComponent("history.json"))) as? [String: Any]
        let entry = try #require((history?["searches"] as? [[String: Any]])?.first)
        #expect(entry["query"] as? String == "#ucd")
        #expect(entry["api"] as? String == "v2")
        #expect(entry["pages"] as? Int == 3)
        #expect(entry["tweets"] as? Int == 250)
        #expect(!out.stdout.contains(token) && !out.stderr.contains(token))
        #expect(filesHolding(token, under: cache).isEmpty)

        // The saved pages are ordinary input for `fetch`: offline, everything is cached.
        let offline = try await CommandRunner.run(
            bin, ["fetch"] + pages.map { results.appendingPathComponent($0).path } + ["--cache", cache.path, "--json"])
        #expect(offline.status == 0, "\(offline.stderr)")
        let o = try summary(offline)
        #expect(o["tweets"] as? Int == 250)
        #expect(o["cached"] as? Int == photos + 5)
        #expect(o["downloaded"] as? Int == 0)
    }

    @Test func v1WithATokenFileAndRetweets() async throws {
        let fake = try FakeSearchAPI()
        let dir = try directory()
        let tokenFile = dir.appendingPathComponent("token")
        try Data("\(fake.configuration.token)\n".utf8).write(to: tokenFile)
        let out = try await CommandRunner.run(
            bin, ["search", "@lab2", "--api", "v1.1", "--api-base", fake.baseURL, "--count", "120", "--retweets",
                  "--token-file", tokenFile.path, "--cache", dir.appendingPathComponent("c").path,
                  "--mirror", fake.mirrorSpec, "--pin"],
            environment: ["TWEETCACHE_BEARER_TOKEN": "not-this-one"])
        #expect(out.status == 0, "\(out.stderr)")
        // --pin: the collection is pinned as typed, and gc finds its media (searched as from:lab2).
        let pins = try await CommandRunner.run(bin, ["pin", "--json", "--cache", dir.appendingPathComponent("c").path])
        #expect(pins.stdout.contains("@lab2"), "\(pins.stdout)")
        let gc = try await CommandRunner.run(
            bin, ["gc", "--dry-run", "--json", "--grace", "0", "--max-size", "1KB", "--cache", dir.appendingPathComponent("c").path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(gc.stdout.utf8)) as? [String: Any])
        #expect((report["pinned_blobs"] as? Int ?? 0) > 0, "\(gc.stdout)")
        #expect(report["pinned_over_budget"] as? Bool == true)
        #expect(out.stdout.contains("tweets    120 from 2 files"))
        #expect(out.stderr.contains("search: page 1: 100 results"))
        #expect(out.stderr.contains("search: page 2: 20 results"))
        let params = fake.apiRequests.map(FakeSearchAPI.parameters)
        #expect(params.map { $0["q"] } == ["from:lab2", "from:lab2"])
        #expect(params.map { $0["count"] } == ["100", "20"])
        #expect(params[1]["max_id"] != nil)
    }

    @Test func aRejectedTokenIsOneClearLineAndExitStatus2() async throws {
        let fake = try FakeSearchAPI()
        let dir = try directory()
        let cache = dir.appendingPathComponent("c")
        let wrong = "WRONG\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--cache", cache.path],
            environment: ["TWEETCACHE_BEARER_TOKEN": wrong])
        #expect(out.status == 2)
        let errors = out.stderr.split(separator: "\n").filter { $0.hasPrefix("tweetcache:") }
        #expect(errors.count == 1)
        #expect(errors.first?.contains("HTTP 401") == true)
        #expect(errors.first?.contains("TWEETCACHE_BEARER_TOKEN") == true)
        #expect(!out.stderr.contains(wrong) && !out.stdout.contains(wrong))
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("results").path))
        #expect(filesHolding(wrong, under: dir).isEmpty)
    }

    @Test func noTokenAtAllSaysWhereToPutOne() async throws {
        let dir = try directory()
        let out = try await CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["-u", "TWEETCACHE_BEARER_TOKEN", bin.path, "search", "#ucd", "--api-base", "http://127.0.0.1:9", "--cache", dir.path])
        #expect(out.status == 2)
        #expect(out.stderr.contains("TWEETCACHE_BEARER_TOKEN"))
        #expect(out.stderr.contains("--token-file"))
    }

    @Test func stopsEarlyOnALongRateLimitAndStillCachesWhatItHas() async throws {
        let fake = try FakeSearchAPI(faults: [2: .tooManyRequests(resetIn: 600)])
        let cache = try directory().appendingPathComponent("c")
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "300", "--max-wait", "1m",
                  "--cache", cache.path, "--mirror", fake.mirrorSpec, "--json"],
            environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        #expect(out.status == 3, "\(out.stderr)")
        #expect(out.stderr.contains("the rate limit resets at"))
        #expect(out.stderr.contains("run the search again after"))
        #expect(try summary(out)["tweets"] as? Int == 100)
    }

    @Test func waitsOutAShortRateLimitAndSaysSo() async throws {
        let fake = try FakeSearchAPI(faults: [2: .tooManyRequests(resetIn: 1)])
        let cache = try directory().appendingPathComponent("c")
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "200", "--cache", cache.path,
                  "--mirror", fake.mirrorSpec, "--json"],
            environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("search: rate limited (HTTP 429); waiting"))
        // Not a terminal: no countdown redrawn with escape codes.
        #expect(!out.stderr.contains("\u{1B}["))
        #expect(try summary(out)["tweets"] as? Int == 200)
        #expect(fake.apiRequests.count == 3)
    }

    @Test func aMalformedPageIsSavedReportedAndTheRestIsCached() async throws {
        let fake = try FakeSearchAPI(faults: [2: .truncatedPage])
        let cache = try directory().appendingPathComponent("c")
        let out = try await CommandRunner.run(
            bin, ["search", "#ucd", "--api-base", fake.baseURL, "--count", "300", "--cache", cache.path,
                  "--mirror", fake.mirrorSpec, "--json"],
            environment: ["TWEETCACHE_BEARER_TOKEN": fake.configuration.token])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("search: page 2 is not a results page"))
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        let problems = try #require(json?["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect((problems.first?["source"] as? String)?.hasSuffix("-v2-ucd-p2.json") == true)
        #expect(try summary(out)["tweets"] as? Int == 100)
        let saved = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("results").path)
        #expect(saved.count == 2)
    }
}

/// `tweetcache search --network mastodon`: the built binary against a loopback instance
/// that also serves the statuses' media and avatar.
@Suite struct MastodonSearchCommandTests {
    @Test func aTagSearchSavesPagesFetchesMediaAndRecordsTheNetwork() async throws {
        let bin = try BuiltProduct.url(named: "tweetcache")
        let avatar = TinyPNG.make(width: 8, height: 8, tag: "avatar")
        let photo = TinyPNG.make(width: 8, height: 6, tag: "photo")
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/api/v1/timelines/tag/astro":
                guard FakeSearchAPI.parameters(request)["max_id"] == nil else { return .respond(status: 200, body: Array("[]".utf8)) }
                let status = #"""
                [{"id": "113", "created_at": "2026-11-20T10:15:30.000Z", "url": "https://example.social/@ana/113",
                  "content": "<p>lake <a href=\"https://example.social/tags/astro\" class=\"mention hashtag\">#<span>astro</span></a></p>",
                  "account": {"id": "9", "acct": "ana", "display_name": "Ana", "avatar_static": "http://127.0.0.1:PORT/avatars/ana.png"},
                  "media_attachments": [{"id": "5", "type": "image", "url": "http://127.0.0.1:PORT/media/lake.png"}]}]
                """#
                return .respond(status: 200, body: Array(status.replacingOccurrences(of: "PORT", with: request.headers["host"]?
                    .split(separator: ":").last.map(String.init) ?? "0").utf8))
            case "/avatars/ana.png":
                return .respond(status: 200, headers: [("Content-Type", "image/png")], body: avatar)
            case "/media/lake.png":
                return .respond(status: 200, headers: [("Content-Type", "image/png")], body: photo)
            default:
                return .respond(status: 404)
            }
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tc-msearch-\(UUID().uuidString)")
        let cache = dir.appendingPathComponent("Cache")
        let out = try await CommandRunner.run(
            bin, ["search", "#astro", "--network", "mastodon", "--instance", server.baseURL, "--cache", cache.path, "--json"],
            environment: [:])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        let summary = try #require(json?["summary"] as? [String: Any], "\(out.stdout) \(out.stderr)")
        #expect(summary["tweets"] as? Int == 1 && summary["downloaded"] as? Int == 2 && summary["failed"] as? Int == 0)
        let manifestPath = try #require(summary["manifest_path"] as? String)
        let manifest = try JSONSerialization.jsonObject(with: manifestJSON(URL(fileURLWithPath: manifestPath))) as? [String: Any]
        let tweet = try #require((manifest?["tweets"] as? [[String: Any]])?.first)
        #expect(tweet["network"] as? String == "mastodon")
        #expect(tweet["url"] as? String == "https://example.social/@ana/113")
        let pages = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("results").path)
        #expect(pages.contains { $0.contains("-mastodon-astro-p1") })
        let history = try String(contentsOf: cache.appendingPathComponent("history.json"), encoding: .utf8)
        #expect(history.contains("\"mastodon\""))
        try? FileManager.default.removeItem(at: dir)
    }
}
