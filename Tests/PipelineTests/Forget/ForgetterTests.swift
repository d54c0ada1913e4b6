import CacheCore
import BlobStore
import Catalog
import Foundation
import MediaFetch
import Synchronization
import Testing
import TestSupport
import TweetModel
@testable import Pipeline

/// A v2 page, saved as `search` saves pages: dora's post 301 ("Zebracorn", a photo
/// of its own and one that is gone), erin's repost of it (304), erin's 302 and dora's
/// 303 sharing a photo, and 301 again as an included copy (erin's repost names it).
let forgetPage = """
{"data":[
 {"id":"301","text":"Zebracorn parade at dawn","author_id":"40","created_at":"2024-05-01T10:00:00.000Z",
  "attachments":{"media_keys":["3_301","3_309"]}},
 {"id":"302","text":"Quietly kept","author_id":"41","created_at":"2024-05-01T11:00:00.000Z",
  "attachments":{"media_keys":["3_777"]}},
 {"id":"303","text":"Dora keeps this one","author_id":"40","created_at":"2024-05-01T12:00:00.000Z",
  "attachments":{"media_keys":["3_777"]}},
 {"id":"304","text":"RT @dora: Zebracorn parade at dawn","author_id":"41","created_at":"2024-05-01T13:00:00.000Z",
  "referenced_tweets":[{"type":"retweeted","id":"301"}]}],
 "includes":{
  "media":[{"media_key":"3_301","type":"photo","url":"https://pbs.twimg.com/media/Zebra301.jpg"},
           {"media_key":"3_309","type":"photo","url":"https://pbs.twimg.com/media/GoneZebra309.jpg"},
           {"media_key":"3_777","type":"photo","url":"https://pbs.twimg.com/media/Shared777.jpg"}],
  "users":[{"id":"40","username":"dora","name":"Dora","profile_image_url":"https://pbs.twimg.com/profile_images/40/dora_normal.jpg"},
           {"id":"41","username":"erin","name":"Erin","profile_image_url":"https://pbs.twimg.com/profile_images/41/erin_normal.jpg"}],
  "tweets":[{"id":"301","text":"Zebracorn parade at dawn","author_id":"40","created_at":"2024-05-01T10:00:00.000Z",
   "attachments":{"media_keys":["3_301","3_309"]}}]},
 "meta":{"result_count":4,"newest_id":"304","oldest_id":"301"}}
"""

func forgetOrigin() throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { req in forgetOriginAnswer(req) }
}

func forgetOriginAnswer(_ req: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        let p = req.path
        if p.contains("Zebra301") { return .respond(status: 200, body: TinyPNG.make(width: 300, height: 200, tag: "zebra")) }
        if p.contains("Shared777") { return .respond(status: 200, body: TinyPNG.make(width: 200, height: 300, tag: "shared")) }
        if p.contains("dora_400x400") { return .respond(status: 200, body: jpegLike(6_000, seed: 40)) }
        if p.contains("erin_400x400") { return .respond(status: 200, body: jpegLike(6_000, seed: 41)) }
        return .respond(status: 404)
}

/// A cache that fetched ``forgetPage`` twice (two runs: the post has an older copy),
/// with the page saved under `results/` as a search saves it.
func forgetCache() async throws -> (cache: URL, origin: LoopbackHTTPServer, page: URL) {
    let origin = try forgetOrigin()
    let cache = try temporaryDirectory()
    let results = cache.appendingPathComponent("results")
    try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
    let page = results.appendingPathComponent("20240501T130000Z-v2-zebra-p1.json")
    try Data(forgetPage.utf8).write(to: page)
    for _ in 0..<2 {
        _ = try await CachePipeline(options: try forgetOptions(cache: cache, origin: origin)).run([try ResultsInput.read(page.path)])
    }
    return (cache, origin, page)
}

/// Thumbnails at one size, no tiles: the forget is what is tested.
func forgetOptions(cache: URL, origin: LoopbackHTTPServer) throws -> PipelineOptions {
    var options = try makeOptions(cache: cache, origin: origin)
    var derive = DeriveOptions()
    derive.thumbnailSizes = [150]
    derive.tiles = .none
    options.derive = derive
    return options
}

@Suite struct ForgetterTests {
    let zebra = BlobHash(hashing: TinyPNG.make(width: 300, height: 200, tag: "zebra"))
    let shared = BlobHash(hashing: TinyPNG.make(width: 200, height: 300, tag: "shared"))
    let doraAvatar = BlobHash(hashing: jpegLike(6_000, seed: 40))

