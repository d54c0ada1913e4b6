import Catalog
import Foundation

/// Manifest files as the catalog reads them, from disk or a bucket, damaged or hostile:
/// the scan must refuse what is not a manifest without trapping, hand out post ranges
/// that lie inside the file in order, and agree with Foundation's decoder of the whole
/// file: whatever that reads, the scan reads too (but for the refusals it names), post
/// for post; and the hand readers of a post (the catalog's facts, sync's fetched
/// objects) read nothing Foundation does not, nor anything differently.
public enum ManifestCheck: FuzzCheck {
    public static let name = "fuzz-manifest"

    public static func run(_ bytes: [UInt8]) -> String? {
        if let problem = compressed(bytes) { return problem }
        // A compressed manifest (`.json.zst`) is read as its JSON.
        if SeekableZstd.isCompressed(bytes), let plain = try? SeekableZstd.decompress(Data(bytes), limit: 1 << 20) {
            return run([UInt8](plain))
        }
        let data = Data(bytes)
        let whole = try? Manifest.decode(data)
        let file: ManifestFile
        do {
            file = try ManifestFile(bytes: data)
        } catch {
            // Stricter than the decoder on purpose, and only so: a key given twice
            // (which copy wins is the decoder's business), another version, and text
            // that is not UTF-8 (the decoder also takes UTF-16 and UTF-32).
            let reason = "\(error)"
            let named = ["given twice", "version", "not a JSON object", "malformed JSON at byte 0"].contains { reason.contains($0) }
            return whole == nil || named ? nil : "the decoder reads a manifest the scan refuses: \(reason)"
        }
        var ranges: [(ManifestFile.Section, Range<Int>)] = []
        do {
            try file.forEachPost { ranges.append(($0, $1)) }
        } catch {
            return "a scan that opened fails on its posts: \(error)"
        }
        var end = 0
        for (_, range) in ranges {
            guard range.lowerBound >= end, range.upperBound <= bytes.count, !range.isEmpty else {
                return "post range \(range) out of order or outside \(bytes.count) bytes"
            }
            end = range.upperBound
        }
        guard ranges.filter({ $0.0 == .tweets }).count == file.tweetCount,
              ranges.filter({ $0.0 == .includedTweets }).count == file.includedCount
        else { return "counts disagree with the posts walked" }
        // The hand readers of a post read what Foundation reads.
        for (_, range) in ranges {
            if let disagreement = file.handReaderDisagreement(at: range) { return disagreement }
        }
        let posts = ranges.map { try? file.post(at: $0.1) }
        if let whole {
            let tweets = zip(ranges, posts).filter { $0.0.0 == .tweets }.map(\.1)
            let included = zip(ranges, posts).filter { $0.0.0 == .includedTweets }.map(\.1)
            guard tweets == whole.tweets.map(Optional.some), included == whole.includedTweets.map(Optional.some) else {
                return "posts read one by one differ from the whole decode"
            }
            guard whole.generatedAt == file.header.generatedAt, whole.sources == file.header.sources else {
                return "the header differs from the whole decode"
            }
        }
        return nil
    }

    /// Seekable zstd, as runs write manifests: any input written compressed reads back
    /// whole, at any offset of it.
    static func compressed(_ bytes: [UInt8]) -> String? {
        var packed: [UInt8] = []
        let writer = SeekableZstdWriter { packed += $0 }
        do {
            try writer.write(bytes)
            try writer.finish()
        } catch {
            return "could not compress: \(error)"
        }
        guard let back = try? SeekableZstd.decompress(Data(packed)), back == Data(bytes) else {
            return "\(bytes.count) bytes written compressed do not read back"
        }
        return nil
    }

    /// Manifests written by the project's own writer: empty, with posts of every
    /// shape, with included posts, and escapes in every string; one compressed.
    public static func seeds() throws -> [String: [UInt8]] {
        func post(_ n: Int, text: String) -> ManifestTweet {
            ManifestTweet(
                id: "\(n)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), text: text, lang: "en",
                author: .init(id: "7", screenName: "user\(n)", name: "Üser \"\(n)\"",
                              avatar: MediaRef(url: "https://pbs.twimg.com/a\(n).jpg", sha256: String(repeating: "ab", count: 32))),
                entities: .init(hashtags: [.init(start: 0, end: 4, tag: "ucd")], cashtags: [],
                                mentions: [.init(start: 5, end: 9, username: "bob")],
                                urls: [.init(start: 1, end: 2, url: "https://t.co/x", expandedURL: "https://example.com/[a]")],
                                media: []),
                media: [.init(id: "m\(n)", type: "photo", url: "https://pbs.twimg.com/m\(n).jpg",
                              sha256: String(repeating: "cd", count: 32), contentType: "image/jpeg", width: 4, height: 3)],
                referencedTweets: [], query: "#ucd", sourceFormat: "v2Search", source: "x.json")
        }
        func manifest(_ tweets: [ManifestTweet], included: [ManifestTweet]) -> [UInt8] {
            [UInt8](Manifest(generatedAt: Date(timeIntervalSince1970: 1_700_000_000), tool: "seed", cacheRoot: "/c",
                             sources: [.init(path: "x.json", formats: ["v2Search"], query: "#ucd", tweets: tweets.count, problems: [])],
                             tweets: tweets, includedTweets: included, failures: [], summary: RunSummary()).encoded())
        }
        var undated = post(5, text: "🏳️‍🌈 e\u{301} \u{2028} \u{0}")
        undated.createdAt = nil
        undated.media = []
        let posts = manifest([post(1, text: "plain"), undated], included: [])
        var packed: [UInt8] = []
        let writer = SeekableZstdWriter { packed += $0 }
        try writer.write(manifest([post(1, text: "plain"), post(2, text: "two")], included: [post(3, text: "three")]))
        try writer.finish()
        return [
            "compressed": packed,
            "empty": manifest([], included: []),
            "undated-and-awkward": posts,
            "truncated": Array(posts.prefix(posts.count / 2)),
            "posts": manifest([post(1, text: "plain"), post(2, text: "{\"brackets\": [\"in text\"]}\n\t\\")], included: []),
            "included": manifest([post(3, text: "quoting")], included: [post(4, text: "quoted ] }")]),
        ]
    }
}
