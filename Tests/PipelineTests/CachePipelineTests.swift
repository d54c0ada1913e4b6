import BlobStore
import Catalog
import Foundation
import Hashing
import MediaFetch
import Testing
import TestSupport
@testable import Pipeline

/// Bytes that sniff as JPEG and differ per seed.
func jpegLike(_ n: Int, seed: Int) -> [UInt8] {
    var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1]
    var x = UInt32(truncatingIfNeeded: seed &* 2_654_435_761 &+ 1)
    while b.count < n { x ^= x << 13; x ^= x >> 17; x ^= x << 5; b.append(UInt8(truncatingIfNeeded: x)) }
    return b
}

/// A v1.1 page: alice posts twice (shared avatar), bob once with a photo that is gone
/// (404) and a photo that alice's tweet also has (same URL: fetched once).
let v1Page = """
{"statuses":[
 {"id_str":"101","created_at":"Wed Oct 10 20:19:24 +0000 2018","full_text":"Sunset #ucd https://t.co/a1",
  "entities":{"hashtags":[{"text":"ucd","indices":[7,11]}],"urls":[],"user_mentions":[],
    "media":[{"id_str":"9001","indices":[12,24],"media_url_https":"https://pbs.twimg.com/media/Photo0001.jpg","type":"photo","url":"https://t.co/a1"}]},
  "extended_entities":{"media":[
    {"id_str":"9001","indices":[12,24],"media_url_https":"https://pbs.twimg.com/media/Photo0001.jpg","type":"photo","url":"https://t.co/a1"},
    {"id_str":"9002","indices":[12,24],"media_url_https":"https://pbs.twimg.com/media/Photo0002.jpg","type":"photo","url":"https://t.co/a1"}]},
  "user":{"id_str":"1","screen_name":"alice","name":"Alice","profile_image_url_https":"https://pbs.twimg.com/profile_images/11/alice_normal.jpg"}},
 {"id_str":"102","created_at":"Wed Oct 10 21:19:24 +0000 2018","full_text":"No media here",
  "entities":{"hashtags":[],"urls":[],"user_mentions":[]},
  "user":{"id_str":"1","screen_name":"alice","name":"Alice","profile_image_url_https":"https://pbs.twimg.com/profile_images/11/alice_normal.jpg"}},
 {"id_str":"103","created_at":"Wed Oct 10 22:19:24 +0000 2018","full_text":"Two pics https://t.co/b1",
  "entities":{"hashtags":[],"urls":[],"user_mentions":[]},
  "extended_entities":{"media":[
    {"id_str":"9001","indices":[9,21],"media_url_https":"https://pbs.twimg.com/media/Photo0001.jpg","type":"photo","url":"https://t.co/b1"},
    {"id_str":"9003","indices":[9,21],"media_url_https":"https://pbs.twimg.com/media/Gone0003.jpg","type":"photo","url":"https://t.co/b1"}]},
  "user":{"id_str":"2","screen_name":"bob","name":"Bob","profile_image_url_https":"https://pbs.twimg.com/profile_images/22/bob_normal.jpg"}},
 {"created_at":"broken tweet without id"}
],"search_metadata":{"query":"%23ucd","count":4}}
"""

/// A v2 page by carol whose avatar exists only at the URL the API gave (no 400x400).
let v2Page = """
{"data":[{"id":"201","text":"Hello @alice","author_id":"3","created_at":"2024-05-01T10:00:00.000Z",
  "attachments":{"media_keys":["3_555"]},
  "entities":{"mentions":[{"start":6,"end":12,"username":"alice","id":"1"}]}}],
 "includes":{"media":[{"media_key":"3_555","type":"photo","url":"https://pbs.twimg.com/media/Carol555.png","width":800,"height":600}],
  "users":[{"id":"3","username":"carol","name":"Carol","profile_image_url":"https://pbs.twimg.com/profile_images/33/carol_normal.jpg"}]},
 "meta":{"result_count":1}}
"""

