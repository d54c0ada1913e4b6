import Foundation
import Testing
@testable import Pipeline

@Suite struct ManifestCatalogTests {
    static func tweet(_ id: String, at seconds: Double?, user: String = "dana", tags: [String] = [], text: String = "t")
        -> ManifestTweet
    {
        ManifestTweet(
            id: id, createdAt: seconds.map { Date(timeIntervalSince1970: $0) }, text: text, lang: nil,
            author: .init(id: "7", screenName: user, name: user.capitalized, avatar: nil),
            entities: .init(hashtags: tags.map { .init(start: 0, end: 1, tag: $0) }, cashtags: [], mentions: [
                .init(start: 0, end: 1, username: "mentioned", id: nil),
            ], urls: [], media: []),
            media: [], referencedTweets: [], query: nil, sourceFormat: "v1.1", source: "x.json")
    }

    static func write(_ tweets: [ManifestTweet], included: [ManifestTweet] = [], at seconds: Double,
                      name: String, in root: URL) throws {
        let manifest = Manifest(
            generatedAt: Date(timeIntervalSince1970: seconds), tool: "test", cacheRoot: root.path, sources: [],
            tweets: tweets, includedTweets: included, failures: [], summary: RunSummary())
        let dir = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try manifest.encoded().write(to: dir.appendingPathComponent(name))
    }

    func root() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tc-catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func mergesNewestCopySortsAndReportsBadFiles() throws {
        let root = try root()
        defer { try? FileManager.default.removeItem(at: root) }
        // The newer run (by generated_at, not by file name) wins for tweet 2.
        try Self.write([Self.tweet("2", at: 200, text: "new"), Self.tweet("3", at: 300)], at: 2000, name: "a.json", in: root)
        try Self.write([Self.tweet("2", at: 200, text: "old"), Self.tweet("1", at: 100)],
                       included: [Self.tweet("99", at: 50)], at: 1000, name: "b.json", in: root)
        try Self.write([Self.tweet("10", at: nil), Self.tweet("9", at: nil), Self.tweet("11", at: 300)],
                       at: 500, name: "c.json", in: root)
        try Data("{not json".utf8).write(to: root.appendingPathComponent("manifests/broken.json"))
        try Data("{}".utf8).write(to: root.appendingPathComponent("manifests/empty.json"))
        try Data("ignored".utf8).write(to: root.appendingPathComponent("manifests/notes.txt"))

        let catalog = ManifestCatalog.load(cacheRoot: root)
        #expect(catalog.manifests.map(\.path) == ["manifests/c.json", "manifests/b.json", "manifests/a.json"])
        #expect(catalog.manifests.map(\.tweets) == [3, 2, 2])
        #expect(catalog.problems.count == 2)
        #expect(catalog.problems.contains { $0.hasPrefix("manifests/broken.json") })
        #expect(catalog.problems.contains { $0.hasPrefix("manifests/empty.json") })
        // Newest first, ties by id descending numerically, undated last.
        #expect(catalog.tweets.map(\.id) == ["11", "3", "2", "1", "10", "9"])
        #expect(catalog.tweet(id: "2")?.text == "new")
        #expect(catalog.includedTweets.map(\.id) == ["99"])
        #expect(catalog.tweet(id: "99") != nil)
        #expect(catalog.tweet(id: "404") == nil)
    }

    @Test func anOlderRunsAvatarStaysReferenced() throws {
        let root = try root()
        defer { try? FileManager.default.removeItem(at: root) }
        let old = String(repeating: "a", count: 64), new = String(repeating: "b", count: 64)
        var before = Self.tweet("5", at: 100)
        before.author.avatar = MediaRef(url: "https://pbs.twimg.com/old.jpg", sha256: old)
        var after = Self.tweet("5", at: 100)
        after.author.avatar = MediaRef(url: "https://pbs.twimg.com/new.jpg", sha256: new)
        try Self.write([before], at: 1000, name: "a.json", in: root)
        try Self.write([after], at: 2000, name: "b.json", in: root)
        let catalog = ManifestCatalog.load(cacheRoot: root)
        // The merged tweet shows the new avatar, but gc must still see the old one as referenced.
        #expect(catalog.tweet(id: "5")?.author.avatar?.sha256 == new)
        #expect(catalog.referencedHashes == [old, new])
    }

    @Test func filtersByTagAndAuthor() throws {
        let root = try root()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.write([
            Self.tweet("1", at: 1, user: "Dana", tags: ["UCD"]),
            Self.tweet("2", at: 2, user: "bob", tags: ["ucd", "x"]),
            Self.tweet("3", at: 3, user: "dana"),
        ], at: 1, name: "m.json", in: root)
        let catalog = ManifestCatalog.load(cacheRoot: root)
        #expect(catalog.tweets(tag: "#ucd", user: nil).map(\.id) == ["2", "1"])
        #expect(catalog.tweets(tag: "Ucd", user: nil).map(\.id) == ["2", "1"])
        #expect(catalog.tweets(tag: nil, user: "@DANA").map(\.id) == ["3", "1"])
        #expect(catalog.tweets(tag: "ucd", user: "dana").map(\.id) == ["1"])
        // Mentions are not authorship.
        #expect(catalog.tweets(tag: nil, user: "mentioned").isEmpty)
        #expect(catalog.tweets(tag: nil, user: nil).count == 3)
    }

    @Test func missingDirectoryIsAnEmptyCatalog() throws {
        let catalog = ManifestCatalog.load(cacheRoot: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
        #expect(catalog.tweets.isEmpty)
        #expect(catalog.problems.isEmpty)
    }
}
