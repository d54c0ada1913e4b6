import Foundation
import Testing
import TestSupport

/// `tweets`, `info`, `ls`, `show`, `stats`, `verify`, `gc`, `history`, `export` run as
/// processes against a cache the pipeline made (``InspectFixture``).
@Suite struct InspectCommandTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    func run(_ args: [String], cache: URL) async throws -> CommandOutput {
        try await CommandRunner.run(bin, args + ["--cache", cache.path], environment: ["NO_COLOR": ""])
    }

    func json(_ out: CommandOutput) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(out.stdout.utf8))
    }

    func objects(_ out: CommandOutput) throws -> [[String: Any]] {
        try #require(try json(out) as? [[String: Any]], "not a JSON array: \(out.stdout) \(out.stderr)")
    }

    func object(_ out: CommandOutput) throws -> [String: Any] {
        try #require(try json(out) as? [String: Any], "not a JSON object: \(out.stdout) \(out.stderr)")
    }

    // MARK: tweets

    @Test func tweetsPrintsRelativeAgesAtEveryBoundary() async throws {
        let cache = try await InspectFixture.shared.cache()
        let out = try await run(["tweets", "--json", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(out.status == 0, "\(out.stderr)")
        let rows = try objects(out)
        let ages = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0["age"] as? String ?? "") })
        #expect(ages["101"] == "0m")
        #expect(ages["102"] == "1m")
        for b in InspectFixture.boundaries { #expect(ages[b.id] == b.age, "tweet \(b.id)") }
        // Newest first: the future tweet (109) tops the list, the year-old one ends it.
        #expect(rows.map { $0["id"] as? String } == ["109", "101", "102", "103", "104", "105", "106", "107", "108"])

        let text = try await run(["tweets", "--now", InspectFixture.nowArgument, "--color", "never"], cache: cache)
        #expect(text.stdout.contains("@dana Dana · 0m\n"))
        #expect(text.stdout.contains("@bob Bob · 23h 59m\n"))
        #expect(text.stdout.contains("@bob Bob · 364d\n"))
        #expect(!text.stdout.contains("\u{1B}["))
        // One camera per photo; URLs in their display form.
        #expect(text.stdout.contains("#ucd @bob example.com/story 📷📷\n"))
        #expect(text.stdout.contains("  plain words 📷\n"))
    }

    @Test func tweetsColoursEntitiesByCodePointRangesAfterEmoji() async throws {
        let cache = try await InspectFixture.shared.cache()
        let out = try await run(["tweets", "--user", "@DANA", "--color", "always", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(out.status == 0, "\(out.stderr)")
        let expected = "🏳️‍🌈👍🏽 e\u{301} \u{1B}[33m#ucd\u{1B}[0m \u{1B}[35m@bob\u{1B}[0m \u{1B}[36mexample.com/story\u{1B}[0m 📷📷"
        #expect(out.stdout.contains(expected), "\(out.stdout.debugDescription)")
        #expect(out.stdout.contains("\u{1B}[1m@dana\u{1B}[0m"))
        #expect(!out.stdout.contains("@bob Bob"))

        // NO_COLOR wins over auto, even though tests are not TTYs anyway.
        let plain = try await CommandRunner.run(bin, ["tweets", "--cache", cache.path], environment: ["NO_COLOR": "1"])
        #expect(!plain.stdout.contains("\u{1B}["))

        let rows = try objects(try await run(["tweets", "--json", "--tag", "UCD"], cache: cache))
        #expect(rows.count == 1)
        let entities = try #require(rows.first?["entities"] as? [[String: Any]])
        #expect(entities.map { $0["text"] as? String } == ["#ucd", "@bob", "example.com/story"])
        #expect(entities.first?["start"] as? Int == 10)
        #expect(entities.first?["end"] as? Int == 14)
        #expect(rows.first?["photos"] as? Int == 2)
    }

    @Test func tweetsFiltersAndLimits() async throws {
        let cache = try await InspectFixture.shared.cache()
        let bob = try objects(try await run(["tweets", "--json", "--user", "bob", "--limit", "3"], cache: cache))
        #expect(bob.map { $0["id"] as? String } == ["109", "103", "104"])
        let other = try objects(try await run(["tweets", "--json", "--tag", "#other"], cache: cache))
        #expect(other.count == 7)
    }

    @Test func tweetsFindsWordsInTextNamesAndHashtagsTheLastAsAPrefix() async throws {
        let cache = try await InspectFixture.shared.cache()
        func ids(_ args: [String]) async throws -> [String?] {
            let out = try await run(["tweets", "--json"] + args, cache: cache)
            #expect(out.status == 0, "\(args): \(out.stderr)")
            return try objects(out).map { $0["id"] as? String }
        }
        // Words of the text, the last one cut short, in any case.
        #expect(try await ids(["--text", "PLAIN wor"]) == ["102"])
        // Every word must be there: "plain" and "tweet" are never in one post.
        #expect(try await ids(["--text", "plain tweet"]) == [])
        // The author's handle or name finds all their posts; a hashtag its posts.
        #expect(try await ids(["--text", "dana"]) == ["101", "102"])
        #expect(try await ids(["--text", "ucd"]) == ["101"])
        // With the other filters and the limit, newest first.
        #expect(try await ids(["--text", "tweet 10", "--user", "bob", "--limit", "2"]) == ["109", "103"])
        #expect(try await ids(["--text", "tweet", "--tag", "ucd"]) == [])
        // Query syntax is only words to FTS5: quotes, stars and operators are not obeyed.
        #expect(try await ids(["--text", "\"plain\" OR * NEAR(tweet"]) == [])
        // Blank is no filter.
        #expect(try await ids(["--text", "  "]).count == 9)
    }

    // MARK: info

    @Test func infoShowsATweetsDetailSections() async throws {
        let cache = try await InspectFixture.shared.cache()
        let out = try await run(["info", "101", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(out.status == 0, "\(out.stderr)")
        for section in ["Images\n", "URLs\n  https://example.com/story\n", "Hashtags\n  #ucd\n", "Users\n  @bob\n"] {
            #expect(out.stdout.contains(section), "\(section) in \(out.stdout)")
        }
        #expect(out.stdout.contains("64x48"))
        // Empty sections are left out.
        let plain = try await run(["info", "102"], cache: cache)
        #expect(plain.stdout.contains("Images\n"))
        #expect(!plain.stdout.contains("Hashtags"))
        #expect(!plain.stdout.contains("URLs"))
        #expect(!plain.stdout.contains("Users"))

        let detail = try object(try await run(["info", "101", "--json"], cache: cache))
        #expect(detail["screen_name"] as? String == "dana")
        #expect((detail["images"] as? [[String: Any]])?.count == 2)
        #expect(detail["hashtags"] as? [String] == ["#ucd"])
        #expect(detail["users"] as? [String] == ["@bob"])
        #expect((detail["urls"] as? [[String: Any]])?.first?["expanded_url"] as? String == "https://example.com/story")

        let missing = try await run(["info", "999999999999999"], cache: cache)
        #expect(missing.status == 1)
    }

    @Test func infoShowsAnImageByPrefixOrURL() async throws {
        let cache = try await InspectFixture.shared.cache()
        let tweet = try object(try await run(["info", "101", "--json"], cache: cache))
        let hash = try #require((tweet["images"] as? [[String: Any]])?.first?["sha256"] as? String)
        let out = try await run(["info", String(hash.prefix(8))], cache: cache)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains(hash))
        #expect(out.stdout.contains("PNG"))
        #expect(out.stdout.contains("64x48"))
        #expect(out.stdout.contains("thumb 32"))
        #expect(out.stdout.contains("101 @dana photo #1"))

        let byURL = try object(try await run(["info", "https://pbs.twimg.com/media/P1?format=png&name=orig", "--json"], cache: cache))
        #expect(byURL["sha256"] as? String == hash)
        let image = try object(try await run(["info", hash, "--json"], cache: cache))
        #expect(image["format"] as? String == "PNG")
        #expect(image["width"] as? Int == 64)
        #expect(image["height"] as? Int == 48)
        #expect(image["orientation"] as? Int == 1)
        #expect(image["kind"] as? String == "photo")
        let derived = try #require(image["derived"] as? [[String: Any]])
        #expect(derived.contains { $0["kind"] as? String == "thumb" && $0["present"] as? Bool == true })
        // 64x48 fits in one tile: its tiles are cut on request, no pack is stored.
        #expect(!derived.contains { $0["kind"] as? String == "pack" })
        #expect((image["references"] as? [[String: Any]])?.first?["tweet_id"] as? String == "101")
    }

    @Test func anAmbiguousPrefixListsTheCandidates() async throws {
        let cache = try await InspectFixture.shared.copy()
        let tweet = try object(try await run(["info", "101", "--json"], cache: cache))
        let hash = try #require((tweet["images"] as? [[String: Any]])?.first?["sha256"] as? String)
        // A second blob name sharing the first five hex digits.
        let twin = String(hash.prefix(5)) + String(repeating: hash.hasSuffix("0") ? "1" : "0", count: 59)
        let shard = cache.appendingPathComponent("blobs/sha256/\(hash.prefix(2))")
        try Data("twin".utf8).write(to: shard.appendingPathComponent(twin))
        let out = try await run(["info", String(hash.prefix(5))], cache: cache)
        #expect(out.status == 1)
        #expect(out.stderr.contains("matches 2 images"))
        #expect(out.stderr.contains(hash))
        #expect(out.stderr.contains(twin))
        // One digit more is unique again.
        let unique = try await run(["info", String(hash.prefix(6))], cache: cache)
        #expect(unique.status == 0, "\(unique.stderr)")
        let tooShort = try await run(["info", "abc"], cache: cache)
        #expect(tooShort.status == 2)
    }

    // MARK: ls, stats

    @Test func lsListsImagesByKindAndSize() async throws {
        let cache = try await InspectFixture.shared.cache()
        let all = try objects(try await run(["ls", "--json", "--sort", "size"], cache: cache))
        #expect(all.count == 5)  // P1, P2, P3 and two avatars
        let sizes = all.compactMap { $0["bytes"] as? Int }
        #expect(sizes == sizes.sorted(by: >))
        let avatars = try objects(try await run(["ls", "--json", "--type", "avatar"], cache: cache))
        #expect(avatars.count == 2)
        // Typed arguments: a wrong value is refused with the values there are.
        let wrong = try await run(["ls", "--type", "selfie"], cache: cache)
        #expect(wrong.status == 64 && wrong.stderr.contains("photo") && wrong.stderr.contains("unreferenced"), "\(wrong.stderr)")
        let avatarUsers: Set<String> = Set(avatars.flatMap { $0["users"] as? [String] ?? [] })
        #expect(avatarUsers == ["dana", "bob"])
        let dana = try objects(try await run(["ls", "--json", "--user", "dana", "--type", "photo"], cache: cache))
        #expect(dana.count == 3)
        // Words, as `tweets --text`: post 102's photo and its author's avatar; a
        // hashtag's photos; words no post holds list nothing, not everything.
        let plain = try objects(try await run(["ls", "--json", "--text", "plain wor"], cache: cache))
        let kinds: [String] = plain.map { $0["kind"] as? String ?? "" }.sorted()
        #expect(kinds == ["avatar", "photo"])
        #expect(plain.contains { $0["width"] as? Int == 30 && $0["height"] as? Int == 60 })
        let ucd = try objects(try await run(["ls", "--json", "--text", "#UCD", "--type", "photo"], cache: cache))
        #expect(Set(ucd.compactMap { $0["width"] as? Int }) == [64, 40])
        #expect(try objects(try await run(["ls", "--json", "--text", "nowhere"], cache: cache)).isEmpty)
        let text = try await run(["ls", "--type", "photo"], cache: cache)
        #expect(text.stdout.split(separator: "\n").count == 3)
        #expect(text.stdout.contains("64x48"))
        #expect(text.stdout.contains("@dana"))
        let bad = try await run(["ls", "--type", "gif"], cache: cache)
        #expect(bad.status != 0)
    }

    @Test func statsCountsKindsBytesAndDeduplication() async throws {
        let cache = try await InspectFixture.shared.cache()
        let stats = try object(try await run(["stats", "--json"], cache: cache))
        #expect(stats["tweets"] as? Int == 9)
        #expect(stats["blobs"] as? Int == 5)
        #expect(stats["images_by_kind"] as? [String: Int] == ["photo": 3, "avatar": 2])
        let stored = try #require(stats["bytes_stored"] as? Int)
        let referenced = try #require(stats["bytes_referenced"] as? Int)
        let saved = try #require(stats["bytes_saved_by_deduplication"] as? Int)
        // dana's avatar is used by 2 tweets, bob's by 7: stored once each.
        #expect(referenced > stored)
        #expect(saved == referenced - stored)
        #expect((stats["derived_bytes"] as? Int ?? 0) > 0)
        #expect((stats["largest"] as? [[String: Any]])?.count == 5)
        let text = try await run(["stats"], cache: cache)
        #expect(text.stdout.contains("images            5 (3 photo, 2 avatar)"))
        #expect(text.stdout.contains("deduplication saved"))
    }

    // MARK: verify

    /// A manifest planted with another photo's hash for a post's URL would make `info`
    /// and the viewer show the wrong photo: verify says where it disagrees with the index.
    @Test func verifyReportsAManifestThatDisagreesWithTheIndex() async throws {
        let cache = try await InspectFixture.shared.copy()
        let p2 = try #require(try object(try await run(
            ["info", "https://pbs.twimg.com/media/P2?format=png&name=orig", "--json"], cache: cache))["sha256"] as? String)
        let p3 = try #require(try object(try await run(
            ["info", "https://pbs.twimg.com/media/P3?format=png&name=orig", "--json"], cache: cache))["sha256"] as? String)
        let manifests = cache.appendingPathComponent("manifests")
        let own = try #require(try FileManager.default.contentsOfDirectory(atPath: manifests.path)
            .filter { $0.hasSuffix(".json.zst") && !$0.hasPrefix(".") }
            .first { try manifestText(manifests.appendingPathComponent($0)).contains(p2) })
        // Planted as plain JSON, as a manifest of an earlier version: read alike.
        let text = try manifestText(manifests.appendingPathComponent(own))
        try text.replacingOccurrences(of: p2, with: p3)
            .write(to: manifests.appendingPathComponent("20990101T000000Z-planted.json"), atomically: true, encoding: .utf8)
        let found = try await run(["verify", "--json"], cache: cache)
        #expect(found.status == 1, "\(found.stdout) \(found.stderr)")
        let problems = try #require(try object(found)["problems"] as? [[String: Any]])
        let disagreement = try #require(problems.first { $0["kind"] as? String == "manifest_disagrees" }, "\(problems)")
        #expect((disagreement["path"] as? String ?? "").hasSuffix("20990101T000000Z-planted.json"))
        #expect((disagreement["detail"] as? String ?? "").contains("https://pbs.twimg.com/media/P2"))
        #expect(disagreement["sha256"] as? String == p3)
        #expect(problems.filter { $0["kind"] as? String == "manifest_disagrees" }.count == 1, "the cache's own manifests agree")
    }

    /// A byte changed inside a compressed manifest's frame (bit rot, a bad copy) fails
    /// that frame's checksum: verify names the manifest, and the rest is checked as before.
    @Test func verifyReportsAManifestThatDoesNotRead() async throws {
        let cache = try await InspectFixture.shared.copy()
        let manifests = cache.appendingPathComponent("manifests")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: manifests.path)
            .filter { $0.hasSuffix(".json.zst") && !$0.hasPrefix(".") }.sorted().first)
        let url = manifests.appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[bytes.count / 3] ^= 0x20  // inside the first frame (the table is at the end)
        try Data(bytes).write(to: url)
        let found = try await run(["verify", "--json"], cache: cache)
        #expect(found.status == 1, "\(found.stdout) \(found.stderr)")
        let problems = try #require(try object(found)["problems"] as? [[String: Any]])
        let unreadable = problems.filter { $0["kind"] as? String == "manifest_unreadable" }
        #expect(unreadable.count == 1, "\(problems)")
        // Bound first: `#expect` reads `a?[…] as? T ?? d` as an optional chain and would check nothing.
        let path = unreadable.first?["path"] as? String ?? "", detail = unreadable.first?["detail"] as? String ?? ""
        #expect(path.hasSuffix(name))
        #expect(detail.contains("does not read"))
    }

    @Test func verifyCatchesAFlippedByteAndADeletedDerivedFile() async throws {
        let cache = try await InspectFixture.shared.copy()
        let clean = try await run(["verify"], cache: cache)
        #expect(clean.status == 0, "\(clean.stdout) \(clean.stderr)")
        #expect(clean.stdout.contains("verified 5 blobs"))
        #expect(clean.stdout.contains("no problems"))

        let image = try object(try await run(["info", "https://pbs.twimg.com/media/P2?format=png&name=orig", "--json"], cache: cache))
        let blob = URL(fileURLWithPath: try #require(image["path"] as? String))
        var bytes = try [UInt8](Data(contentsOf: blob))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: blob)
        let other = try object(try await run(["info", "https://pbs.twimg.com/media/P3?format=png&name=orig", "--json"], cache: cache))
        let thumb = try #require((other["derived"] as? [[String: Any]])?.first { $0["kind"] as? String == "thumb" }?["path"] as? String)
        try FileManager.default.removeItem(at: cache.appendingPathComponent(thumb))

        let damaged = try await run(["verify", "--json"], cache: cache)
        #expect(damaged.status == 1)
        let report = try object(damaged)
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(problems.contains { $0["kind"] as? String == "corrupt_blob" && $0["sha256"] as? String == image["sha256"] as? String })
        #expect(problems.contains { $0["kind"] as? String == "missing_derived" && ($0["path"] as? String ?? "").hasSuffix(thumb) })
        #expect(report["remaining"] as? Int == 2)
        let text = try await run(["verify"], cache: cache)
        #expect(text.status == 1)
        #expect(text.stdout.contains("corrupt_blob"))
        #expect(text.stdout.contains("missing_derived"))

        let repaired = try await run(["verify", "--repair", "--json"], cache: cache)
        #expect(repaired.status == 0, "\(repaired.stdout)")
        #expect(try object(repaired)["remaining"] as? Int == 0)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(thumb).path))
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("quarantine/\(blob.lastPathComponent)").path))
        let after = try await run(["verify"], cache: cache)
        #expect(after.status == 0, "\(after.stdout)")
    }

    // MARK: show

    @Test func showDrawsHalfBlocksOrKitty() async throws {
        let cache = try await InspectFixture.shared.cache()
        let out = try await run(["show", "https://pbs.twimg.com/media/P1?format=png&name=orig", "--width", "8", "--protocol", "blocks"], cache: cache)
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\n")
        // 64x48 at 8 cells wide: 8x6 pixels, 3 rows of 8 half blocks.
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.filter { $0 == "▀" }.count == 8 })
        #expect(out.stdout.contains("\u{1B}[38;2;"))
        #expect(out.stdout.contains("\u{1B}[48;2;"))
        // A tweet id shows its first photo.
        let byTweet = try await run(["show", "101", "--width", "8", "--protocol", "blocks"], cache: cache)
        #expect(byTweet.stdout == out.stdout)
        let kitty = try await CommandRunner.run(bin, ["show", "101", "--width", "8", "--cache", cache.path],
                                                environment: ["TERM": "xterm-kitty"])
        #expect(kitty.stdout.hasPrefix("\u{1B}_Gf=100,a=T"))
        let iterm = try await run(["show", "101", "--protocol", "iterm"], cache: cache)
        #expect(iterm.stdout.hasPrefix("\u{1B}]1337;File=inline=1"))
    }

    // MARK: history

    @Test func historyOrdersMovesRepeatsToTopAndKeeps100() async throws {
        let cache = try await InspectFixture.shared.copy()
        // The fixture's fetch recorded itself.
        let first = try objects(try await run(["history", "--json"], cache: cache))
        #expect(first.count == 1)
        #expect(first.first?["api"] as? String == "files")

        // 100 older searches (one without the newer `files` field, as old files have).
        var searches: [String] = []
        for i in 0..<100 {
            searches.append(##"{"query":"#q\##(i)","api":"v2","at":"2025-01-01T00:\##(String(format: "%02d", 59 - i % 60)):00Z","pages":1,"tweets":\##(i)}"##)
        }
        let history = cache.appendingPathComponent("history.json")
        try Data(##"{"searches":["## .appending(searches.joined(separator: ",")).appending("]}").utf8).write(to: history)
        #expect(try objects(try await run(["history", "--json"], cache: cache)).count == 100)

        // A fetch goes on top, the oldest falls off.
        let page = cache.deletingLastPathComponent().appendingPathComponent("page.json")
        let fetched = try await CommandRunner.run(bin, ["fetch", page.path, "--cache", cache.path, "--quiet", "--tiles", "none"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        var rows = try objects(try await run(["history", "--json"], cache: cache))
        #expect(rows.count == 100)
        #expect(rows.first?["api"] as? String == "files")
        #expect(rows.first?["files"] as? [String] == [page.standardizedFileURL.path])
        #expect(rows[1]["query"] as? String == "#q0")
        #expect(!rows.contains { $0["query"] as? String == "#q99" })
        #expect(rows.map { $0["number"] as? Int } == (1...100).map { $0 })

        // Entry 3 (#q1) cannot be replayed: its pages are not saved; the message says what to run.
        let noPages = try await run(["fetch", "--again", "3"], cache: cache)
        #expect(noPages.status == 1)
        #expect(noPages.stderr.contains("tweetcache search '#q1' --api v2"))

        // Re-running entry 1 moves it to the top again without a duplicate.
        let again = try await CommandRunner.run(bin, ["fetch", "--again", "1", "--cache", cache.path, "--json", "--tiles", "none"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"tweets\" : 9"))
        rows = try objects(try await run(["history", "--json"], cache: cache))
        #expect(rows.count == 100)
        #expect(rows.filter { $0["api"] as? String == "files" }.count == 1)

        let text = try await run(["history", "--now", "2025-01-01T01:00:00Z"], cache: cache)
        #expect(text.stdout.contains("  2  1m "))
        #expect(text.stdout.contains("search v2    #q0"))

        let cleared = try await run(["history", "--clear"], cache: cache)
        #expect(cleared.status == 0)
        #expect(try objects(try await run(["history", "--json"], cache: cache)).isEmpty)
        let gone = try await run(["fetch", "--again", "1"], cache: cache)
        #expect(gone.status == 2)
    }

    // MARK: gc

    @Test func gcKeepsWhatAFetchMayUseAndRemovesTheRest() async throws {
        let cache = try await InspectFixture.shared.copy()
        // The copy's manifest was written by an earlier run, not in this second: gc
        // judges "newer than the newest manifest" at one-second resolution, and a
        // fast fetch right after the copy would land in the same second.
        let manifests = cache.appendingPathComponent("manifests")
        for name in try FileManager.default.contentsOfDirectory(atPath: manifests.path) {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)],
                                                  ofItemAtPath: manifests.appendingPathComponent(name).path)
        }
        // Its generated_at may be from this very second too (the template can be made
        // just before this test); generated_at has whole seconds and the new rows do
        // not, so they are still newer: no need to wait for the second to change.
        // A second run caches P4; its manifest is then deleted, so nothing references P4.
        let extra = #"{"statuses":[{"id_str":"201","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"x","extended_entities":{"media":[\#(InspectFixture.photo("P4"))]},"user":\#(InspectFixture.user("bob"))}]}"#
        let fetched = try await InspectFixture.fetch(extra, into: cache, named: "extra.json")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: manifests.path)
        #expect(names.count == 2)
        let extraManifest = try #require(names.first { name in
            (try? manifestText(manifests.appendingPathComponent(name)))?.contains("\"201\"") == true
        })
        try FileManager.default.removeItem(at: manifests.appendingPathComponent(extraManifest))

        // Default grace period: everything is under an hour old, nothing goes.
        let young = try object(try await run(["gc", "--json"], cache: cache))
        #expect((young["removed"] as? [Any])?.isEmpty == true)
        #expect((young["protected"] as? Int ?? 0) >= 1)
        // No grace period, but P4's rows are newer than the newest manifest: a fetch
        // still running looks exactly like this, so it stays.
        let running = try object(try await run(["gc", "--json", "--grace", "0"], cache: cache))
        #expect((running["removed"] as? [Any])?.isEmpty == true)
        #expect(running["protected"] as? Int == 1)

        // A later run writes a newer manifest (without P4): now P4 is garbage.
        let page = cache.deletingLastPathComponent().appendingPathComponent("page.json")
        let rerun = try await CommandRunner.run(bin, ["fetch", page.path, "--cache", cache.path, "--quiet"])
        #expect(rerun.status == 0)
        // No wait: the newest manifest counts from its file's second + 1, after every row it follows.
        let dry = try await run(["gc", "--dry-run", "--grace", "0"], cache: cache)
        #expect(dry.stdout.contains("would remove"))
        #expect(dry.stdout.contains("unreferenced"))
        let report = try object(try await run(["gc", "--json", "--grace", "0"], cache: cache))
        let removed = try #require(report["removed"] as? [[String: Any]])
        #expect(removed.filter { $0["reason"] as? String == "unreferenced" }.count == 1)
        let sha = try #require(removed.first?["sha256"] as? String)
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("blobs/sha256/\(sha.prefix(2))/\(sha)").path))
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("derived/\(sha.prefix(2))/\(sha)").path))
        #expect((report["bytes_freed"] as? Int ?? 0) > 0)
        let verify = try await run(["verify"], cache: cache)
        #expect(verify.status == 0, "\(verify.stdout)")

        // A budget evicts least recently used blobs until the rest fits.
        let budget = try object(try await run(["gc", "--json", "--grace", "0", "--max-size", "1KB"], cache: cache))
        #expect((budget["removed"] as? [[String: Any]])?.allSatisfy { $0["reason"] as? String == "over_budget" } == true)
        #expect((budget["bytes_remaining"] as? Int ?? .max) <= 1024)
    }

    // MARK: export

    @Test func exportCopiesOrLinksOriginalsUnderReadableNames() async throws {
        let cache = try await InspectFixture.shared.cache()
        let out = try InspectFixture.tempDir()
        let result = try await run(["export", "--user", "dana", "--out", out.path, "--json"], cache: cache)
        #expect(result.status == 0, "\(result.stderr)")
        let items = try objects(result)
        #expect(items.count == 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["dana_101_1.png", "dana_101_2.png", "dana_102_1.png"])
        #expect(items.allSatisfy { $0["action"] as? String == "copied" })
        let again = try objects(try await run(["export", "--user", "dana", "--out", out.path, "--json"], cache: cache))
        #expect(again.allSatisfy { $0["action"] as? String == "exists" })

        let linked = try InspectFixture.tempDir()
        let text = try await run(["export", "--tag", "ucd", "--out", linked.path, "--link", "--name", "{tweet_id}-{n}-{screen_name}.{ext}"], cache: cache)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("exported 2 files (2 linked)"))
        let file = linked.appendingPathComponent("101-1-dana.png")
        let links = try FileManager.default.attributesOfItem(atPath: file.path)[.referenceCount] as? Int
        #expect((links ?? 0) >= 2)
        // Words, as `tweets --text` finds them: only 102's photo.
        let found = try InspectFixture.tempDir()
        let words = try objects(try await run(["export", "--text", "plain words", "--out", found.path, "--json"], cache: cache))
        #expect(words.map { $0["tweet_id"] as? String } == ["102"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: found.path) == ["dana_102_1.png"])
        let bad = try await run(["export", "--out", linked.path, "--name", "{screen_name}.{ext}"], cache: cache)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("tell files apart"))
    }

    // MARK: reindex and the catalog

    @Test func reindexRebuildsAndEveryReaderRecoversALostOrDamagedCatalog() async throws {
        // A copy of the pristine template (no process has it open, so no SQLite file
        // vanishes mid-copy): a rebuild empties the catalog other tests are reading.
        let cache = try await InspectFixture.shared.copy()
        let before = try await run(["tweets", "--json", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(before.status == 0, "\(before.stderr)")

        let reindex = try await run(["reindex"], cache: cache)
        #expect(reindex.status == 0, "\(reindex.stderr)")
        #expect(reindex.stdout.hasPrefix("catalog rebuilt: 9 posts"), "\(reindex.stdout)")

        // Deleted behind its back: the next reader makes it anew from the manifests.
        let catalog = cache.appendingPathComponent("catalog.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: catalog.path + suffix) }
        let afterDelete = try await run(["tweets", "--json", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(afterDelete.status == 0, "\(afterDelete.stderr)")
        #expect(afterDelete.stdout == before.stdout)

        // Overwritten with garbage: the same.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: catalog.path + suffix) }
        try Data(repeating: 0x41, count: 4096).write(to: catalog)
        let afterGarbage = try await run(["tweets", "--json", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(afterGarbage.status == 0, "\(afterGarbage.stderr)")
        #expect(afterGarbage.stdout == before.stdout)

        // A file in manifests/ that is not a manifest is named, and the rest still answers.
        try Data("[1, 2, 3]".utf8).write(to: cache.appendingPathComponent("manifests/zz-not-a-manifest.json"))
        let withProblem = try await run(["tweets", "--json", "--now", InspectFixture.nowArgument], cache: cache)
        #expect(withProblem.status == 0)
        #expect(withProblem.stdout == before.stdout)
        #expect(withProblem.stderr.contains("zz-not-a-manifest.json: not a TweetCache manifest"), "\(withProblem.stderr)")
    }
}