/// The origin for both pages, reached through `--mirror pbs.twimg.com=...`.
func makeOrigin() throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { req in
        let p = req.path
        if p.contains("Gone0003") || p.hasSuffix("carol_400x400.jpg") { return .respond(status: 404) }
        if p.contains("Photo0001") { return .respond(status: 200, body: jpegLike(40_000, seed: 1)) }
        if p.contains("Photo0002") { return .respond(status: 200, body: jpegLike(50_000, seed: 2)) }
        if p.contains("Carol555") { return .respond(status: 200, body: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + jpegLike(3000, seed: 5)) }
        if p.contains("alice_400x400") { return .respond(status: 200, body: jpegLike(8000, seed: 10)) }
        if p.contains("bob_400x400") { return .respond(status: 200, body: jpegLike(8000, seed: 11)) }
        // carol's avatar as given: the same bytes as alice's (dedup across URLs).
        if p.contains("carol_normal") { return .respond(status: 200, body: jpegLike(8000, seed: 10)) }
        return .respond(status: 404)
    }
}

func makeOptions(cache: URL, origin: LoopbackHTTPServer) throws -> PipelineOptions {
    var fetch = FetchConfiguration()
    fetch.mirrors = try MirrorMap(specs: ["pbs.twimg.com=\(origin.baseURL)/pbs"])
    fetch.backoffBase = .milliseconds(10)
    return PipelineOptions(cacheRoot: cache, fetch: fetch)
}

func temporaryDirectory() throws -> URL {
    try ScratchDirectory.make("tc")
}

let inputs = [
    ResultsInput(name: "v1.json", data: Data(v1Page.utf8)),
    ResultsInput(name: "v2.json", data: Data(v2Page.utf8)),
]

@Suite struct CachePipelineTests {
    @Test func linksEveryTweetToItsBytes() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let pipeline = try CachePipeline(options: try makeOptions(cache: cache, origin: origin))
        let run = try await pipeline.run(inputs)
        let m = try run.manifest
        let problems = try await ManifestSchema.problems([run.manifestURL])
        #expect(problems == "", "\(problems)")

        #expect(m.tweets.map(\.id) == ["101", "102", "103", "201"])
        // The broken tweet is reported with its position, and the run went on.
        #expect(m.sources[0].problems.count == 1)
        #expect(m.sources[0].problems.first?.location.contains("statuses[3]") == true)
        #expect(m.sources[0].query == "#ucd")

        let t101 = try #require(m.tweets.first { $0.id == "101" })
        #expect(t101.media.count == 2)
        #expect(t101.media[0].url == "https://pbs.twimg.com/media/Photo0001?format=jpg&name=orig")
        let expected1 = SHA256.hash(data: jpegLike(40_000, seed: 1)).bytes.map { String(format: "%02x", $0) }.joined()
        #expect(t101.media[0].sha256 == expected1)
        #expect(t101.media[0].bytes == 40_000)
        #expect(t101.media[0].contentType == "image/jpeg")
        #expect(t101.author.avatar?.url == "https://pbs.twimg.com/profile_images/11/alice_400x400.jpg")
        #expect(t101.entities.hashtags.first?.tag == "ucd")

        // The gone photo is a failure with its reason, and the run still finished.
        let t103 = try #require(m.tweets.first { $0.id == "103" })
        #expect(t103.media[1].sha256 == nil)
        #expect(t103.media[1].error?.code == "http_404")
        #expect(m.failures.map(\.url) == ["https://pbs.twimg.com/media/Gone0003?format=jpg&name=orig"])
        // The summary people read says the same, formatted by the library.
        let text = m.summaryText(relativeTo: cache.path)
        #expect(text.contains("failures  http_404 ×1"))
        #expect(text.contains("https://pbs.twimg.com/media/Gone0003?format=jpg&name=orig"))
        #expect(text.contains("problems  1 parts of the input were skipped"))
        #expect(text.contains("manifest  manifests/"))
        // A shared photo has the same hash in both tweets.
        #expect(t103.media[0].sha256 == expected1)

        // carol's avatar: 400x400 missing → the URL as given was used, stored under the 400x400 key.
        let carol = try #require(m.tweets.first { $0.id == "201" })
        #expect(carol.author.avatar?.sha256 != nil)
        #expect(carol.media.first?.contentType == "image/png")

        // Fetched at most once per run, however many tweets reference the URL.
        #expect(origin.requestCount(path: "/pbs/media/Photo0001") == 1)
        #expect(origin.requestCount(path: "/pbs/profile_images/11/alice_400x400.jpg") == 1)

