import Foundation
import GRDB
import Testing
import TestSupport
@testable import Catalog

/// A big read (an empty catalog filled without its indexes, the counts made at the
/// end) must leave the catalog a read post by post leaves: these read the same runs
/// both ways, with the threshold for "big" set to nothing and to everything.
@Suite struct BigReadTests {
    static func hash(_ n: Int) -> String { String(format: "%064x", n) }

    /// A post with an avatar (by author), a photo (shared by several posts), tags in
    /// two spellings and a mention.
    static func post(_ n: Int, user: String, tags: [String], photo: Int?) -> ManifestTweet {
        var post = PostCatalogTests.tweet("\(1000 + n)", at: Double(n), user: user, tags: tags, text: "word\(n % 4) common")
        post.author.avatar = MediaRef(url: "https://pbs.twimg.com/profile_images/\(user).jpg", sha256: hash(10_000 + user.count))
        if let photo {
            post.media = [ManifestTweet.Media(id: "m\(n)", type: "photo", url: "https://pbs.twimg.com/media/\(photo).jpg",
                                              sha256: hash(photo))]
        }
        return post
    }

    /// Three runs: the second fetches some of the first's posts again (by a renamed
    /// author, other tags, another photo: a tag and a photo lose all their posts), the
    /// third has quoted posts.
    static func writeRuns(in root: URL) throws {
        let users = ["ana", "Bo", "cy"]
        let first = (0..<40).map { n in
            post(n, user: users[n % 3], tags: n == 15 ? ["Gone"] : n % 2 == 0 ? ["Swift"] : ["swift", "Linux"],
                 photo: n % 3 == 0 ? n % 5 : nil)
        }
        let again = (10..<20).map { n in post(n, user: "Bo_renamed", tags: ["Again"], photo: 100 + n % 2) }
        // The same author by a handle spelt otherwise: the one read last is shown.
        let more = (40..<60).map { n in post(n, user: ["ana", "Bo", "CY"][n % 3], tags: ["LINUX"], photo: n % 7) }
        try PostCatalogTests.write(first, at: 1000, name: "a.json", in: root)
        try PostCatalogTests.write(again, at: 2000, name: "b.json", in: root)
        try PostCatalogTests.write(more, included: [post(99, user: "quoted", tags: ["Swift"], photo: 3)], at: 3000,
                                   name: "c.json", in: root)
    }

    /// What a catalog's counts say: facets, per-tag and per-user counts, blobs' uses.
    static func counts(_ catalog: PostCatalog) throws -> [String] {
        let facets = try catalog.facets(limit: 100)
        var lines = facets.tags.map { "tag \($0.tag) \($0.posts)" } + facets.users.map { "user \($0.handle) \($0.posts)" }
        for tag in ["swift", "linux", "again", "none"] { lines.append("count #\(tag) \(try catalog.count(PostFilter(tag: tag)))") }
        for user in ["ana", "bo", "bo_renamed", "quoted"] {
            lines.append("count @\(user) \(try catalog.count(PostFilter(user: user)))")
        }
        lines += try catalog.referenceSummary().sorted { $0.key < $1.key }.map { "blob \($0.key) \($0.value.uses) \($0.value.kind)" }
        lines.append("words \(try catalog.posts(PostFilter(text: "word1 comm"), limit: 100).map(\.id))")
        let totals = try catalog.totals()
        lines.append("totals \(totals.posts) \(totals.includedPosts) \(totals.runs)")
        return lines
    }