    @Test func aForgottenPostLeavesNoByteBehindAndItsRepostGoesWithIt() async throws {
        let (cache, origin, page) = try await forgetCache()
        // The cache holds the words everywhere a post goes.
        let before = filesHolding("Zebracorn", under: cache)
        #expect(before.contains { $0.hasPrefix("manifests/") })
        #expect(before.contains("catalog.sqlite") || before.contains("catalog.sqlite-wal"))
        #expect(before.contains("results/20240501T130000Z-v2-zebra-p1.json"))
        #expect(filesHolding("GoneZebra309", under: cache).contains("index.sqlite") || filesHolding("GoneZebra309", under: cache).contains("index.sqlite-wal"))
        let store = try BlobStore(root: cache)
        #expect(store.contains(zebra) && !store.derivedEntries(of: zebra).isEmpty)

        let report = try await Forgetter(layout: CacheLayout(root: cache)).run([Forgetter.Request(key: PostIdentity(network: .x, id: "301"), reason: "deleted")])
        #expect(report.posts == ["x:301"])
        #expect(report.reposts == ["x:304"])
        #expect(report.manifestsRewritten == 2)
        #expect(report.pagesRewritten == 1)
        #expect(report.blobsDeleted == 1)
        #expect(report.bytesFreed >= TinyPNG.make(width: 300, height: 200, tag: "zebra").count)

        // Not a byte of it anywhere in the cache: words, media URLs, the failed URL.
        for text in ["Zebracorn", "Zebra301", "GoneZebra309", "3_301"] {
            #expect(filesHolding(text, under: cache) == [], "\(text)")
        }
        // Its id only in the tombstone log (and the page's `newest_id`/`oldest_id`, ids the API wrote).
        let log = try TombstoneLog(cacheRoot: cache).read()
        #expect(log.tombstones.map(\.key) == [PostIdentity(network: .x, id: "301"), PostIdentity(network: .x, id: "304")])
        #expect(log.tombstones.map(\.reason) == ["deleted", "repost"])
        #expect(!TombstoneLog(cacheRoot: cache).isPending)

        // Its own photo is gone with its thumbnail; the photo another post uses and
        // dora's avatar (dora's other post stays) are kept.
        #expect(!store.contains(zebra))
        #expect(store.derivedEntries(of: zebra).isEmpty)
        #expect(store.contains(shared) && store.contains(doraAvatar))
        let index = try CacheIndex(path: store.indexURL)
        #expect(try index.blob(zebra) == nil)
        #expect(try index.blob(shared) != nil)

        // The catalog answers without it, and agrees with a catalog read anew.
        let catalog = try PostCatalog(cacheRoot: cache)
        let refresh = try catalog.refresh()
        #expect(!refresh.rebuilt, "the rewritten manifests are recorded: no new read")
        #expect(try catalog.known([PostIdentity(network: .x, id: "301"), PostIdentity(network: .x, id: "304")]).isEmpty)
        #expect(try catalog.known([PostIdentity(network: .x, id: "302"), PostIdentity(network: .x, id: "303")]).count == 2)
        try catalog.rebuild()
        #expect(try catalog.known([PostIdentity(network: .x, id: "302"), PostIdentity(network: .x, id: "303")]).count == 2)
        #expect(try catalog.known([PostIdentity(network: .x, id: "301")]).isEmpty)

        // The page is still the API's answer, without the post, its repost and what only they used.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: page)) as? [String: Any])
        #expect((json["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["302", "303"])
        let includes = try #require(json["includes"] as? [String: Any])
        #expect((includes["tweets"] as? [Any])?.isEmpty == true)
        #expect((includes["media"] as? [[String: Any]])?.compactMap { $0["media_key"] as? String } == ["3_777"])
        #expect((includes["users"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["40", "41"])
        #expect(try Data(contentsOf: page).count == forgetPage.utf8.count, "rewritten in place: every other byte where it was")

        // Fetching the old page again does not bring them back.
        let again = try await CachePipeline(options: try forgetOptions(cache: cache, origin: origin)).run([ResultsInput(name: "old.json", data: Data(forgetPage.utf8))])
        let manifest = try again.manifest
        #expect(manifest.tweets.map(\.id) == ["302", "303"])
        #expect(manifest.includedTweets.isEmpty)
        #expect(manifest.summary.forgotten == 2)
        #expect(origin.requestCount(path: "/pbs/media/Zebra301") == 1, "fetched by the first run only, never after the forget")
        #expect(try await ManifestSchema.problems([again.manifestURL]) == "")
    }

