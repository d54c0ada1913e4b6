import Foundation
import Testing
import TestSupport
@testable import Catalog
#if canImport(Glibc)
import Glibc
#endif

/// The manifest writer's bytes are Foundation's encoder's bytes (`Manifest.referenceEncoder()`,
/// which defines the format): keys, their order, indentation, escapes, numbers and dates, but
/// for the order of the top level's members, which runs write as they go.
@Suite struct ManifestJSONWriterTests {
    /// Text that exercises every escape: quotes, backslashes, slashes, every control
    /// character, DEL, and characters beyond ASCII (two, three and four UTF-8 bytes).
    static let awkward = "line one\nline \"two\" \\ / é € \u{1F600} \u{7F} \u{2028}"
        + String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })

    static let pdq = "38e370e3f18781cf878707061f832d1efc3ef85ec076805c06b87cdab9b07be0"

    static func ref(_ n: Int) -> MediaRef {
        var ref = MediaRef(url: "https://pbs.twimg.com/profile_images/\(n)/a.jpg", sha256: String(repeating: "cd", count: 32),
                 bytes: n, contentType: "image/png", error: MediaError(code: "http_404", message: awkward, httpStatus: 404),
                 width: 400, height: -1, thumbnails: [ThumbnailRef(size: 128, path: "derived/a.jpg", width: 128, height: 96, sha256: String(repeating: "ab", count: 32))],
                 tiles: TileRefs(pack: "p", dzi: "d.dzi", iiif: "i/info.json", tileSize: 254, bytes: 1),
                 deriveError: "not an image")
        ref.decodeWarning = "damaged JPEG: " + awkward
        ref.pdq = pdq
        ref.pdqQuality = 87
        ref.pdqDihedral = Array(repeating: pdq, count: 7)
        return ref
    }

    /// A tweet with every optional field set and every list non-empty.
    static func fullTweet(_ n: Int) -> ManifestTweet {
        var tweet = ManifestTweet(
            id: "\(n)", createdAt: Date(timeIntervalSince1970: 1_700_000_000.999 + Double(n)), text: awkward + "#\(n)",
            lang: "en", author: .init(id: "7", screenName: "user\(n % 7)", name: "Üser \"\(n)\"", avatar: ref(n)),
            entities: .init(
                hashtags: [.init(start: 0, end: 1, tag: "ü")], cashtags: [.init(start: 2, end: 5, tag: "AAPL")],
                mentions: [.init(start: 0, end: 1, username: "m", id: "99")],
                urls: [.init(start: 1, end: 2, url: "https://t.co/x", expandedURL: "https://example.com/a?b=c&d=/e",
                             displayURL: "example.com/a…")],
                media: [.init(start: 3, end: 4, mediaID: "m\(n)")]),
            media: [ManifestTweet.Media(
                id: "m\(n)", type: "photo", url: "https://pbs.twimg.com/media/\(n).jpg",
                sha256: String(repeating: "ab", count: 32), bytes: n * 100, contentType: "image/jpeg",
                error: MediaError(code: "too_large", message: "big", httpStatus: 200), width: 1200, height: 675,
                altText: "alt\ntext", video: ref(n + 1),
                thumbnails: [ThumbnailRef(size: 256, path: "derived/\(n).jpg", width: 256, height: 144, sha256: String(repeating: "cd", count: 32))],
                tiles: TileRefs(pack: "derived/\(n).pack", dzi: "x.dzi", iiif: "y", tileSize: 256, bytes: 4096),
                deriveError: "gif", pdq: pdq, pdqQuality: 100, pdqDihedral: Array(repeating: pdq, count: 7))],
            referencedTweets: [.init(type: "quoted", id: "5")], query: "#x OR @y", sourceFormat: "v2Search",
            source: "pages/a.json", network: "mastodon", url: "https://example.social/@u/\(n)", sensitive: n % 2 == 0,
            spoilerText: "cw")
        tweet.media[0].decodeWarning = "damaged GIF"
        return tweet
    }

    static func fullManifest(tweets: Int, included: Int) -> Manifest {
        var summary = RunSummary()
        summary.tweets = tweets
        summary.includedTweets = included
        summary.urls = tweets * 3
        summary.cached = 1
        summary.downloaded = 2
        summary.failed = 3
        summary.bytesDownloaded = 225_953_113
        summary.deduplicated = 4
        summary.failuresByReason = ["http_404": 2, "timeout": 1, "dns": 5, "Zeta": 1, "é": 2, "a_b": 3, "ab": 4]
        summary.derived = 5
        summary.deriveFailed = 6
        summary.problems = 7
        summary.seconds = 1.625580994
        summary.downloadSeconds = 0.8125
        summary.forgotten = 2
        summary.manifestPath = "/cache/manifests/20261125T105506Z.json"
        var store = StoreSummary(location: "s3://bucket/prefix")
        store.uploaded = 1
        store.alreadyStored = 2
        store.failed = 3
        store.bytesUploaded = 4
        store.manifestKey = "manifests/x.json"
        store.copiedFromStore = 4
        store.bytesFromStore = 4096
        store.replaced = 1
        summary.store = store
        return Manifest(
            generatedAt: Date(timeIntervalSince1970: 1_764_000_000.5), tool: "tweetcache 0.1.0",
            cacheRoot: "/tmp/cache \"x\"/y",
            sources: [.init(path: "a.json", formats: ["v1Search", "blueskyFeedItem"], query: "#x", tweets: tweets,
                            problems: [.init(source: "a.json", location: "statuses[3]", message: Self.awkward)],
                            search: .init(api: "v2", base: "http://127.0.0.1:1", query: Self.awkward, sinceID: "1799",
                                          sinceAt: Date(timeIntervalSince1970: 1_763_000_000), reached: true, newestID: "1800",
                                          newestAt: Date(timeIntervalSince1970: 1_763_999_999)))],
            tweets: (0..<tweets).map(Self.fullTweet), includedTweets: (0..<included).map { Self.fullTweet(100_000 + $0) },
            failures: [.init(url: "https://x/y", role: "store", error: MediaError(code: "http_404", message: "404", httpStatus: 404))],
            summary: summary)
    }

    /// The top level's members in the order runs write them (what is known at the
    /// start, the posts, what is known at the end); every other object keeps
    /// Foundation's sorted keys. Works on pretty-printed text, where a member of the
    /// top level is a line starting with two spaces and a quote.
    static let topLevelOrder = ["version", "generated_at", "tool", "cache_root", "tweets", "included_tweets",
                                "failures", "sources", "summary"]

    static func inRunOrder(_ sorted: Data) throws -> Data {
        let lines = String(decoding: sorted, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var members: [String: [Substring]] = [:]
        var current: String?
        for line in lines.dropFirst().dropLast() {
            if line.hasPrefix("  \""), !line.hasPrefix("   ") {
                let key = String(line.dropFirst(3).prefix { $0 != "\"" })
                current = key
                members[key] = [line]
            } else if let current {
                members[current]!.append(line)
            }
        }
        #expect(Set(members.keys) == Set(topLevelOrder))
        let parts = topLevelOrder.map { key -> String in
            var text = members[key]!.joined(separator: "\n")
            if text.hasSuffix(",") { text.removeLast() }
            return text
        }
        return Data(("{\n" + parts.joined(separator: ",\n") + "\n}").utf8)
    }

    static func expectSameBytes(_ m: Manifest, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let foundation = try inRunOrder(Manifest.referenceEncoder().encode(m))
        let ours = ManifestJSONWriter.encode(m)
        if ours != foundation {
            let a = Array(ours), b = Array(foundation)
            let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let context = { (x: [UInt8]) in String(decoding: x[max(0, at - 80)..<min(x.count, at + 80)], as: UTF8.self) }
            Issue.record("differs at byte \(at):\nours:\n\(context(a))\nFoundation:\n\(context(b))",
                         sourceLocation: sourceLocation)
        }
        // Dates keep whole seconds, so compare with what Foundation's bytes decode to.
        #expect(try Manifest.decode(ours) == Manifest.decode(foundation), sourceLocation: sourceLocation)
    }

    @Test func everyFieldIsWrittenAsFoundationWritesIt() async throws {
        let m = Self.fullManifest(tweets: 3, included: 2)
        // Every optional set and every list filled, so a field the writer forgets shows.
        #expect(Self.unsetFields(m, path: "manifest") == [])
        try Self.expectSameBytes(m)
        // And every one of those fields is one the published schema names, of its type.
        let problems = try await ManifestSchema.problems(Array(ManifestJSONWriter.encode(m)))
        #expect(problems == "", "\(problems)")
    }

    @Test func emptyListsAndAbsentOptionals() throws {
        // A tweet as a plain v1.1 search gives it: nil optionals, empty lists.
        let bare = ManifestTweet(
            id: "1", createdAt: nil, text: "", lang: nil, author: .init(id: "", screenName: "", name: "", avatar: nil),
            entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []),
            media: [ManifestTweet.Media(id: "m", type: "video", url: nil, sha256: nil, bytes: nil, contentType: nil,
                                        error: nil, width: nil, height: nil, altText: nil, video: nil, thumbnails: [],
                                        tiles: nil, deriveError: nil)],
            referencedTweets: [], query: nil, sourceFormat: "v1Search", source: "-")
        let m = Manifest(generatedAt: Date(timeIntervalSince1970: 0), tool: "", cacheRoot: "", sources: [],
                         tweets: [bare], includedTweets: [], failures: [], summary: RunSummary())
        try Self.expectSameBytes(m)
    }

    /// A post in an API answer: byte for byte as Foundation writes it compact with sorted
    /// keys, and with a member added after its own, the same object plus that member.
    @Test func aPostWrittenCompactIsFoundationsCompactPost() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let full = Self.fullManifest(tweets: 2, included: 1)
        var posts = full.tweets + full.includedTweets
        posts.append(ManifestTweet(
            id: "2", createdAt: nil, text: "quote \" back\\slash \u{1} tab\t é /", lang: nil,
            author: .init(id: "", screenName: "", name: "", avatar: nil),
            entities: .init(hashtags: [], cashtags: [], mentions: [], urls: [], media: []),
            media: [], referencedTweets: [], query: nil, sourceFormat: "v1Search", source: "-"))
        for post in posts {
            #expect(post.compactJSON() == [UInt8](try encoder.encode(post)), "\(post.id)")
            let added = post.compactJSON(adding: "links", fields: [("post", "https://x.com/a/status/1"), ("profile", nil),
                                                                   ("network_name", "X \"quoted\"")])
            // The post's own members as they are, then the added one, in one valid object.
            let plain = post.compactJSON()
            #expect(Array(added.prefix(plain.count - 1)) == Array(plain.dropLast()))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(added)) as? [String: Any])
            let members = (try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])?.count ?? 0
            #expect(members > 5 && object.count == members + 1)
            #expect(object["links"] as? [String: String] == ["post": "https://x.com/a/status/1", "network_name": "X \"quoted\""])
        }
    }

    @Test(arguments: [0.0, 1, 0.5, 1.625580994, 1e-7, 123_456_789.125, 1e21, 3e300, .leastNonzeroMagnitude, -2.5, 0.1 + 0.2])
    func secondsAsFoundationWritesThem(seconds: Double) throws {
        var m = Self.fullManifest(tweets: 0, included: 0)
        m.summary.seconds = seconds
        m.summary.downloadSeconds = seconds
        try Self.expectSameBytes(m)
    }

    @Test(arguments: [0.0, 0.999, 59.5, 951_782_400, 1_700_000_000.25, 4_102_444_799.9, 253_402_300_799, -1, -62_135_596_800])
    func datesAsFoundationWritesThem(seconds: Double) throws {
        var m = Self.fullManifest(tweets: 1, included: 0)
        m.generatedAt = Date(timeIntervalSince1970: seconds)
        m.tweets[0].createdAt = Date(timeIntervalSince1970: seconds)
        try Self.expectSameBytes(m)
    }

    @Test func manyTweets() throws {
        try Self.expectSameBytes(Self.fullManifest(tweets: 2_500, included: 17))
    }

    /// Paths of optionals that are nil and collections that are empty, anywhere in `value`.
    static func unsetFields(_ value: Any, path: String) -> [String] {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unsetFields(wrapped, path: path)
        case .collection, .dictionary, .set:
            if mirror.children.isEmpty { return [path] }
            return mirror.children.enumerated().flatMap { i, child in unsetFields(child.value, path: "\(path)[\(i)]") }
        case .struct, .class:
            return mirror.children.flatMap { child in unsetFields(child.value, path: "\(path).\(child.label ?? "?")") }
        default:
            return []
        }
    }

    // MARK: - Streaming

    /// The manifest a run writes a post at a time is the one written whole, including
    /// a tail written twice (a failed upload of the manifest adds a failure).
    @Test func streamedManifestIsTheWholeOne() throws {
        var m = Self.fullManifest(tweets: 40, included: 3)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let extra = m.failures[0]
        m.failures.removeFirst()
        let writer = try ManifestStreamWriter(directory: directory, generatedAt: m.generatedAt, tool: m.tool,
                                              cacheRoot: m.cacheRoot)
        for t in m.tweets { try writer.append(t) }
        for t in m.includedTweets { try writer.appendIncluded(t) }
        for f in m.failures { try writer.appendFailure(f) }
        try writer.writeTail(sources: m.sources, summary: m.summary)
        try writer.writeTail(extraFailures: [extra], sources: m.sources, summary: m.summary)
        // Hidden until committed: no reader lists a name starting with a dot.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.hasPrefix(".") })
        let url = directory.appendingPathComponent("run.json.zst")
        try writer.commit(to: url)
        m.failures.append(extra)
        #expect(try manifestJSON(url) == ManifestJSONWriter.encode(m))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["run.json.zst"])
        // A name already taken is never replaced; the tail is written again for the
        // next name, and the spills are still there to copy.
        let second = try ManifestStreamWriter(directory: directory, generatedAt: m.generatedAt, tool: "", cacheRoot: "")
        try second.appendIncluded(m.includedTweets[0])
        try second.writeTail(sources: [], summary: RunSummary())
        #expect(throws: (any Error).self) { try second.commit(to: url) }
        #expect(try manifestJSON(url) == ManifestJSONWriter.encode(m))
        var summary = RunSummary()
        summary.manifestPath = "run-2.json.zst"
        try second.writeTail(sources: [], summary: summary)
        try second.commit(to: directory.appendingPathComponent("run-2.json.zst"))
        let again = try Manifest.read(from: directory.appendingPathComponent("run-2.json.zst"))
        #expect(again.includedTweets.map(\.id) == [m.includedTweets[0].id] && again.summary.manifestPath == "run-2.json.zst")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["run.json.zst", "run-2.json.zst"])
    }

    /// A run naming an earlier run's frames, that run rewritten (as `forget` does) while
    /// it writes: what it named is copied in from the file it read, it reads as it was
    /// written, and its tail can still be written again after the copy.
    @Test func aHolderReplacedWhileARunWritesIsCopiedIn() throws {
        let m = Self.fullManifest(tweets: 400, included: 0)
        let directory = try ScratchDirectory.make("stream-holder").appendingPathComponent("manifests")
        func run(_ root: String) throws -> ManifestStreamWriter {
            let writer = try ManifestStreamWriter(directory: directory, generatedAt: m.generatedAt, tool: m.tool, cacheRoot: root)
            for t in m.tweets { try writer.append(t) }
            for f in m.failures { try writer.appendFailure(f) }
            try writer.writeTail(sources: m.sources, summary: m.summary)
            return writer
        }
        let holder = directory.appendingPathComponent("20261201T000000Z.json.zst")
        try run(m.cacheRoot).commit(to: holder)
        let size = try manifestJSON(holder).count

        let second = try run("/another/cache")
        _ = try ManifestRedaction.rewriteEntries(at: holder, blanks: [(size / 2)..<(size / 2 + 50)], materializing: [:])
        try second.writeTail(sources: m.sources, summary: m.summary)  // the copy is made here
        var summary = m.summary
        summary.manifestPath = "the second"
        try second.writeTail(sources: m.sources, summary: summary)  // and the tail written again after it
        let url = directory.appendingPathComponent("20261202T000000Z.json.zst")
        try second.commit(to: url)
        var expected = m
        expected.cacheRoot = "/another/cache"
        expected.summary = summary
        #expect(try manifestJSON(url) == ManifestJSONWriter.encode(expected))
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        #expect(try SeekableZstdFile(descriptor: fd).holderNames().isEmpty, "copied in whole")

        // Left alone, a third run names what the others hold.
        let third = try run("/a/third")
        let thirdURL = directory.appendingPathComponent("20261203T000000Z.json.zst")
        try third.commit(to: thirdURL)
        let fd3 = open(thirdURL.path, O_RDONLY)
        defer { close(fd3) }
        #expect(try !SeekableZstdFile(descriptor: fd3).holderNames().isEmpty)
        expected.cacheRoot = "/a/third"
        expected.summary = m.summary
        #expect(try manifestJSON(thirdURL) == ManifestJSONWriter.encode(expected))
    }

    /// Manifests written before the order changed (keys sorted throughout) read the same.
    @Test func manifestsInTheOldOrderStillRead() throws {
        let m = Self.fullManifest(tweets: 3, included: 1)
        let old = try Manifest.referenceEncoder().encode(m)
        #expect(try Manifest.decode(old) == Manifest.decode(ManifestJSONWriter.encode(m)))
        let file = try ManifestFile(bytes: old)
        #expect(file.tweetCount == 3 && file.includedCount == 1)
        #expect(try file.failures() == m.failures)
    }

    /// What a killed run left in the manifests folder goes: its unfinished manifest and
    /// spills at once (no run holds them: ManifestSweepTests has a live one), a copy of
    /// standard input or a sync's download once a day old; real manifests stay.
    @Test func leftoversOfKilledRunsAreSwept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = [".partial-1.json", ".partial-1.included", ".stdin-2", ".sync-3.json", "run.json", ".other"]
        for name in names {
            #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data("x".utf8)))
        }
        ManifestStreamWriter.sweep(directory, now: Date().addingTimeInterval(3_600))
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path))
            == [".stdin-2", ".sync-3.json", "run.json", ".other"])
        ManifestStreamWriter.sweep(directory, now: Date().addingTimeInterval(2 * 86_400))
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["run.json", ".other"])
    }
}