    @Test func aBigReadCountsWhatAReadPostByPostCounts() throws {
        let small = try ScratchDirectory.make("tc-bigread-small"), big = try ScratchDirectory.make("tc-bigread-big")
        try Self.writeRuns(in: small)
        try Self.writeRuns(in: big)
        let byPost = try PostCatalog(cacheRoot: small, bigRead: .max)
        try byPost.refresh()
        let bulk = try PostCatalog(cacheRoot: big, bigRead: 0)
        try bulk.refresh()
        let expected = try Self.counts(byPost)
        #expect(expected.contains("user Bo_renamed 10"))
        #expect(expected.contains("count #swift 30"))
        #expect(expected.contains("user CY 17"))
        #expect(!expected.contains { $0.hasPrefix("tag Gone") })
        #expect(try Self.counts(bulk) == expected)
        // Nothing is left pending, and the indexes are back.
        let pending = try DatabaseQueue(path: bulk.path.path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pending") }
        #expect(pending == 0)
        let indexes = try DatabaseQueue(path: bulk.path.path).read { db in
            try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        }
        #expect(Set(PostCatalog.indexNames).isSubset(of: indexes))
        // The rows of the posts newer runs replaced, left to the end of the read, are
        // gone: each table holds what the read post by post left, and nothing of a post
        // no longer there.
        func rows(_ catalog: PostCatalog) throws -> [Int] {
            try DatabaseQueue(path: catalog.path.path).read { db in
                try ["post_tags", "refs"].flatMap { table in
                    try [Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1,
                         Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE post NOT IN (SELECT rowid FROM posts)") ?? -1]
                }
            }
        }
        let expectedRows = try rows(byPost)
        #expect(expectedRows.enumerated().allSatisfy { $0.offset % 2 == 1 ? $0.element == 0 : $0.element > 0 })
        #expect(try rows(bulk) == expectedRows)
    }

    /// A table that wrongly takes every hash for new (its read did not start from an
    /// empty `blobs`) costs a question, never a wrong number: the insert finds the hash
    /// there and the writer asks for its number.
    @Test func aBlobTakenForNewKeepsItsNumber() throws {
        let root = try ScratchDirectory.make("tc-bigread-blobs")
        try Self.writeRuns(in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: .max)
        let files = try catalog.manifestFiles().sorted { $0.path < $1.path }
        for file in files.dropLast() { _ = try catalog.ingestFile(file) }
        func blobs() throws -> [String: Int64] {
            try DatabaseQueue(path: catalog.path.path).read { db in
                var result: [String: Int64] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT hex(sha256), id FROM blobs") { result[row[0]] = row[1] }
                return result
            }
        }
        let before = try blobs()
        let wrong = BlobNumbers(capacity: 8, fromEmpty: true)
        let outcome = try catalog.ingestFile(try #require(files.last), blobNumbers: wrong)
        #expect(outcome.read && outcome.problem == nil)
        let after = try blobs()
        // The last run names photos the first two named (n % 7 of 40..<60 meets n % 5 of 0..<40).
        #expect(after.count > before.count)
        for (hash, id) in before { #expect(after[hash] == id) }
        let dangling = try DatabaseQueue(path: catalog.path.path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM refs WHERE blob NOT IN (SELECT id FROM blobs)")
        }
        #expect(dangling == 0)
    }

    /// A read from nothing numbers the posts itself and leaves replaced copies' rows
    /// to its end: a newer run read first keeps its copy, a post given twice in one run
    /// keeps the later, and ids SQLite tells apart by their bytes (accents composed two
    /// ways) stay two posts, as a read post by post leaves them.
    @Test func aReadFromNothingKeepsTheCopiesAReadPostByPostKeeps() throws {
        func writeRuns(in root: URL) throws {
            let tweet = PostCatalogTests.tweet
            try PostCatalogTests.write([tweet("1", 1, "dana", [], "newer one", nil), tweet("2", 2, "dana", [], "newer two", nil)],
                                       at: 3000, name: "a.json", in: root)
            try PostCatalogTests.write([tweet("1", 1, "dana", [], "older one", nil), tweet("3", 3, "dana", [], "first three", nil),
                                        tweet("3", 3, "dana", [], "later three", nil),
                                        tweet("caf\u{E9}", 4, "dana", [], "composed", nil), tweet("cafe\u{301}", 5, "dana", [], "decomposed", nil)],
                                       included: [tweet("2", 2, "dana", [], "quoted two", nil)], at: 1000, name: "b.json", in: root)
        }
        let small = try ScratchDirectory.make("tc-bigread-keys-small"), big = try ScratchDirectory.make("tc-bigread-keys-big")
        try writeRuns(in: small)
        try writeRuns(in: big)
        let byPost = try PostCatalog(cacheRoot: small, bigRead: .max)
        try byPost.refresh()
        let bulk = try PostCatalog(cacheRoot: big, bigRead: 0)
        try bulk.refresh()
        func posts(_ catalog: PostCatalog) throws -> [String] {
            try DatabaseQueue(path: catalog.path.path).read { db in
                // Ids by their bytes: Swift's `String` equality takes both spellings of
                // "café" for one.
                try Row.fetchAll(db, sql: """
                    SELECT hex(p.id), p.included, r.path FROM posts p JOIN runs r ON r.id = p.run ORDER BY p.id, p.included
                    """).map { "\($0[0] as String) \($0[1] as Int) \($0[2] as String)" }
            }
        }
        func texts(_ catalog: PostCatalog) throws -> [[UInt8]] {
            try catalog.posts(limit: 100).map { Array("\($0.id) \($0.text)".utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        let expected = try posts(byPost)
        #expect(expected.count == 6)
        #expect(try posts(bulk) == expected)
        #expect(try texts(byPost) == ["1 newer one", "2 newer two", "3 later three", "cafe\u{301} decomposed", "caf\u{E9} composed"]
            .map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(try texts(bulk) == texts(byPost))
        #expect(try Self.counts(bulk) == Self.counts(byPost))
        let words = try DatabaseQueue(path: bulk.path.path).write { db in
            try db.execute(sql: "INSERT INTO posts_fts(posts_fts, rank) VALUES ('integrity-check', 1)")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts")
        }
        #expect(words == 5)
    }

    /// A read from nothing indexes the words in a file of its own and copies them in:
    /// the index must hold every current post once, not the copies newer runs
    /// replaced, and be whole by FTS5's own check.
    @Test func theWordsWrittenBesideTheCatalogAreItsPostsWords() throws {
        let root = try ScratchDirectory.make("tc-bigread-words")
        try Self.writeRuns(in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
        try catalog.refresh()
        let words = try DatabaseQueue(path: catalog.path.path).read { db in
            try [
                Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts"),
                Int.fetchOne(db, sql: "SELECT count(*) FROM posts WHERE included = 0"),
                Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts WHERE rowid NOT IN (SELECT rowid FROM posts WHERE included = 0)"),
            ]
        }
        #expect(words == [60, 60, 0])
        try DatabaseQueue(path: catalog.path.path).write { db in
            try db.execute(sql: "INSERT INTO posts_fts(posts_fts, rank) VALUES ('integrity-check', 1)")
        }
        // The builder's settings for a big read do not stay: the catalog merges and
        // gathers words as FTS5 does by default.
        let settings = try DatabaseQueue(path: catalog.path.path).read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT k, v FROM posts_fts_config WHERE k IN ('automerge', 'hashsize')")
                .map { ($0[0] as String, $0[1] as Int) })
        }
        #expect(settings == ["automerge": 4, "hashsize": PostCatalog.hashBytes])
        // The renamed author's posts are found by the new handle only.
        #expect(try catalog.posts(PostFilter(text: "renamed"), limit: 100).map(\.id).sorted() == (10..<20).map { "\(1000 + $0)" })
        #expect(try catalog.posts(PostFilter(text: "cy"), limit: 100).allSatisfy { !(1010..<1020).contains(Int($0.id) ?? 0) })
        #expect(!FileManager.default.fileExists(atPath: catalog.path.path + PostCatalog.fullTextSuffix))
    }

    /// The words of a replaced post leave the index at the end of the read (in rowid
    /// order), unless SQLite gives its rowid again (it does when the last post written
    /// is the one replaced): then they leave before the new post's come in.
    @Test func aReplacedPostLosesItsOldWordsWhereverItsRowidGoes() throws {
        let root = try ScratchDirectory.make("tc-bigread-reuse")
        let last = PostCatalogTests.tweet("500", at: 5, text: "alpha")
        try PostCatalogTests.write([PostCatalogTests.tweet("400", at: 4, text: "bravo"), last], at: 1000, name: "a.json", in: root)
        var again = last
        again.text = "charlie"
        try PostCatalogTests.write([again, PostCatalogTests.tweet("400", at: 4, text: "delta"), PostCatalogTests.tweet("600", at: 6, text: "echo")],
                                   at: 2000, name: "b.json", in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
        try catalog.refresh()
        func found(_ word: String) throws -> [String] { try catalog.posts(PostFilter(text: word), limit: 10).map(\.id) }
        #expect(try found("alpha") == [] && found("bravo") == [])
        #expect(try found("charlie") == ["500"] && found("delta") == ["400"] && found("echo") == ["600"])
        let rows = try DatabaseQueue(path: catalog.path.path).write { db in
            try db.execute(sql: "INSERT INTO posts_fts(posts_fts, rank) VALUES ('integrity-check', 1)")
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts")
        }
        #expect(rows == 3)
    }

    /// A catalog read the big way, then left as a process killed before `what` was
    /// done leaves it: `undo` takes back what that step wrote, and `pending` owes it.
    /// Returns the catalog and what its counts said when whole.
    static func cutShort(_ name: String, before what: String, undo: String) throws -> (PostCatalog, expected: [String]) {
        let root = try ScratchDirectory.make(name)
        try writeRuns(in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
        try catalog.refresh()
        let expected = try counts(catalog)
        try DatabaseQueue(path: catalog.path.path).write { db in
            try db.execute(sql: undo)
            try db.execute(sql: "INSERT INTO pending(what) VALUES (?)", arguments: [what])
        }
        return (catalog, expected)
    }

    @Test func aReadFromNothingCutShortBeforeItsWordsStartsOver() throws {
        // Killed after the posts and before their words were copied in (the builder's
        // file left behind).
        let (catalog, expected) = try Self.cutShort("tc-bigread-words-cut", before: "fts", undo: "DELETE FROM posts_fts")
        let root = catalog.cacheRoot
        try Data("left over".utf8).write(to: URL(fileURLWithPath: catalog.path.path + PostCatalog.fullTextSuffix))
        #expect(try catalog.posts(PostFilter(text: "word1 comm"), limit: 100).isEmpty)
        let next = try PostCatalog(cacheRoot: root, bigRead: 0)
        let report = try next.refresh()
        #expect(report.rebuilt && report.added.count == 3)
        #expect(try Self.counts(next) == expected)
        #expect(!FileManager.default.fileExists(atPath: catalog.path.path + PostCatalog.fullTextSuffix))
    }

    /// The format byte of a database file's header: 1 with a rollback journal or
    /// none, 2 in WAL mode.
    static func headerMode(_ path: String) -> UInt8? {
        guard let data = FileManager.default.contents(atPath: path), data.count > 19 else { return nil }
        return data[data.startIndex + 18]
    }

    /// Reads the three runs into an empty catalog the big way, as `sync` hands them
    /// over, noting the file's header each time the read asks for the next run.
    static func readArriving(_ catalog: PostCatalog, alone: Bool = true) throws -> [UInt8?] {
        let names = ["a.json", "b.json", "c.json"]
        var modes: [UInt8?] = [], index = 0
        let path = catalog.path.path
        try catalog.add(manifestsArriving: {
            modes.append(headerMode(path))
            defer { index += 1 }
            return index < names.count ? ManifestArrival(name: names[index], manifest: nil) : nil
        }, bytes: 1, alone: alone)
        return modes
    }

    /// A read from nothing writes the file with no journal (not through the log), and
    /// leaves it in WAL mode, whole, nothing pending, counting what a read post by post counts.
    @Test func aReadFromNothingWritesWithoutALogAndEndsInWALMode() throws {
        let small = try ScratchDirectory.make("tc-bigread-nolog-small"), big = try ScratchDirectory.make("tc-bigread-nolog-big")
        try Self.writeRuns(in: small)
        try Self.writeRuns(in: big)
        let byPost = try PostCatalog(cacheRoot: small, bigRead: .max)
        try byPost.refresh()
        let catalog = try PostCatalog(cacheRoot: big, bigRead: 0)
        #expect(Self.headerMode(catalog.path.path) == 2)
        #expect(try Self.readArriving(catalog) == [1, 1, 1, 1])
        #expect(Self.headerMode(catalog.path.path) == 2)
        let (pending, check, mode) = try DatabaseQueue(path: catalog.path.path).read { db in
            (try String.fetchAll(db, sql: "SELECT what FROM pending"), try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(pending.isEmpty && check == "ok" && mode == "wal")
        #expect(!FileManager.default.fileExists(atPath: catalog.path.path + PostCatalog.unjournaledSuffix))
        #expect(try Self.counts(catalog) == Self.counts(byPost))
        // `reindex`'s way, to the same catalog.
        let report = try catalog.rebuild(alone: true)
        #expect(report.rebuilt && report.added.count == 3)
        #expect(Self.headerMode(catalog.path.path) == 2)
        #expect(!FileManager.default.fileExists(atPath: catalog.path.path + PostCatalog.unjournaledSuffix))
        #expect(try Self.counts(catalog) == Self.counts(byPost))
    }

    /// A caller that may read the catalog meanwhile (a `serve` refreshing its own) keeps
    /// the log: its readers would otherwise wait on the writer's locks.
    @Test func aReadWithReadersOfItsOwnKeepsTheLog() throws {
        let root = try ScratchDirectory.make("tc-bigread-nolog-readers")
        try Self.writeRuns(in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
        #expect(try Self.readArriving(catalog, alone: false) == [2, 2, 2, 2])
        #expect(try catalog.count() == 60)
    }

    /// Another connection to the catalog (another process's `serve`) keeps SQLite in
    /// WAL mode: the read goes through the log, without waiting, and leaves no mark.
    @Test func anotherConnectionKeepsTheReadInTheLog() throws {
        let root = try ScratchDirectory.make("tc-bigread-nolog-other")
        try Self.writeRuns(in: root)
        let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
        let other = try DatabaseQueue(path: catalog.path.path)
        #expect(try other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM runs") } == 0)
        let started = ContinuousClock.now
        #expect(try Self.readArriving(catalog) == [2, 2, 2, 2])
        #expect(ContinuousClock.now - started < .seconds(PostCatalog.busySeconds / 2))
        let (posts, pending) = try other.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM posts WHERE included = 0"), try String.fetchAll(db, sql: "SELECT what FROM pending"))
        }
        #expect(posts == 60 && pending.isEmpty)
    }

    /// A catalog a read without a journal did not finish (the process or the machine
    /// stopped) may be damaged where no query looks: it is made anew when it next opens,
    /// and the next refresh reads every run.
    @Test func aCatalogLeftWithoutItsJournalIsMadeAnew() throws {
        let root = try ScratchDirectory.make("tc-bigread-nolog-cut")
        try Self.writeRuns(in: root)
        let path: String
        let expected: [String]
        do {
            let catalog = try PostCatalog(cacheRoot: root, bigRead: 0)
            try catalog.refresh()
            expected = try Self.counts(catalog)
            path = catalog.path.path
        }
        // Kept beside it: a near-duplicate index that numbers its photos.
        try Data("kept".utf8).write(to: URL(fileURLWithPath: path + PostCatalog.perceptualSuffix))
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO problems(path, size, mtime, message) VALUES ('planted', 0, 0, 'planted')")
        }
        // The mark a read without a journal leaves until the file is synced and back in WAL mode.
        #expect(PostCatalog.makeDurably(path + PostCatalog.unjournaledSuffix))
        let next = try PostCatalog(cacheRoot: root, bigRead: 0)
        #expect(try next.count() == 0)
        #expect(!FileManager.default.fileExists(atPath: path + PostCatalog.perceptualSuffix))
        #expect(!FileManager.default.fileExists(atPath: path + PostCatalog.unjournaledSuffix))
        let report = try next.refresh()
        #expect(report.added.count == 3)
        #expect(try Self.counts(next) == expected)
        let (planted, pending) = try DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM problems WHERE path = 'planted'"), try String.fetchAll(db, sql: "SELECT what FROM pending"))
        }
        #expect(planted == 0 && pending.isEmpty)
    }

    @Test func countsLeftPendingByAReadCutShortAreMadeByTheNextRefresh() throws {
        // Killed after the last batch and before the counts.
        let (catalog, expected) = try Self.cutShort("tc-bigread-cut", before: "counts",
                                                    undo: "DELETE FROM authors; DELETE FROM blob_uses; UPDATE tag_counts SET posts = 1")
        let root = catalog.cacheRoot
        #expect(try Self.counts(catalog) != expected)
        let next = try PostCatalog(cacheRoot: root)
        let report = try next.refresh()
        #expect(report.added.isEmpty && !report.rebuilt)
        #expect(try Self.counts(next) == expected)
    }
}