        // Every blob is named by the hash of its bytes.
        for hash in pipeline.store.allBlobs() {
            let bytes = try pipeline.store.read(hash)
            #expect(BlobHash(hashing: bytes) == hash)
        }
        #expect(m.summary.urls == 7)
        #expect(m.summary.failed == 1)
        #expect(m.summary.downloaded == 6)
        // carol's avatar has alice's bytes: stored once.
        #expect(m.summary.deduplicated == 1)
        #expect(FileManager.default.fileExists(atPath: run.manifestURL.path))
        let reread = try Manifest.read(from: run.manifestURL)
        #expect(reread.tweets.map(\.id) == m.tweets.map(\.id))
    }

    @Test func aSecondRunDownloadsNothingAlreadyCached() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let first = try await CachePipeline(options: try makeOptions(cache: cache, origin: origin)).run(inputs)
        let requestsAfterFirst = origin.requests.count
        let second = try await CachePipeline(options: try makeOptions(cache: cache, origin: origin)).run(inputs)
        #expect((try second.manifest).summary.cached == 6)
        #expect((try second.manifest).summary.downloaded == 0)
        // Only the failed photo is tried again: its original size, then (gone too) the
        // URL exactly as the API gave it.
        let retried = origin.requests.dropFirst(requestsAfterFirst).map(\.path)
        #expect(retried.count == 2)
        #expect(Set(retried) == ["/pbs/media/Gone0003", "/pbs/media/Gone0003.jpg"])
        #expect((try second.manifest).tweets == (try first.manifest).tweets)
        #expect(second.manifestURL != first.manifestURL)
    }

    @Test func refetchesWhenABlobWasDeletedBehindTheIndex() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let pipeline = try CachePipeline(options: try makeOptions(cache: cache, origin: origin))
        let first = try await pipeline.run(inputs)
        let hash = try #require((try first.manifest).tweets[0].media[0].sha256.flatMap { BlobHash(hex: $0) })
        try FileManager.default.removeItem(at: pipeline.store.path(for: hash))
        let second = try await pipeline.run(inputs)
        #expect((try second.manifest).summary.downloaded == 1)
        #expect(pipeline.store.contains(hash))
    }

    @Test func twoRunsIntoTheSameCacheAtOnceBothSucceed() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let options = try makeOptions(cache: cache, origin: origin)
        async let a = CachePipeline(options: options).run(inputs)
        async let b = CachePipeline(options: options).run(inputs)
        let (ra, rb) = try await (a, b)
        #expect((try ra.manifest).tweets.map { $0.media.map(\.sha256) } == (try rb.manifest).tweets.map { $0.media.map(\.sha256) })
        let store = try BlobStore(root: cache)
        for hash in store.allBlobs() { #expect(try store.verify(hash)) }
    }

    @Test func unreadableInputIsAProblemNotACrash() async throws {
        let origin = try makeOrigin()
        let cache = try temporaryDirectory()
        let pipeline = try CachePipeline(options: try makeOptions(cache: cache, origin: origin))
        let run = try await pipeline.run([
            ResultsInput(name: "junk.json", data: Data("{\"statuses\": [".utf8)),
            ResultsInput(name: "v2.json", data: Data(v2Page.utf8)),
        ])
        #expect((try run.manifest).sources[0].problems.count == 1)
        #expect((try run.manifest).tweets.map(\.id) == ["201"])
    }

    /// A run takes its posts in batches and keeps only what it needs between them: in
    /// batches of one post, the manifest is the one a single batch writes (posts,
    /// failures, counts), each URL is still fetched once, and a URL that failed in an
    /// early batch is not tried again in a later one.
    @Test func batchesOfOnePostWriteTheSameManifest() async throws {
        let origin = try makeOrigin()
        let whole = try await CachePipeline(options: try makeOptions(cache: try temporaryDirectory(), origin: origin))
            .run(inputs)
        let before = origin.requests.count
        var options = try makeOptions(cache: try temporaryDirectory(), origin: origin)
        options.batchSize = 1
        let batched = try await CachePipeline(options: options).run(inputs)
        let (a, b) = (try whole.manifest, try batched.manifest)
        #expect(b.tweets == a.tweets)
        #expect(b.includedTweets == a.includedTweets)
        #expect(b.failures == a.failures)
        #expect(b.sources == a.sources)
        var (sa, sb) = (a.summary, b.summary)
        (sa.seconds, sb.seconds, sa.manifestPath, sb.manifestPath) = (0, 0, nil, nil)
        #expect(sa.downloadSeconds ?? -1 >= 0 && sb.downloadSeconds ?? -1 >= 0)
        (sa.downloadSeconds, sb.downloadSeconds) = (nil, nil)
        #expect(sb == sa)
        #expect(origin.requests.count - before == before)
    }
}

