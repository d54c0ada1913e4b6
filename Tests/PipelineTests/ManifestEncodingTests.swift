import Foundation
import Testing
@testable import Pipeline

/// The manifest encoded in slices on every core is byte for byte what Foundation's
/// encoder writes in one piece: the splice, the indentation and the separators.
@Suite struct ManifestEncodingTests {
    static func tweet(_ n: Int) -> ManifestTweet {
        var t = ManifestCatalogTests.tweet(
            "\(n)", at: n % 3 == 0 ? nil : Double(1_700_000_000 + n), user: "user\(n % 7)",
            tags: n % 2 == 0 ? ["a\(n)", "ü"] : [],
            text: "line one\nline \"two\" \\ / \u{1F600} \u{0001} #\(n)")
        t.media = n % 4 == 0 ? [] : [ManifestTweet.Media(
            id: "m\(n)", type: "photo", url: "https://pbs.twimg.com/media/\(n).jpg", sha256: String(repeating: "ab", count: 32),
            bytes: n * 100, contentType: "image/jpeg", error: nil, width: 1200, height: 675, altText: n % 5 == 0 ? "alt\ntext" : nil,
            video: nil, thumbnails: [ThumbnailRef(size: 256, path: "derived/\(n).jpg", width: 256, height: 144)],
            tiles: TileRefs(pack: "derived/\(n).pack", tileSize: 256, bytes: 4096), deriveError: nil)]
        return t
    }

    static func manifest(tweets: Int, included: Int) -> Manifest {
        var summary = RunSummary()
        summary.urls = tweets
        return Manifest(
            generatedAt: Date(timeIntervalSince1970: 1_700_000_000), tool: "test", cacheRoot: "/tmp/cache \"x\"",
            sources: [.init(path: "a.json", formats: ["v1.1"], query: "#x", tweets: tweets, problems: [])],
            tweets: (0..<tweets).map(Self.tweet), includedTweets: (0..<included).map { Self.tweet(100_000 + $0) },
            failures: [.init(url: "https://x/y", role: "media", error: MediaError(code: "http_404", message: "404"))],
            summary: summary)
    }

    @Test(arguments: [(1, 0), (2, 1), (3, 0), (0, 5), (7, 3), (1_000, 17), (2_501, 0)])
    func slicesSpliceToTheSameBytes(tweets: Int, included: Int) throws {
        let m = Self.manifest(tweets: tweets, included: included)
        let plain = try ManifestWriter.encoder().encode(m)
        let sliced = try ManifestEncoding.encode(m, parallelThreshold: 1)
        #expect(sliced == plain)
        #expect(try Manifest.decode(sliced) == m)
    }

    @Test func theMarkersNeverReachAnOrdinaryEncode() throws {
        let m = Self.manifest(tweets: 3, included: 1)
        let text = String(decoding: try ManifestWriter.encoder().encode(m), as: UTF8.self)
        #expect(!text.contains("tweetcache-tweets-"))
        #expect(text.contains("\"tweets\" : ["))
    }
}
