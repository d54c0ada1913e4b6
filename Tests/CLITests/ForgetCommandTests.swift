import BlobStore
import Foundation
import Testing
import TestSupport

/// `tweetcache forget` as people run it: by id, by author, from X's compliance file,
/// dry, and across two machines sharing a store.
@Suite struct ForgetCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    func json(_ out: CommandOutput) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(out.stdout) \(out.stderr)")
    }

    @Test func aPostForgottenOnOneMachineIsGoneFromTheStoreAndTheOther() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-forget")
        let bucket = dir.appendingPathComponent("bucket")
        try FileManager.default.createDirectory(at: bucket, withIntermediateDirectories: true)
        let store = ["--store", "file://" + bucket.path, "--local-max", "64MB"]
        let one = dir.appendingPathComponent("one"), two = dir.appendingPathComponent("two")
        let fetched = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", one.path, "--quiet", "--json", "--mirror", "pbs.twimg.com=\(server.baseURL)"] + store)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let synced = try await CommandRunner.run(bin, ["sync", "--cache", two.path, "--json"] + store)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(!filesHolding("one #ucd", under: two).isEmpty)
        let aaa = CacheLayout.blob(BlobHash(hashing: jpegBytes(20_000, 1)))
        #expect(FileManager.default.fileExists(atPath: bucket.appendingPathComponent(aaa).path))

        // Dry: said, not done.
        let dry = try await CommandRunner.run(bin, ["forget", "1", "--dry-run", "--json", "--cache", one.path] + store)
        #expect(dry.status == 0, "\(dry.stderr)")
        let dryReport = try json(dry)
        #expect(dryReport["dry_run"] as? Bool == true)
        #expect(dryReport["posts"] as? [String] == ["x:1"])
        #expect(dryReport["blobs_deleted"] as? Int == 2)
        #expect(!filesHolding("one #ucd", under: one).isEmpty)

        // Done, with its reason, on the first machine and in the store.
        let done = try await CommandRunner.run(
            bin, ["forget", "1", "--network", "x", "--reason", "author asked", "--json", "--cache", one.path] + store)
        #expect(done.status == 0, "\(done.stderr)")
        let report = try json(done)
        #expect(report["posts"] as? [String] == ["x:1"])
        #expect(report["bucket_manifests_rewritten"] as? Int == 1)
        #expect((report["bucket_objects_deleted"] as? Int ?? 0) >= 2)
        #expect(filesHolding("one #ucd", under: one) == [])
        #expect(filesHolding("one #ucd", under: bucket) == [], "the bucket's manifest is put back without it")
        #expect(!FileManager.default.fileExists(atPath: bucket.appendingPathComponent(aaa).path))
        let log = try String(contentsOf: one.appendingPathComponent("tombstones.jsonl"), encoding: .utf8)
        #expect(log.contains("\"reason\":\"author asked\"") && log.contains("\"id\":\"1\""))
        let tombstoneObjects = try FileManager.default.contentsOfDirectory(atPath: bucket.appendingPathComponent("tombstones").path)
        #expect(tombstoneObjects.count == 1 && tombstoneObjects[0].hasSuffix(".jsonl"))

        // The second machine forgets it at its next sync.
        let again = try await CommandRunner.run(bin, ["sync", "--cache", two.path, "--json"] + store)
        #expect(again.status == 0, "\(again.stderr)")
        let syncReport = try json(again)
        #expect(syncReport["tombstones"] as? Int == 1)
        #expect(syncReport["forgotten"] as? Int == 1)
        #expect(filesHolding("one #ucd", under: two) == [])
        let tweets = try await CommandRunner.run(bin, ["tweets", "--cache", two.path, "--color", "never"])
        #expect(!tweets.stdout.contains("one #ucd") && tweets.stdout.contains("two"), "\(tweets.stdout)")
        // A sync with nothing new forgets nothing more.
        let idle = try json(try await CommandRunner.run(bin, ["sync", "--cache", two.path, "--json"] + store))
        #expect(idle["tombstones"] as? Int == 0)

        // By author: dana's other post goes too, and with no post left her avatar.
        let user = try await CommandRunner.run(bin, ["forget", "--user", "@dana", "--json", "--cache", one.path])
        #expect(user.status == 0, "\(user.stderr)")
        #expect(try json(user)["posts"] as? [String] == ["x:2"])
        #expect(try String(contentsOf: one.appendingPathComponent("tombstones.jsonl"), encoding: .utf8).contains("\"reason\":\"user\""))
        #expect(filesHolding("dana_400x400", under: one).isEmpty, "no URL of hers is left")
    }

    @Test func aForgetKilledMidwayIsFinishedByTheNext() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-forget-kill")
        let cache = dir.appendingPathComponent("c")
        // Two runs: the post is in two manifests, and in the saved page.
        for _ in 0..<2 {
            let out = try await CommandRunner.run(
                bin, ["fetch", page.path, "--cache", cache.path, "--quiet", "--mirror", "pbs.twimg.com=\(server.baseURL)"])
            #expect(out.status == 0, "\(out.stderr)")
        }
        let results = cache.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: page, to: results.appendingPathComponent("20181010T221924Z-v1.1-ucd-p1.json"))
        var environment = ProcessInfo.processInfo.environment
        environment["TWEETCACHE_FORGET_KILL_AFTER"] = "1"
        let killed = try await CommandRunner.run(bin, ["forget", "1", "--cache", cache.path], environment: environment)
        #expect(killed.status != 0, "killed: \(killed.status)")
        // Nothing half-written: every manifest reads whole, one still holds the post.
        let manifests = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("manifests").path)
        #expect(manifests.filter { $0.hasSuffix(".json.zst") && !$0.hasPrefix(".") }.count == 2)
        #expect(filesHolding("one #ucd", under: cache.appendingPathComponent("manifests")).count == 1)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("tombstones.pending").path))
        let list = try await CommandRunner.run(bin, ["tweets", "--cache", cache.path, "--color", "never"])
        #expect(list.status == 0, "readers still read the cache: \(list.stderr)")

        let finished = try await CommandRunner.run(bin, ["forget", "--cache", cache.path, "--json"])
        #expect(finished.status == 0, "\(finished.stderr)")
        let report = try json(finished)
        #expect(report["resumed"] as? Bool == true)
        #expect(report["posts"] as? [String] == ["x:1"])
        #expect(filesHolding("one #ucd", under: cache) == [])
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("tombstones.pending").path))
    }

    @Test func complianceFilesAndBadIdsAreReportedPerLine() async throws {
        let server = try makeServer()
        let (dir, page) = try scratchWithPage("tc-forget-compliance")
        let cache = dir.appendingPathComponent("c").path
        let fetched = try await CommandRunner.run(
            bin, ["fetch", page.path, "--cache", cache, "--quiet", "--mirror", "pbs.twimg.com=\(server.baseURL)"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let compliance = dir.appendingPathComponent("compliance.jsonl")
        try Data("""
            {"id":"2","action":"delete","created_at":"2018-10-10T21:19:24.000Z","redacted_at":"2024-01-01T00:00:00.000Z","reason":"suspended"}
            {"id":"1","action":"scrub_geo","reason":"scrub_geo"}
            {"broken
            """.utf8).write(to: compliance)
        let out = try await CommandRunner.run(bin, ["forget", "--compliance", compliance.path, "--cache", cache, "--color", "never"])
        #expect(out.status == 1, "a bad line is a problem: \(out.stdout) \(out.stderr)")
        #expect(out.stdout.contains("forgot 1 of 1 posts asked for"), "\(out.stdout)")
        #expect(out.stdout.contains("compliance.jsonl:3"), "\(out.stdout)")
        #expect(try String(contentsOf: URL(fileURLWithPath: cache).appendingPathComponent("tombstones.jsonl"), encoding: .utf8)
            .contains("\"reason\":\"suspended\""))
        // Ids on another network, and ids no network uses.
        let other = try await CommandRunner.run(bin, ["forget", "1", "--network", "mastodon", "--cache", cache, "--json"])
        #expect(other.status == 0)
        #expect(try json(other)["posts"] as? [String] == [], "mastodon:1 is not X's post 1")
        let bad = try await CommandRunner.run(bin, ["forget", "a b", "--cache", cache])
        #expect(bad.status == 1 && bad.stdout.contains("not a post id"), "\(bad.stdout) \(bad.stderr)")
        let missing = try await CommandRunner.run(bin, ["forget", "1", "--cache", dir.appendingPathComponent("none").path])
        #expect(missing.status == 2 && missing.stderr.contains("no cache at"))
    }
}

