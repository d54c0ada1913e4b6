import Foundation
import GRDB
import Testing
import TestSupport
@testable import Catalog

@Suite struct PostCatalogTests {
    static func tweet(_ id: String, at seconds: Double?, user: String = "dana", tags: [String] = [], text: String = "t",
                      query: String? = nil) -> ManifestTweet {
        ManifestTweet(
            id: id, createdAt: seconds.map { Date(timeIntervalSince1970: $0) }, text: text, lang: nil,
            author: .init(id: "7", screenName: user, name: user.capitalized, avatar: nil),
            entities: .init(hashtags: tags.map { .init(start: 0, end: 1, tag: $0) }, cashtags: [], mentions: [
                .init(start: 0, end: 1, username: "mentioned", id: nil),
            ], urls: [], media: []),
            media: [], referencedTweets: [], query: query, sourceFormat: "v1.1", source: "x.json")
    }

    static func manifest(_ tweets: [ManifestTweet], included: [ManifestTweet] = [], at seconds: Double, root: URL) -> Manifest {
        Manifest(
            generatedAt: Date(timeIntervalSince1970: seconds), tool: "test", cacheRoot: root.path,
            sources: [.init(path: "x.json", formats: ["v1.1"], query: "#ucd", tweets: tweets.count, problems: [])],
            tweets: tweets, includedTweets: included, failures: [], summary: RunSummary())
    }

    static func write(_ tweets: [ManifestTweet], included: [ManifestTweet] = [], at seconds: Double,
                      name: String, in root: URL) throws {
        let dir = root.appendingPathComponent("manifests")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try manifest(tweets, included: included, at: seconds, root: root).encoded().write(to: dir.appendingPathComponent(name))
    }

    func root() throws -> URL { try ScratchDirectory.make("tc-catalog") }

    @Test func mergesNewestCopySortsAndReportsBadFiles() throws {
        let root = try root()
        // The newer run (by generated_at, not by file name) wins for tweet 2.
        try Self.write([Self.tweet("2", at: 200, text: "new"), Self.tweet("3", at: 300)], at: 2000, name: "a.json", in: root)
        try Self.write([Self.tweet("2", at: 200, text: "old"), Self.tweet("1", at: 100)],
                       included: [Self.tweet("99", at: 50)], at: 1000, name: "b.json", in: root)
        try Self.write([Self.tweet("10", at: nil), Self.tweet("9", at: nil), Self.tweet("11", at: 300)],
                       at: 500, name: "c.json", in: root)
        try Data("{not json".utf8).write(to: root.appendingPathComponent("manifests/broken.json"))
        try Data("{}".utf8).write(to: root.appendingPathComponent("manifests/empty.json"))
        try Data("ignored".utf8).write(to: root.appendingPathComponent("manifests/notes.txt"))

        let (catalog, report) = try PostCatalog.open(cacheRoot: root)
        #expect(report.added.count == 3)
        #expect(try catalog.runs().map(\.path) == ["manifests/c.json", "manifests/b.json", "manifests/a.json"])
        #expect(try catalog.runs().map(\.tweets) == [3, 2, 2])
        let problems = try catalog.problems()
        #expect(problems.count == 2)
        #expect(problems.contains { $0.hasPrefix("manifests/broken.json") })
        #expect(problems.contains { $0.hasPrefix("manifests/empty.json") })
        // Newest first, ties by id descending numerically, undated last.
        #expect(try catalog.posts(limit: 100).map(\.id) == ["11", "3", "2", "1", "10", "9"])
        #expect(try catalog.post(id: "2")?.text == "new")
        // Words count the newest copy of each post, never an included one.
        #expect(try catalog.count(PostFilter(text: "new")) == 1 && catalog.count(PostFilter(text: "old")) == 0)
        #expect(try catalog.firstPage(PostFilter(text: "t"), limit: 2).total == 5)
        #expect(try catalog.post(id: "99") != nil)
        #expect(try catalog.post(id: "404") == nil)
        #expect(try catalog.totals() == .init(posts: 6, includedPosts: 1, runs: 3))
        // A second refresh reads nothing again, problems included.
        let again = try catalog.refresh()
        #expect(again.added.isEmpty && again.problems.isEmpty && !again.rebuilt)
    }

