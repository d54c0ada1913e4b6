import Foundation
import Testing
import TestSupport
import TLSTestSupport

@Suite struct FetchCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func fetchesFromAFileAndReportsJSON() async throws {
        let server = try makeServer()
        let dir = try tempDir()
        let page = dir.appendingPathComponent("page.json")
        try Data(cliPage.utf8).write(to: page)
        let cache = dir.appendingPathComponent("cache")
        let args = ["fetch", page.path, "--cache", cache.path, "--mirror", "pbs.twimg.com=\(server.baseURL)", "--json"]
        let out = try await CommandRunner.run(bin, args)
        // A failed URL is recorded, not fatal: exit 0 without --strict.
        #expect(out.status == 0, "\(out.stderr)")
        let s = try summary(out)
        #expect(s["tweets"] as? Int == 2)
        #expect(s["urls"] as? Int == 4)
        #expect(s["downloaded"] as? Int == 3)
        #expect(s["failed"] as? Int == 1)
        #expect((s["failures_by_reason"] as? [String: Int])?["http_404"] == 1)
        let manifestPath = try #require(s["manifest_path"] as? String)
        #expect(manifestPath.hasPrefix(cache.appendingPathComponent("manifests").path))
        #expect(FileManager.default.fileExists(atPath: manifestPath))

        // Again, strict: nothing new is downloaded, and the failure makes the exit status 1.
        let again = try await CommandRunner.run(bin, args + ["--strict"])
        #expect(again.status == 1)
        let s2 = try summary(again)
        #expect(s2["cached"] as? Int == 3)
        #expect(s2["downloaded"] as? Int == 0)
        #expect(server.requestCount(path: "/media/AAA") == 1)
    }

    @Test func readsStandardInputAndPrintsAHumanSummary() async throws {
        let server = try makeServer()
        let cache = try tempDir().appendingPathComponent("cache")
        let out = try await CommandRunner.run(
            bin, ["fetch", "-", "--cache", cache.path, "--mirror", "pbs.twimg.com=\(server.baseURL)"],
            stdin: Data(cliPage.utf8))
        #expect(out.status == 0)
        #expect(out.stdout.contains("tweets    2 from 1 file"))
        #expect(out.stdout.contains("4 unique: 0 cached, 3 downloaded, 1 failed"))
        #expect(out.stdout.contains("http_404 ×1"))
        #expect(out.stdout.contains("https://pbs.twimg.com/media/GONE?format=jpg&name=orig"))
        // Not a terminal: plain progress lines, no escape codes.
        #expect(!out.stderr.contains("\u{1B}["))
    }

    @Test func reportsMalformedInputAndCarriesOn() async throws {
        let server = try makeServer()
        let dir = try tempDir()
        let bad = dir.appendingPathComponent("bad.json")
        try Data("{\"statuses\": [ {\"id_str\": ".utf8).write(to: bad)
        let good = dir.appendingPathComponent("good.json")
        try Data(cliPage.utf8).write(to: good)
        let out = try await CommandRunner.run(
            bin, ["fetch", bad.path, good.path, "--cache", dir.appendingPathComponent("c").path,
                  "--mirror", "pbs.twimg.com=\(server.baseURL)", "--json"])
        #expect(out.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        let problems = try #require(json?["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect(problems.first?["source"] as? String == bad.path)
        #expect((problems.first?["message"] as? String)?.contains("not valid JSON") == true)
        #expect(try summary(out)["tweets"] as? Int == 2)
    }

    /// A mirror whose host no URL of the run has (a typo, a port the URLs do not name) is
    /// said on standard error, not silently ignored; one that is used is not mentioned.
    @Test func aMirrorNoURLMatchesIsSaid() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let (dir, page) = try scratchWithPage("tc-mirror-typo")
        let run = try await CommandRunner.run(bin, [
            "fetch", page.path, "--cache", dir.appendingPathComponent("c").path, "--json",
            "--mirror", "pbs.twimg.com=\(server.baseURL)", "--mirror", "pbs.twimg.con=\(server.baseURL)",
            "--mirror", "pbs.twimg.com:8443=\(server.baseURL)",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("--mirror pbs.twimg.con=…: no URL of this run has that host;"), "\(run.stderr)")
        #expect(run.stderr.contains("--mirror pbs.twimg.com:8443=…: no URL of this run has that host and port"), "\(run.stderr)")
        #expect(!run.stderr.contains("--mirror pbs.twimg.com="), "the mirror in use is not mentioned")
        #expect((try summary(run)["downloaded"] as? Int ?? 0) > 0, "the used mirror still served")
        // And in the --json problems, for scripts.
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let problems = try #require(json?["problems"] as? [[String: Any]])
        #expect(problems.filter { $0["source"] as? String == "--mirror" }.compactMap { $0["location"] as? String }.sorted()
            == ["pbs.twimg.com:8443", "pbs.twimg.con"], "\(problems)")
    }

    @Test func refusesBadArgumentsClearly() async throws {
        let dir = try tempDir()
        let missing = try await CommandRunner.run(bin, ["fetch", dir.appendingPathComponent("nope.json").path, "--cache", dir.path])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("nope.json"))
        let mirror = try await CommandRunner.run(bin, ["fetch", "-", "--mirror", "pbs.twimg.com=ftp://x", "--cache", dir.path])
        #expect(mirror.status == 64)
        #expect(mirror.stderr.contains("BASEURL must be an http or https URL"))
        let size = try await CommandRunner.run(bin, ["fetch", "-", "--max-size", "lots", "--cache", dir.path])
        #expect(size.status == 64)
    }
}

