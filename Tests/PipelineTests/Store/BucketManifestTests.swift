import Catalog
import Foundation
import Testing
import TestSupport
@testable import Pipeline

/// The bucket's copy of a manifest names no path of the machine that wrote it.
@Suite struct BucketManifestTests {
    static func post(_ id: String, source: String) -> ManifestTweet {
        ManifestTweet(
            id: id, createdAt: Date(timeIntervalSince1970: 1_700_000_000), text: "a \"source\" : \"/home/ana\" in the text",
            lang: "en", author: .init(id: "7", screenName: "ana", name: "Ana"),
            entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []),
            media: [ManifestTweet.Media(
                id: "m", type: "photo", url: "https://pbs.twimg.com/media/1.jpg", sha256: String(repeating: "ab", count: 32),
                thumbnails: [ThumbnailRef(size: 150, path: "d/ab/\(String(repeating: "ab", count: 32)).thumb-150.jpg",
                                          width: 150, height: 100, sha256: String(repeating: "cd", count: 32))])],
            referencedTweets: [], query: "#x", sourceFormat: "v2Search", source: source)
    }

    @Test func localPathsAreCutToFileNamesAndTheRestIsKept() throws {
        var summary = RunSummary()
        summary.tweets = 2
        summary.manifestPath = "/home/ana/keep/run.json"
        summary.store = StoreSummary(location: "file:///home/ana/bucket")
        let manifest = Manifest(
            generatedAt: Date(timeIntervalSince1970: 1_764_000_000), tool: "tweetcache test", cacheRoot: "/home/ana/cache",
            sources: [.init(path: "/home/ana/pages/a.json", formats: ["v2Search"], query: "#x", tweets: 1,
                            problems: [.init(source: "/home/ana/pages/a.json", location: "data[3]", message: "odd")]),
                      .init(path: "-", formats: ["v2Search"], query: nil, tweets: 1, problems: [])],
            tweets: [Self.post("1", source: "/home/ana/pages/a.json"), Self.post("2", source: "-")],
            includedTweets: [Self.post("3", source: "../../ana/pages/a.json")],
            failures: [.init(url: "file:///home/ana/bucket/d/ab/x.jpg", role: "store", error: MediaError(code: "io", message: "full")),
                       .init(url: "https://pbs.twimg.com/media/2.jpg", role: "media", error: MediaError(code: "http_404", message: "404"))],
            summary: summary)
        let dir = try ScratchDirectory.make("tc-bucket-manifest")
        let local = dir.appendingPathComponent("run.json"), copy = dir.appendingPathComponent("copy.json")
        try manifest.encoded().write(to: local)
        try BucketManifest.writeCopy(of: local, to: copy)

        let text = try String(contentsOf: copy, encoding: .utf8)
        #expect(!text.contains("/home/ana/"), "\(text.split(separator: "\n").filter { $0.contains("/home/ana/") })")
        #expect(!text.contains("../"))
        let read = try Manifest.read(from: copy)
        #expect(read.cacheRoot == "")
        #expect(read.summary.manifestPath == "run.json")
        #expect(read.sources.map(\.path) == ["a.json", "-"])
        #expect(read.sources[0].problems.map(\.source) == ["a.json"])
        #expect(read.tweets.map(\.source) == ["a.json", "-"] && read.includedTweets.map(\.source) == ["a.json"])
        // The rest is the manifest as written: text (even one that looks like a key),
        // media, cache-relative thumbnail paths.
        var expected = manifest
        expected.cacheRoot = ""
        expected.summary.manifestPath = "run.json"
        expected.summary.store?.location = "bucket"
        expected.failures[0].url = "x.jpg"
        expected.sources[0].path = "a.json"
        expected.sources[0].problems[0].source = "a.json"
        expected.tweets[0].source = "a.json"
        expected.includedTweets[0].source = "a.json"
        #expect(read == expected)

        // A run's compressed manifest gets a compressed copy, cut the same way, in
        // frames of its own that read back at any offset.
        let packed = dir.appendingPathComponent("run.json.zst"), packedCopy = dir.appendingPathComponent("copy.json.zst")
        var bytes: [UInt8] = []
        let writer = SeekableZstdWriter { bytes += $0 }
        try writer.write(manifest.encoded())
        try writer.finish()
        try Data(bytes).write(to: packed)
        #expect(try BucketManifest.writeCopy(of: packed, to: packedCopy), "compressed")
        #expect(try manifestJSON(packedCopy) == Data(contentsOf: copy))
        #expect(try ManifestFile(url: packedCopy).isCompressed)
    }
}