    @Test func postsRoundTripThroughTheCatalogUnchanged() throws {
        let root = try root()
        let post = ManifestJSONWriterTests.fullTweet(3)
        try Self.write([post], at: 10, name: "a.json", in: root)
        // What a reader of the manifest file gets (dates in whole seconds), the catalog gives.
        let manifest = try Manifest.read(from: root.appendingPathComponent("manifests/a.json"))
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        #expect(try catalog.post(id: "3") == manifest.tweets.first)
    }

    @Test func anOlderRunsAvatarStaysReferenced() throws {
        let root = try root()
        let old = String(repeating: "a", count: 64), new = String(repeating: "b", count: 64)
        var before = Self.tweet("5", at: 100)
        before.author.avatar = MediaRef(url: "https://pbs.twimg.com/old.jpg", sha256: old)
        var after = Self.tweet("5", at: 100)
        after.author.avatar = MediaRef(url: "https://pbs.twimg.com/new.jpg", sha256: new)
        try Self.write([before], at: 1000, name: "a.json", in: root)
        try Self.write([after], at: 2000, name: "b.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        // The merged post shows the new avatar, but gc must still see the old one as referenced.
        #expect(try catalog.post(id: "5")?.author.avatar?.sha256 == new)
        #expect(try catalog.referencedHashes() == [old, new])
        #expect(try catalog.references(to: old).isEmpty)
        #expect(try catalog.references(to: new).map(\.tweetID) == ["5"])
        #expect(try catalog.references(to: new).first?.kind == .avatar)
        #expect(try catalog.references(to: new).first?.url == "https://pbs.twimg.com/new.jpg")
        #expect(try catalog.referenceSummary()[new]?.uses == 1)
        #expect(try catalog.referenceSummary()[old] == nil)
        #expect(try catalog.hashes(prefix: "bbb") == [new])
    }

    @Test func filtersByTagAndAuthor() throws {
        let root = try root()
        try Self.write([
            Self.tweet("1", at: 1, user: "Dana", tags: ["UCD"]),
            Self.tweet("2", at: 2, user: "bob", tags: ["ucd", "x"]),
            Self.tweet("3", at: 3, user: "dana"),
        ], at: 1, name: "m.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        func ids(tag: String? = nil, user: String? = nil) throws -> [String] {
            try catalog.posts(PostFilter(tag: tag, user: user), limit: 100).map(\.id)
        }
        #expect(try ids(tag: "#ucd") == ["2", "1"])
        #expect(try ids(tag: "Ucd") == ["2", "1"])
        #expect(try ids(user: "@DANA") == ["3", "1"])
        #expect(try ids(tag: "ucd", user: "dana") == ["1"])
        // Mentions are not authorship.
        #expect(try ids(user: "mentioned").isEmpty)
        #expect(try catalog.count(PostFilter(tag: "ucd")) == 2)
        #expect(try catalog.count() == 3)
        let facets = try catalog.facets(limit: 10)
        #expect(facets.tags.map(\.tag) == ["UCD", "x"] || facets.tags.map(\.tag) == ["ucd", "x"])
        #expect(facets.tags.first?.posts == 2)
        #expect(facets.users.first?.posts == 2)
    }

    @Test func fullTextSearchFindsWordsAndPrefixesInTextNamesAndTags() throws {
        let root = try root()
        try Self.write([
            Self.tweet("1", at: 1, user: "ucdlibrary", text: "Sunset from the Science Centre roof"),
            Self.tweet("2", at: 2, user: "bob", tags: ["Dublin"], text: "Café at noon"),
            Self.tweet("3", at: 3, user: "dana", text: "Two words here: science and sunsets"),
        ], at: 1, name: "m.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        func ids(_ q: String) throws -> [String] { try catalog.posts(PostFilter(text: q), limit: 100).map(\.id) }
        #expect(try ids("science") == ["3", "1"])
        #expect(try ids("SUNSET science") == ["1"])  // "sunset" as a word; "sunsets" is another
        #expect(try ids("science sunset") == ["3", "1"])  // the last word as it is being typed
        #expect(PostFilter.ftsQuery("two \"wor") == "\"two\" \"wor\"*")
        // Cut where the tokenizer cuts: a quoted string of two tokens would be a phrase,
        // which an index without positions refuses.
        #expect(PostFilter.ftsQuery("e-mail café") == "\"e\" \"mail\" \"café\"*")
        #expect(try ids("centre-roof") == ["1"])
        #expect(try ids("science-sun") == ["3", "1"])
        #expect(try ids("sunset roof") == ["1"])
        #expect(try ids("cafe") == ["2"])  // diacritics folded
        #expect(try ids("dubl") == ["2"])  // hashtag, by prefix
        #expect(try ids("ucdlib") == ["1"])  // handle
        #expect(try ids("Bob") == ["2"])  // name
        #expect(try ids("\"roof") == ["1"])  // FTS5 syntax is text here
        #expect(try ids("nothing-like-this").isEmpty)
        #expect(try ids(":") == ["3"])  // no word FTS5 indexes: a substring scan
        #expect(try ids("§").isEmpty)
        #expect(try catalog.count(PostFilter(text: "science")) == 2)
        let first = try catalog.firstPage(PostFilter(text: "science"), limit: 1)
        #expect(first.posts.map(\.id) == ["3"] && first.total == 2)
        #expect(try catalog.firstPage(PostFilter(tag: "dublin"), limit: 5).total == 1)
    }

    @Test func manyMatchesWalkThePostsInOrderAndFindWhatSortingTheMatchesFinds() throws {
        let root = try root()
        // "common" in two posts of three, "rare" in a few, ties in time, undated posts.
        let posts: [ManifestTweet] = (1...60).map { (n: Int) -> ManifestTweet in
            let at: Double? = n % 9 == 0 ? nil : Double(n % 13)
            let text = (n % 3 == 0 ? "other" : "common") + (n % 7 == 0 ? " rare" : "")
            return Self.tweet("\(n)", at: at, user: n % 2 == 0 ? "ann" : "bob", tags: n % 5 == 0 ? ["five"] : [], text: text)
        }
        // An older run, read first: its copies of posts 3 and 6 said "common" (their newer
        // copies do not), and an included post says "common". Neither may be counted or listed.
        try Self.write([3, 6].map { Self.tweet("\($0)", at: 1, user: "bob", text: "common once") },
                       included: [Self.tweet("900", at: 5, text: "common included")], at: 0.5, name: "a.json", in: root)
        // More than 10 matches walk: both plans run on a catalog this small.
        let catalog = try PostCatalog(cacheRoot: root, bigRead: .max, manyMatches: 10)
        _ = try catalog.refresh()
        #expect(try catalog.count(PostFilter(text: "once")) == 2)
        try Self.write(posts, at: 1, name: "m.json", in: root)
        _ = try catalog.refresh()
        #expect(try catalog.count(PostFilter(text: "once")) == 0 && catalog.count(PostFilter(text: "included")) == 0)
        func ids(_ filter: PostFilter, after key: PostKey?, oldestFirst: Bool, wordsDrive: Bool, listed: Bool = false) throws -> [String] {
            try catalog.read("test") { db in
                // The third plan: every match found first (as ``fewMatches`` finds a few), then looked up.
                let matches = listed ? try Int64.fetchAll(db, sql: "SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?",
                                                          arguments: [PostFilter.ftsQuery(filter.text!)!]) : nil
                let query = try #require(PostCatalog.select("p.id", filter, after: key, oldestFirst: oldestFirst,
                                                            wordsDrive: wordsDrive, matches: matches))
                return try String.fetchAll(db, sql: query.sql + query.order, arguments: StatementArguments(query.arguments))
            }
        }
        let ordered = posts.sorted { PostOrder.comesBefore(($0.createdAt, $0.id), ($1.createdAt, $1.id)) }
        let filters = [PostFilter(text: "common"), PostFilter(text: "rare"), PostFilter(text: "comm"),
                       PostFilter(user: "ann", text: "common"), PostFilter(text: "common rare"),
                       PostFilter(tag: "five", text: "common")]
        for filter in filters {
            for oldestFirst in [false, true] {
                for key in [nil, PostKey(after: ordered[20]), PostKey(after: ordered[55])] {
                    let walked = try ids(filter, after: key, oldestFirst: oldestFirst, wordsDrive: false)
                    #expect(walked == (try ids(filter, after: key, oldestFirst: oldestFirst, wordsDrive: true)),
                            "\(filter) \(oldestFirst) \(String(describing: key))")
                    #expect(walked == (try ids(filter, after: key, oldestFirst: oldestFirst, wordsDrive: true, listed: true)),
                            "listed: \(filter) \(oldestFirst) \(String(describing: key))")
                    if key == nil {
                        let words = filter.text!.split(separator: " ").map(String.init)
                        let candidates: [ManifestTweet] = oldestFirst ? ordered.reversed() : ordered
                        let expected = candidates.filter { (post: ManifestTweet) -> Bool in
                            let postWords = post.text.split(separator: " ")
                            let hasWords = words.allSatisfy { word in postWords.contains { $0.hasPrefix(word) } }
                            let byUser = filter.user == nil || post.author.screenName == filter.user
                            let tagged = filter.tag == nil || post.entities.hashtags.contains { $0.tag == filter.tag }
                            return hasWords && byUser && tagged
                        }
                        #expect(walked == expected.map { $0.id }, "\(filter) \(oldestFirst)")
                        #expect(try catalog.count(filter) == expected.count)
                    }
                }
            }
        }
        // The index's own count is the posts' count: copies replaced, included posts left out.
        let first = try catalog.firstPage(PostFilter(text: "common"), limit: 3)
        let newestCommon = ordered.filter { $0.text.hasPrefix("common") }.prefix(3).map { $0.id }
        #expect(first.total == 40 && first.posts.map { $0.id } == newestCommon)
        // Beside a user: the first page and its total in one pass.
        let anns = try catalog.firstPage(PostFilter(user: "ann", text: "common"), limit: 3)
        let newestAnns = ordered.filter { $0.text.hasPrefix("common") && $0.author.screenName == "ann" }
        #expect(anns.total == newestAnns.count && anns.posts.map { $0.id } == newestAnns.prefix(3).map { $0.id })
        #expect(try catalog.firstPage(PostFilter(text: "rare"), limit: 100).total == 8)
        // A few matches are found once, for the count and the page; past the limit, none are kept.
        let (rareMatches, commonMatches) = try catalog.read("test") { db in
            (try catalog.fewMatches("\"rare\"*", db), try catalog.fewMatches("\"common\"*", db))
        }
        #expect(rareMatches?.count == 8 && commonMatches == nil)
        let rare = try catalog.posts(PostFilter(text: "rare"), after: PostKey(after: ordered.first { $0.text.hasSuffix("rare") }!), limit: 3)
        #expect(rare.map { $0.id } == ordered.filter { $0.text.hasSuffix("rare") }.dropFirst().prefix(3).map { $0.id })
        // Later pages take their plan from the count the first page made; a count gone
        // stale changes the plan, never the posts.
        #expect(catalog.wordCounts.withLock { $0["\"common\"*"] } == 40)
        let second = try catalog.posts(PostFilter(text: "common"), after: PostKey(after: first.posts[2]), limit: 5)
        for stale in [0, 1_000_000] {
            catalog.wordCounts.withLock { $0["\"common\"*"] = stale }
            #expect(try catalog.posts(PostFilter(text: "common"), after: PostKey(after: first.posts[2]), limit: 5).map { $0.id }
                    == second.map { $0.id })
        }
    }

    /// The walk is a walk of the date index, with no sort, also once SQLite has
    /// statistics that say the index is not selective (which alone would make it look
    /// the matches up by rowid and sort them).
    @Test func theWalkReadsTheDateIndexWithoutSortingWhateverTheStatistics() throws {
        let root = try root()
        try Self.write((1...30).map { Self.tweet("\($0)", at: Double($0), text: "common") }, at: 1, name: "m.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        func plan(_ filter: PostFilter, _ db: Database) throws -> String {
            let query = try #require(PostCatalog.select("p.id", filter, after: PostKey(createdAt: Date(timeIntervalSince1970: 20), id: "20"),
                                                        wordsDrive: false))
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.sql + query.order + " LIMIT 10",
                                    arguments: StatementArguments(query.arguments))
                .map { $0["detail"] as String }.joined(separator: "\n")
        }
        try catalog.pool.write { db in
            for analysed in [false, true] {
                if analysed {
                    // A million posts, all of them not included: the statistics of a big catalog.
                    try db.execute(sql: "ANALYZE")
                    try db.execute(sql: "DELETE FROM sqlite_stat1 WHERE tbl = 'posts'")
                    try db.execute(sql: """
                        INSERT INTO sqlite_stat1 VALUES ('posts', NULL, '1000000'),
                            ('posts', 'posts_in_order', '1000000 1000000 1 1'),
                            ('posts', 'posts_by_user', '1000000 1000000 50 1 1')
                        """)
                    try db.execute(sql: "ANALYZE sqlite_schema")
                }
                let all = try plan(PostFilter(text: "common"), db)
                #expect(all.contains("posts_in_order") && !all.contains("TEMP B-TREE"), "\(analysed): \(all)")
                let byUser = try plan(PostFilter(user: "dana", text: "common"), db)
                #expect(byUser.contains("posts_by_user") && !byUser.contains("TEMP B-TREE"), "\(analysed): \(byUser)")
            }
        }
    }

    @Test func pagesByKeyNeitherRepeatNorSkip() throws {
        let root = try root()
        let posts = (1...25).map { Self.tweet("\($0)", at: Double($0 % 5), tags: ["t"]) }
        try Self.write(posts, at: 1, name: "m.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        for filter in [PostFilter.all, PostFilter(tag: "t")] {
            var seen: [String] = []
            var key: PostKey? = nil
            while true {
                let page = try catalog.posts(filter, after: key, limit: 7)
                seen += page.map(\.id)
                guard let last = page.last else { break }
                key = PostKey(after: last)
            }
            let expected = posts.sorted { PostOrder.comesBefore(($0.createdAt, $0.id), ($1.createdAt, $1.id)) }.map(\.id)
            #expect(seen == expected)
        }
        var streamed: [String] = []
        try catalog.forEachPost(pageSize: 4) { streamed.append($0.id) }
        #expect(streamed.count == 25 && Set(streamed).count == 25)
        var oldest: [String] = []
        try catalog.forEachPost(pageSize: 4, oldestFirst: true) { oldest.append($0.id) }
        #expect(oldest == streamed.reversed())
    }

    @Test func aNewRunIsAddedAndAChangedOneRebuilds() throws {
        let root = try root()
        try Self.write([Self.tweet("1", at: 1, tags: ["a"])], at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        try Self.write([Self.tweet("2", at: 2, tags: ["a"])], at: 2, name: "b.json", in: root)
        let added = try catalog.refresh()
        #expect(added.added == ["manifests/b.json"] && !added.rebuilt)
        #expect(try catalog.count(PostFilter(tag: "a")) == 2)
        #expect(try catalog.facets(limit: 5).tags.first?.posts == 2)

        // A manifest it read is gone: its posts go with it.
        try FileManager.default.removeItem(at: root.appendingPathComponent("manifests/a.json"))
        let rebuilt = try catalog.refresh()
        #expect(rebuilt.rebuilt)
        #expect(try catalog.posts(limit: 10).map(\.id) == ["2"])
        #expect(try catalog.facets(limit: 5).tags.first?.posts == 1)
    }

    /// Starting over replaces the whole file at once (a backup of an empty catalog):
    /// another connection in the middle of a read keeps what it was reading, and sees
    /// the new catalog when it reads again; a catalog of another schema goes the same way.
    @Test func startingOverLeavesAReaderItsSnapshotAndForgetsAnotherSchema() throws {
        let root = try root()
        try Self.write((1...30).map { Self.tweet("\($0)", at: Double($0), tags: ["old"]) }, at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        try FileManager.default.removeItem(at: root.appendingPathComponent("manifests/a.json"))
        try Self.write([Self.tweet("99", at: 99, tags: ["new"])], at: 2, name: "b.json", in: root)

        let other = try DatabaseQueue(path: catalog.path.path)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM posts") == 30)
            let report = try catalog.rebuild()
            #expect(report.rebuilt && report.added == ["manifests/b.json"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM post_tags WHERE tag = 'old'") == 30)
            try db.execute(sql: "COMMIT")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM posts") == 1)
        }
        #expect(try catalog.posts(limit: 10).map(\.id) == ["99"])
        #expect(try catalog.facets(limit: 5).tags.map(\.tag) == ["new"])

        try other.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE left_by_another_build(x); PRAGMA user_version = 1")
        }
        let reopened = try PostCatalog(cacheRoot: root)
        #expect(try reopened.count() == 0)
        let (version, stray) = try other.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try db.tableExists("left_by_another_build"))
        }
        #expect(version == PostCatalog.schemaVersion && !stray)
        #expect(try reopened.refresh().added == ["manifests/b.json"])
        #expect(try reopened.posts(limit: 10).map(\.id) == ["99"])
    }

    /// A post twice in one run: its last copy is kept, with only that copy's tags
    /// and references (a post's rows are written with its batch's, and the
    /// copy removed takes its rowid back), read post by post and the big way.
    @Test(arguments: [0, Int.max]) func aPostTwiceInARunKeepsOnlyItsLastCopysRows(bigRead: Int) throws {
        let root = try root()
        var first = Self.tweet("1", at: 1, tags: ["first"])
        first.author.avatar = MediaRef(url: "https://pbs.twimg.com/profile_images/a.jpg", sha256: String(repeating: "a", count: 64))
        var last = Self.tweet("1", at: 1, tags: ["last"])
        last.author.avatar = MediaRef(url: "https://pbs.twimg.com/profile_images/b.jpg", sha256: String(repeating: "b", count: 64))
        try Self.write([Self.tweet("0", at: 0), first, last], at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: bigRead)
        try catalog.refresh()
        #expect(try catalog.count() == 2)
        #expect(try catalog.count(PostFilter(tag: "first")) == 0 && catalog.count(PostFilter(tag: "last")) == 1)
        let rows = try DatabaseQueue(path: catalog.path.path).read { db in
            try [
                Int.fetchOne(db, sql: "SELECT count(*) FROM refs r JOIN blobs b ON b.id = r.blob WHERE hex(b.sha256) LIKE 'AAAA%'"),
                Int.fetchOne(db, sql: "SELECT count(*) FROM refs r JOIN blobs b ON b.id = r.blob WHERE hex(b.sha256) LIKE 'BBBB%'"),
                Int.fetchOne(db, sql: "SELECT count(*) FROM post_tags"),
            ]
        }
        #expect(rows == [0, 1, 1])
        // The run names both avatars: `gc` keeps what any run named.
        #expect(try catalog.referencedHashes() == [String(repeating: "a", count: 64), String(repeating: "b", count: 64)])
    }

    /// A run naming many blobs: `gc` sees every one, each once (a row of `blobs`),
    /// whether the writer still remembers a blob's number when it comes back or not.
    @Test(arguments: [0, Int.max]) func aRunNamingManyBlobsKeepsThemAll(bigRead: Int) throws {
        let root = try root()
        let count = 4_000
        func hash(_ i: Int) -> String { String(repeating: "0", count: 56) + String(format: "%08x", i) }
        let shared = String(repeating: "f", count: 64)
        let tweets = (0..<count).map { i -> ManifestTweet in
            var tweet = Self.tweet(String(i + 1), at: Double(i))
            // Every post a blob of its own; every tenth the shared one, named on both
            // sides of a write.
            tweet.author.avatar = MediaRef(url: "https://pbs.twimg.com/a/\(i).jpg", sha256: i % 10 == 0 ? shared : hash(i))
            return tweet
        }
        try Self.write(tweets, at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: bigRead)
        try catalog.refresh()
        let named = try catalog.referencedHashes()
        #expect(named.count == count - (count + 9) / 10 + 1)
        #expect(named.contains(shared) && named.contains(hash(count - 1)) && named.contains(hash(1)))
        let rows = try DatabaseQueue(path: catalog.path.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM blobs") }
        #expect(rows == named.count)
    }

    /// Every use of every blob, in hash order and per blob newest post first (quoted
    /// ones after): what `ls` lists, read in one pass however the blobs are numbered.
    @Test(arguments: [0, Int.max]) func blobUsesComeInHashOrderNewestPostFirst(bigRead: Int) throws {
        let root = try root()
        let low = String(repeating: "0", count: 63) + "1", high = String(repeating: "e", count: 64)
        func post(_ id: String, at seconds: Double, avatar: String) -> ManifestTweet {
            var tweet = Self.tweet(id, at: seconds)
            tweet.author.avatar = MediaRef(url: "https://pbs.twimg.com/profile_images/\(id).jpg", sha256: avatar)
            return tweet
        }
        // The blob named first gets the lower number and the higher hash.
        try Self.write([post("1", at: 1, avatar: high), post("2", at: 3, avatar: low), post("3", at: 2, avatar: low)],
                       included: [post("9", at: 9, avatar: low)], at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: bigRead)
        try catalog.refresh()
        var uses: [String] = []
        try catalog.forEachBlobUse { uses.append("\($0.sha256.prefix(2)) \($0.postID)") }
        #expect(uses == ["00 2", "00 3", "00 9", "ee 1"])
    }

    @Test func aRunAddedFromMemoryIsNotReadAgain() throws {
        let root = try root()
        try Self.write([Self.tweet("1", at: 1)], at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root)
        #expect(try catalog.add(manifestNamed: "a.json") == nil)
        let report = try catalog.refresh()
        #expect(report.added.isEmpty && !report.rebuilt)
        #expect(try catalog.count() == 1)
    }

    @Test func anUnfinishedRunIsReadAgainToTheEnd() throws {
        let root = try root()
        let posts = (1...(PostCatalog.batchSize + 10)).map { Self.tweet("\($0)", at: Double($0), tags: ["t"]) }
        try Self.write(posts, at: 1, name: "a.json", in: root)
        // As a process killed after the first batch leaves it: that batch's posts in,
        // written by the real path, and the run not marked complete.
        let full = root.appendingPathComponent("manifests/a.json")
        let whole = try Data(contentsOf: full)
        try Self.manifest(Array(posts.prefix(PostCatalog.batchSize)), at: 1, root: root).encoded().write(to: full)
        let catalog = try PostCatalog(cacheRoot: root)
        #expect(try catalog.add(manifestNamed: "a.json") == nil)
        try whole.write(to: full)
        let facts = try #require(PostCatalog.fileFacts(full.path))
        try catalog.write("simulate") { db in
            try db.execute(sql: "UPDATE runs SET complete = 0, size = ?, mtime = ?", arguments: [facts.size, facts.mtime])
        }
        #expect(try catalog.runs().isEmpty)
        let report = try catalog.refresh()
        #expect(report.added == ["manifests/a.json"])
        #expect(try catalog.count() == posts.count)
        #expect(try catalog.count(PostFilter(tag: "t")) == posts.count)
        #expect(try catalog.facets(limit: 1).tags.first?.posts == posts.count)
    }

    @Test func bytesThatAreNoLongerThePostAreNotServed() throws {
        let root = try root()
        try Self.write([Self.tweet("11", at: 1), Self.tweet("22", at: 2)], at: 1, name: "a.json", in: root)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        // The same bytes with the ids swapped, behind the catalog's back (no refresh).
        try Self.write([Self.tweet("22", at: 1), Self.tweet("11", at: 2)], at: 1, name: "a.json", in: root)
        #expect(throws: CatalogError.self) { try catalog.post(id: "11") }
        // The next refresh sees the change and reads the file again.
        #expect(try catalog.refresh().rebuilt)
        #expect(try catalog.post(id: "11")?.createdAt == Date(timeIntervalSince1970: 2))
    }

    @Test func aDamagedCatalogIsMadeAnewFromTheManifests() throws {
        let root = try root()
        try Self.write([Self.tweet("1", at: 1)], at: 1, name: "a.json", in: root)
        _ = try PostCatalog.open(cacheRoot: root)
        let file = root.appendingPathComponent(PostCatalog.fileName)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        #expect(try catalog.posts(limit: 10).map(\.id) == ["1"])
    }

    /// A catalog with pages of another size (made by another build, in WAL mode, where
    /// a backup cannot change the size) starts over with its size: `reindex` failed
    /// as read-only.
    @Test func aCatalogWithOtherPagesStartsOver() throws {
        let root = try root()
        try Self.write([Self.tweet("1", at: 1)], at: 1, name: "a.json", in: root)
        let file = root.appendingPathComponent(PostCatalog.fileName).path
        let other = try DatabaseQueue(path: file)
        try other.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL")
            try db.execute(sql: PostCatalog.schema)
            try db.execute(sql: "PRAGMA user_version = \(PostCatalog.schemaVersion)")
        }
        try other.close()
        let catalog = try PostCatalog.open(cacheRoot: root).catalog
        #expect(try catalog.posts(limit: 10).map(\.id) == ["1"])
        #expect(try catalog.rebuild().rebuilt)
        #expect(try catalog.posts(limit: 10).map(\.id) == ["1"])
        let pageSize = try DatabaseQueue(path: file).read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        #expect(pageSize == 16384)
    }

    @Test func missingManifestsFolderIsAnEmptyCatalog() throws {
        let root = try root()
        let (catalog, report) = try PostCatalog.open(cacheRoot: root)
        #expect(try catalog.count() == 0)
        #expect(report.problems.isEmpty && report.added.isEmpty)
    }

    @Test func ordersIdsNumericallyThenAsText() {
        #expect(PostOrder.idKey("10") > PostOrder.idKey("9"))
        #expect(PostOrder.idKey("0010") == PostOrder.idKey("10"))
        #expect(PostOrder.idKey("at://did/x") > PostOrder.idKey("99999"))
        #expect(PostOrder.comesBefore((Date(timeIntervalSince1970: 2), "1"), (Date(timeIntervalSince1970: 1), "2")))
        #expect(PostOrder.comesBefore((Date(timeIntervalSince1970: 1), "1"), (nil, "2")))
    }

    /// The key is written over the id's bytes: the same keys as spelled out by
    /// characters, for ids of every kind and length around the limits.
    @Test func idKeysAreTheKeysSpelledOutByCharacters() {
        func spelled(_ id: String) -> String {
            guard !id.isEmpty, id.utf8.count < 1000, id.utf8.allSatisfy({ (48...57).contains($0) }) else { return "1" + id }
            let digits = id.drop { $0 == "0" }
            let length = String(digits.count)
            return "0" + String(repeating: "0", count: 3 - length.count) + length + digits
        }
        let ids = ["", "0", "000", "7", "0007", "1700000000000000000", "12a", "a12", "-5", "１２", "٣", "café", "e\u{301}",
                   String(repeating: "9", count: 999), "0" + String(repeating: "9", count: 998),
                   String(repeating: "9", count: 1000), String(repeating: "0", count: 999), "at://did:plc:x/app.bsky.feed.post/3k"]
        for id in ids { #expect(PostOrder.idKey(id) == spelled(id), "\(id.prefix(20))") }
        #expect(PostOrder.idKey("0007").utf8.elementsEqual("00017".utf8))
    }
}