@Suite struct DemoCommandTests {
    @Test func runsTheWholeJobOnTheBuiltInSample() async throws {
        let bin = try BuiltProduct.url(named: "tweetcache")
        let cache = try tempDir().appendingPathComponent("cache")
        let out = try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        let s = try summary(out)
        #expect((s["tweets"] as? Int ?? 0) >= 50)
        #expect(s["failed"] as? Int == 0)
        #expect(s["downloaded"] as? Int == s["urls"] as? Int)
        // The demo's own setup raises no problem (its video host is mirrored only with --videos).
        #expect(try problems(out).isEmpty, "\(out.stdout.prefix(2_000))")
        #expect(!out.stderr.contains("warning"), "\(out.stderr)")
        // Avatars are shared: far fewer URLs than media + avatars per tweet.
        let manifest = try JSONSerialization.jsonObject(
            with: manifestJSON(URL(fileURLWithPath: try #require(s["manifest_path"] as? String)))) as? [String: Any]
        let tweets = try #require(manifest?["tweets"] as? [[String: Any]])
        let avatars = Set(tweets.compactMap { (($0["author"] as? [String: Any])?["avatar"] as? [String: Any])?["sha256"] as? String })
        #expect(avatars.count >= 5 && avatars.count < tweets.count)
        // Photos of several tweets, each linked to a blob on disk named by its hash.
        let media = tweets.flatMap { ($0["media"] as? [[String: Any]]) ?? [] }
        #expect(media.count >= 40)
        for m in media {
            let hash = try #require(m["sha256"] as? String)
            let blob = cache.appendingPathComponent("blobs/sha256/\(hash.prefix(2))/\(hash)")
            #expect(FileManager.default.fileExists(atPath: blob.path))
        }

        let again = try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--json"])
        let s2 = try summary(again)
        #expect(s2["downloaded"] as? Int == 0)
        #expect(s2["cached"] as? Int == s["urls"] as? Int)
    }

    func problems(_ out: CommandOutput) throws -> [[String: Any]] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        return try #require(json["problems"] as? [[String: Any]])
    }

    /// `demo --videos` (README's example): the video and the GIF's MP4 come from the
    /// demo's origin too, named in the manifest beside their posters.
    @Test func demoWithVideosFetchesThemThroughItsOrigin() async throws {
        let bin = try BuiltProduct.url(named: "tweetcache")
        let cache = try tempDir().appendingPathComponent("cache")
        let out = try await CommandRunner.run(bin, ["demo", "--cache", cache.path, "--json", "--quiet", "--videos"],
                                              environment: smallDemo)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try problems(out).isEmpty)
        let s = try summary(out)
        #expect(s["failed"] as? Int == 0)
        let manifest = try JSONSerialization.jsonObject(
            with: manifestJSON(URL(fileURLWithPath: try #require(s["manifest_path"] as? String)))) as? [String: Any]
        let media = try #require(manifest?["tweets"] as? [[String: Any]]).flatMap { ($0["media"] as? [[String: Any]]) ?? [] }
        let videos = media.compactMap { $0["video"] as? [String: Any] }
        #expect(videos.count == 2)
        for video in videos {
            #expect((video["url"] as? String)?.hasPrefix("https://video.twimg.com/") == true)
            let hash = try #require(video["sha256"] as? String)
            #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("blobs/sha256/\(hash.prefix(2))/\(hash)").path))
        }
    }

    /// `TWEETCACHE_DEMO_ASSETS`: demos into new caches render the sample once, there
    /// (drawn small with `TWEETCACHE_DEMO_SHRINK`: this folder is new, so the first demo renders).
    @Test func demosIntoNewCachesShareTheRenderedSampleInTheirFolder() async throws {
        let bin = try BuiltProduct.url(named: "tweetcache")
        let dir = try tempDir()
        let assets = dir.appendingPathComponent("assets")
        let environment = smallDemo.merging(["TWEETCACHE_DEMO_ASSETS": assets.path]) { _, new in new }
        func files() throws -> [String: Int] {
            let root = assets.path
            var found: [String: Int] = [:]
            for path in try FileManager.default.subpathsOfDirectory(atPath: root) where path.hasSuffix(".jpg") || path.hasSuffix(".mp4") {
                let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
                found[path] = (attributes[.systemFileNumber] as? Int) ?? -1
            }
            return found
        }
        var summaries: [[String: Any]] = []
        var rendered: [String: Int] = [:]
        for cache in ["a", "b"] {
            let out = try await CommandRunner.run(
                bin, ["demo", "--cache", dir.appendingPathComponent(cache).path, "--json", "--quiet"], environment: environment)
            #expect(out.status == 0, "\(out.stderr)")
            summaries.append(try summary(out))
            if cache == "a" { rendered = try files() }
            // The rendered files are not in the cache's own demo folder.
            let own = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("\(cache)/demo").path)
            #expect(!own.contains { $0.hasPrefix("origin-") }, "\(own)")
        }
        #expect(rendered.count >= 50)
        // The second demo read every file the first wrote (a file written again is a new inode).
        #expect(try files() == rendered)
        #expect(summaries[1]["downloaded"] as? Int == summaries[0]["downloaded"] as? Int)
        #expect(summaries[1]["failed"] as? Int == 0)
    }
}

/// `--cacert` and the environment variables curl users already set, against an HTTPS
/// origin (HTTP/2) whose certificate only its own CA signs.
@Suite struct FetchTrustTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    @Test func fetchesOverHTTPSTrustingTheCAItIsGiven() async throws {
        let origin = try await TLSOrigin.start { path in path.contains("GONE") ? nil : jpegBytes(8_000, UInt8(path.utf8.count)) }
        let dir = try tempDir()
        let page = dir.appendingPathComponent("page.json")
        try Data(cliPage.utf8).write(to: page)
        func fetch(_ cache: String, _ extra: [String], environment: [String: String] = [:]) async throws -> [String: Any] {
            let out = try await CommandRunner.run(
                bin, ["fetch", page.path, "--cache", dir.appendingPathComponent(cache).path,
                      "--mirror", "pbs.twimg.com=\(origin.baseURL)", "--json"] + extra,
                environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "", "SSL_CERT_DIR": ""].merging(environment) { $1 })
            #expect(out.status == 0, "\(out.stderr)")
            return try summary(out)
        }
        // The system's CAs do not know this one: every download is refused, and says why.
        let untrusted = try await fetch("c0", [])
        #expect(untrusted["downloaded"] as? Int == 0)
        #expect((untrusted["failures_by_reason"] as? [String: Int])?["untrusted_certificate"] == 4)
        // Given on the command line, or the way curl reads it from the environment.
        for (cache, extra, environment) in [("c1", ["--cacert", origin.caFile], [:]),
                                            ("c2", [], ["CURL_CA_BUNDLE": origin.caFile]),
                                            ("c3", [], ["SSL_CERT_FILE": origin.caFile])] {
            let s = try await fetch(cache, extra, environment: environment)
            #expect(s["downloaded"] as? Int == 3, "\(cache)")
            #expect((s["failures_by_reason"] as? [String: Int])?["http_404"] == 1, "\(cache)")
        }
        await origin.stop()
    }

    @Test func aMissingCABundleIsAUsageError() async throws {
        let dir = try tempDir()
        let page = dir.appendingPathComponent("page.json")
        try Data(cliPage.utf8).write(to: page)
        let missing = dir.appendingPathComponent("nope.pem").path
        let flag = try await CommandRunner.run(bin, ["fetch", page.path, "--cache", dir.path + "/c", "--cacert", missing])
        #expect(flag.status == 64)
        #expect(flag.stderr.contains("--cacert: the CA bundle \(missing) is not a file"))
        let env = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", dir.path + "/c"], environment: ["CURL_CA_BUNDLE": missing])
        #expect(env.status == 64)
        #expect(env.stderr.contains("CURL_CA_BUNDLE"))
    }
}