    @Test func aForgetWhileARunGoesReachesWhatTheRunWrote() async throws {
        let cache = try temporaryDirectory()
        let forgotten = Mutex(false)
        // The forget happens while the run fetches the posts' media: the run already
        // decided to keep 301, and its manifest is not written yet for a forget to find.
        let origin = try LoopbackHTTPServer { req in
            let first = req.path.contains("Zebra301") && forgotten.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first {
                try? TombstoneLog(cacheRoot: cache).append([Tombstone(key: PostIdentity(network: .x, id: "301"), forgottenAt: Date(), reason: "deleted")])
            }
            return forgetOriginAnswer(req)
        }
        let run = try await CachePipeline(options: try forgetOptions(cache: cache, origin: origin))
            .run([ResultsInput(name: "page.json", data: Data(forgetPage.utf8))])
        #expect(forgotten.withLock { $0 })
        let manifest = try Manifest.read(from: run.manifestURL)
        #expect(manifest.tweets.map(\.id) == ["302", "303"])
        #expect(filesHolding("Zebracorn", under: cache) == [])
        #expect(!(try BlobStore(root: cache)).contains(zebra))
    }

    @Test func anImageAnOlderCopyOfAKeptPostNamesStays() async throws {
        // Run 1: P and F by one author, avatar one. Run 2: P again, with avatar two.
        // The catalog's newest copy of P uses avatar two only; run 1's copy of P still
        // names avatar one, which a forget of F must therefore keep.
        func page(_ posts: [(String, String)], avatar: String) -> Data {
            let data = posts.map { #"{"id":"\#($0.0)","text":"\#($0.1)","author_id":"50","created_at":"2024-05-01T10:00:00.000Z"}"# }
            return Data(#"{"data":[\#(data.joined(separator: ","))],"includes":{"users":[{"id":"50","username":"fay","name":"Fay","profile_image_url":"https://pbs.twimg.com/profile_images/50/\#(avatar)_normal.jpg"}]}}"#.utf8)
        }
        let origin = try LoopbackHTTPServer { req in
            if req.path.contains("one_400x400") { return .respond(status: 200, body: jpegLike(5_000, seed: 501)) }
            if req.path.contains("two_400x400") { return .respond(status: 200, body: jpegLike(5_000, seed: 502)) }
            return .respond(status: 404)
        }
        let cache = try temporaryDirectory()
        _ = try await CachePipeline(options: try forgetOptions(cache: cache, origin: origin))
            .run([ResultsInput(name: "one.json", data: page([("501", "kept post"), ("502", "Forgettable words")], avatar: "one"))])
        _ = try await CachePipeline(options: try forgetOptions(cache: cache, origin: origin))
            .run([ResultsInput(name: "two.json", data: page([("501", "kept post")], avatar: "two"))])
        let avatarOne = BlobHash(hashing: jpegLike(5_000, seed: 501))
        let store = try BlobStore(root: cache)
        #expect(store.contains(avatarOne))
        let report = try await Forgetter(layout: CacheLayout(root: cache)).run([Forgetter.Request(key: PostIdentity(network: .x, id: "502"), reason: "deleted")])
        #expect(report.posts == ["x:502"])
        #expect(report.blobsDeleted == 0)
        #expect(store.contains(avatarOne), "run 1's copy of the kept post still names it")
        #expect(try CacheIndex(path: store.indexURL).blob(avatarOne) != nil)
        #expect(filesHolding("Forgettable", under: cache) == [])
    }

    @Test func aDryRunSaysWhatWouldGoAndChangesNothing() async throws {
        let (cache, _, _) = try await forgetCache()
        let before = try snapshot(cache)
        let report = try await Forgetter(layout: CacheLayout(root: cache)).run(
            [Forgetter.Request(key: PostIdentity(network: .x, id: "301"), reason: "deleted"),
             Forgetter.Request(key: PostIdentity(network: .x, id: "999"), reason: "deleted")], dryRun: true)
        #expect(report.dryRun)
        #expect(report.asked == 2)
        #expect(report.posts == ["x:301"])
        #expect(report.reposts == ["x:304"])
        #expect(report.manifestsRewritten == 2 && report.pagesRewritten == 1)
        #expect(report.blobsDeleted == 1 && report.bytesFreed >= TinyPNG.make(width: 300, height: 200, tag: "zebra").count)
        #expect(report.text.contains("would forget 1 of 2 posts"))
        let after = try snapshot(cache)
        #expect(after == before, "changed: \(Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }.sorted())")
        #expect(!FileManager.default.fileExists(atPath: TombstoneLog(cacheRoot: cache).url.path))
        #expect(try PostCatalog(cacheRoot: cache).known([PostIdentity(network: .x, id: "301"), PostIdentity(network: .x, id: "304")]).count == 2)
    }

    @Test func aForgetCutShortIsFinishedByTheNext() async throws {
        let (cache, _, page) = try await forgetCache()
        var forgetter = Forgetter(layout: CacheLayout(root: cache))
        forgetter.stopAfterRewrites = 1
        await #expect(throws: ForgetError.stopped) {
            try await forgetter.run([Forgetter.Request(key: PostIdentity(network: .x, id: "301"), reason: "deleted")])
        }
        // The tombstone is written and the work marked under way; one manifest is done.
        #expect(TombstoneLog(cacheRoot: cache).isPending)
        #expect(try TombstoneLog(cacheRoot: cache).keys().contains(PostIdentity(network: .x, id: "301")))
        let manifests = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("manifests").path)
            .filter { $0.hasSuffix(".json.zst") }
        let holding = manifests.filter { (try? manifestJSON(cache.appendingPathComponent("manifests/\($0)")))?.range(of: Data("Zebracorn".utf8)) != nil }
        #expect(holding.count == 1, "one manifest rewritten, one not yet")
        #expect(!manifests.contains { $0.hasPrefix(".") })
        // Readers meanwhile see a consistent catalog (read anew from the manifests).
        #expect(try PostCatalog.open(cacheRoot: cache).catalog.known([PostIdentity(network: .x, id: "302")]).count == 1)

        // `forget` with nothing asked finishes the job.
        let report = try await Forgetter(layout: CacheLayout(root: cache)).run([])
        #expect(report.resumed)
        #expect(report.posts == ["x:301"])
        #expect(!TombstoneLog(cacheRoot: cache).isPending)
        for text in ["Zebracorn", "Zebra301"] { #expect(filesHolding(text, under: cache) == [], "\(text)") }
        #expect(try Data(contentsOf: page).range(of: Data("Zebracorn".utf8)) == nil)
        // And once done, there is nothing left to do.
        let idle = try await Forgetter(layout: CacheLayout(root: cache)).run([])
        #expect(!idle.resumed && idle.posts.isEmpty)
    }

    @Test func complianceResultsAreReadLineByLine() {
        let lines = """
            {"id":"301","action":"delete","created_at":"2024-05-01T10:00:00.000Z","redacted_at":"2024-06-01T00:00:00.000Z","reason":"deleted"}
            {"id":"302","action":"delete","reason":"suspended"}
            {"id":"303","action":"scrub_geo","reason":"scrub_geo"}

            not json
            {"id":"abc","action":"delete"}
            {"id":"305","action":"undelete"}
            {"id":306,"action":"delete","reason":"protected"}
            """
        let file = ComplianceFile(data: Data(lines.utf8), name: "c.jsonl")
        #expect(file.requests.map(\.key.id) == ["301", "302", "306"])
        #expect(file.requests.map(\.reason) == ["deleted", "suspended", "protected"])
        #expect(file.requests.allSatisfy { $0.key.network == .x })
        #expect(file.unchanged == 1)
        #expect(file.problems.count == 3)
        #expect(file.problems[0].hasPrefix("c.jsonl:5:"))
        #expect(file.problems[1].contains("digits"))
        #expect(file.problems[2].contains("undelete"))
    }

    @Test func idsAreReadAsPeopleTypeThem() {
        #expect(PostIdentity(argument: "123") == PostIdentity(network: .x, id: "123"))
        #expect(PostIdentity(argument: "123", defaultNetwork: .mastodon) == PostIdentity(network: .mastodon, id: "123"))
        #expect(PostIdentity(argument: "mastodon:99") == PostIdentity(network: .mastodon, id: "99"))
        #expect(PostIdentity(argument: "at://did:plc:abc/app.bsky.feed.post/3k") == PostIdentity(network: .bluesky, id: "at://did:plc:abc/app.bsky.feed.post/3k"))
        #expect(PostIdentity(argument: "") == nil)
        #expect(PostIdentity(argument: "a b") == nil)
        #expect(PostIdentity(argument: String(repeating: "1", count: 600)) == nil)
    }

    @Test func pagesOfEveryNetworkLoseThePostAndWhatEmbedsIt() throws {
        // v1.1: the status, a retweet of it, and a quoted copy inside a kept status.
        let v1 = """
            {"statuses":[{"id":301,"id_str":"301","full_text":"Zebracorn","user":{"id_str":"40"}},
             {"id_str":"305","full_text":"RT","retweeted_status":{"id_str":"301","full_text":"Zebracorn"}},
             {"id_str":"306","full_text":"look","quoted_status":{"id_str":"301","full_text":"Zebracorn"},"is_quote_status":true}]}
            """
        // Mastodon: a status and a boost of it.
        let mastodon = """
            [{"id":"301","content":"<p>Zebracorn</p>","account":{"id":"301"}},{"id":"400","reblog":{"id":"301","content":"Zebracorn"}},
             {"id":"401","content":"kept"}]
            """
        // Bluesky: a post and a quote of it embedding its record.
        let bluesky = """
            {"posts":[{"uri":"at://did:plc:d/app.bsky.feed.post/301","record":{"text":"Zebracorn"}},
             {"uri":"at://did:plc:e/app.bsky.feed.post/9","record":{"text":"kept"},
              "embed":{"$type":"app.bsky.embed.record#view","record":{"uri":"at://did:plc:d/app.bsky.feed.post/301","value":{"text":"Zebracorn"}}}}]}
            """
        for (json, id, kept) in [(v1, "301", ["306"]), (mastodon, "301", ["401"]), (bluesky, "at://did:plc:d/app.bsky.feed.post/301", ["9"])] {
            var bytes = Array(json.utf8)
            let redaction = PageRedaction(ids: [id])
            let found = try #require(bytes.withUnsafeBytes { raw in redaction.mayHold(raw) ? redaction.blanks(raw) : nil })
            JSONBlanking.apply(JSONBlanking.normalized(found.blanks), to: &bytes)
            let out = String(decoding: bytes, as: UTF8.self)
            #expect(!out.contains("Zebracorn"), "\(out)")
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes))
            let list = (parsed as? [[String: Any]]) ?? ((parsed as? [String: Any])?["statuses"] ?? (parsed as? [String: Any])?["posts"]) as? [[String: Any]]
            let ids = (list ?? []).map {
                ($0["id_str"] ?? $0["id"]) as? String ?? ($0["uri"] as? String)?.split(separator: "/").last.map(String.init) ?? ""
            }
            #expect(ids == kept, "\(out)")
        }
        // A Bluesky feed item replying to the forgotten post carries it whole as its reply's root and parent.
        let feed = """
            {"feed":[{"post":{"uri":"at://did:plc:e/app.bsky.feed.post/9","record":{"text":"kept reply"}},
             "reply":{"root":{"uri":"at://did:plc:d/app.bsky.feed.post/301","record":{"text":"Zebracorn"}},
                      "parent":{"uri":"at://did:plc:d/app.bsky.feed.post/301","record":{"text":"Zebracorn"}}}}]}
            """
        var feedBytes = Array(feed.utf8)
        let feedRedaction = PageRedaction(ids: ["at://did:plc:d/app.bsky.feed.post/301"])
        let feedFound = try #require(feedBytes.withUnsafeBytes { feedRedaction.blanks($0) })
        JSONBlanking.apply(JSONBlanking.normalized(feedFound.blanks), to: &feedBytes)
        #expect(!String(decoding: feedBytes, as: UTF8.self).contains("Zebracorn"))
        let feedJSON = try #require(try JSONSerialization.jsonObject(with: Data(feedBytes)) as? [String: Any])
        #expect((feedJSON["feed"] as? [Any])?.count == 1)
        #expect(PageRedaction.network(ofPage: "20240501T130000Z-v2-zebra-p1.json") == .x)
        #expect(PageRedaction.network(ofPage: "20240501T130000Z-mastodon-zebra-p1.json") == .mastodon)
        #expect(PageRedaction.network(ofPage: "20240501T130000Z-bluesky-x-p2.json") == .bluesky)
        #expect(PageRedaction.network(ofPage: "page.json") == nil)
    }

    /// Every file's path and bytes' hash.
    func snapshot(_ root: URL) throws -> [String: BlobHash] {
        var files: [String: BlobHash] = [:]
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            // The catalog's file (its header's change counter moves as it is opened and
            // refreshed; what it holds is asked instead), SQLite's shared-memory index
            // and the lock files change as readers come and go.
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  !url.lastPathComponent.hasPrefix("catalog.sqlite"), !url.path.hasSuffix("-shm"),
                  !url.path.hasSuffix(".lock") else { continue }
            files[url.path] = BlobHash(hashing: try Data(contentsOf: url))
        }
        return files
    }
}
