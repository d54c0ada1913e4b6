import BlobStore
import Foundation
import TweetModel
internal import GRDB
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// How many posts (not included ones), included posts and runs the catalog holds.
    public struct Totals: Sendable, Equatable {
        public var posts: Int
        public var includedPosts: Int
        public var runs: Int
    }

    public func totals() throws(CatalogError) -> Totals {
        try read("count") { db in
            Totals(
                posts: try Int.fetchOne(db, sql: "SELECT count(*) FROM posts WHERE included = 0") ?? 0,
                includedPosts: try Int.fetchOne(db, sql: "SELECT count(*) FROM posts WHERE included = 1") ?? 0,
                runs: try Int.fetchOne(db, sql: "SELECT count(*) FROM runs WHERE complete = 1") ?? 0)
        }
    }

    /// The runs read, oldest first.
    public func runs() throws(CatalogError) -> [ManifestFileInfo] {
        try read("list runs") { db in
            try Row.fetchAll(db, sql: "SELECT path, generated_at, tweets FROM runs WHERE complete = 1 ORDER BY generated_at, path")
                .map { ManifestFileInfo(path: $0["path"], generatedAt: Date(timeIntervalSince1970: $0["generated_at"]), tweets: $0["tweets"]) }
        }
    }

    /// Manifest files that could not be read, with why, in file order.
    public func problems() throws(CatalogError) -> [String] {
        try read("list problems") { db in try String.fetchAll(db, sql: "SELECT message FROM problems ORDER BY path") }
    }

    /// A post by id: the posts first, then the included (quoted, retweeted) ones.
    public func post(id: String) throws(CatalogError) -> ManifestTweet? {
        try read("find a post") { db in
            // Each lookup one probe of UNIQUE (included, id).
            for included in [0, 1] {
                let rows = try Row.fetchAll(db, sql: "SELECT id, run, offset, length FROM posts WHERE included = ? AND id = ?",
                                            arguments: [included, id])
                if let post = try loadPosts(rows, db).first { return post }
            }
            return nil
        }
    }

    /// A page of the posts `filter` selects, in ``PostOrder`` (or its reverse, oldest
    /// first), starting after `key`. `offset` skips that many first (for numbered pages;
    /// a key is cheaper for scrolling).
    public func posts(_ filter: PostFilter = .all, after key: PostKey? = nil, offset: Int = 0, limit: Int,
                      oldestFirst: Bool = false) throws(CatalogError) -> [ManifestTweet]
    {
        guard limit > 0 else { return [] }
        return try read("list posts") { db in
            if let words = Self.wordsAlone(filter) {
                // A count a first page made (past manyMatches + 1, the lower bound a pass notes).
                let known = wordCounts.withLock { $0[words] }
                let many = known.map { $0 > manyMatches } ?? false
                let few = many ? nil : try fewMatches(words, db)
                return try loadPosts(try wordsPage(filter, after: key, offset: offset, limit: limit, oldestFirst: oldestFirst,
                                                   few: few, many: known.flatMap { $0 > manyMatches + 1 ? $0 : nil }, db), db)
            }
            let plan = try wordsPlan(filter, db)
            guard let query = Self.select("p.id, p.run, p.offset, p.length", filter, after: key, oldestFirst: oldestFirst,
                                          wordsDrive: plan.drive, matches: plan.matches)
            else { return [] }
            let sql = query.sql + query.order + " LIMIT ? OFFSET ?"
            let arguments = StatementArguments(query.arguments + [limit, max(0, offset)])
            return try loadPosts(try Row.fetchAll(db, sql: sql, arguments: arguments), db)
        }
    }

    /// The first page of the posts `filter` selects and how many it selects in all:
    /// with words to find, the matches are found once for both (an FTS5 query is most
    /// of the work), else as ``posts(_:after:offset:limit:)`` and ``count(_:)``.
    public func firstPage(_ filter: PostFilter, limit: Int) throws(CatalogError) -> (posts: [ManifestTweet], total: Int) {
        guard filter.text.flatMap(PostFilter.ftsQuery) != nil, limit > 0 else {
            return (try posts(filter, limit: limit), try count(filter))
        }
        if let words = Self.wordsAlone(filter) {
            // How many matches decides how to find the page: a few are read once, for
            // both the count and the page; past that the index counts its own, beside
            // the page.
            let few: (posts: [ManifestTweet], total: Int)? = try read("list posts") { db in
                if wordCounts.withLock({ $0[words] }).map({ $0 > manyMatches }) ?? false { return nil }
                guard let few = try fewMatches(words, db) else { return nil }
                guard !few.isEmpty else { return ([], 0) }
                return (try loadPosts(try wordsPage(filter, after: nil, limit: limit, oldestFirst: false, few: few, db), db),
                        few.count)
            }
            if let few { return few }
            return try firstPageOfManyMatches(filter, words: words, limit: limit)
        }
        return try read("list posts") { db in
            // Words beside a user, search or photos: the total needs every match joined
            // with its post anyway, so the page comes out of the same pass (walking
            // for the page and counting apart measured slower: `ul` by one author at a
            // million posts, 0.31-0.49 s against 0.20 s).
            guard let query = Self.select("p.id, p.run, p.offset, p.length, count(*) OVER () AS total", filter, after: nil) else {
                return ([], 0)
            }
            let rows = try Row.fetchAll(db, sql: query.sql + query.order + " LIMIT ?",
                                        arguments: StatementArguments(query.arguments + [limit]))
            return (try loadPosts(rows, db), rows.first?["total"] ?? 0)
        }
    }

    /// How many posts `filter` selects.
    public func count(_ filter: PostFilter = .all) throws(CatalogError) -> Int {
        try read("count posts") { db in
            // One tag, one author or none: the counts kept for the facets answer.
            switch filter.withPhotos ? nil : (filter.tag, filter.user, filter.text, filter.query) {
            case (nil, nil, nil, nil)?:
                return try Int.fetchOne(db, sql: "SELECT coalesce(sum(posts), 0) FROM authors") ?? 0
            case let (tag?, nil, nil, nil)?:
                return try Int.fetchOne(db, sql: "SELECT posts FROM tag_counts WHERE tag = ?", arguments: [tag]) ?? 0
            case let (nil, user?, nil, nil)?:
                return try Int.fetchOne(db, sql: "SELECT posts FROM authors WHERE user = ?", arguments: [user]) ?? 0
            default:
                break
            }
            if let words = Self.wordsAlone(filter) { return try matches(words, db) }
            guard let query = Self.select("count(*)", filter, after: nil) else { return 0 }
            return try Int.fetchOne(db, sql: query.sql, arguments: StatementArguments(query.arguments)) ?? 0
        }
    }

    /// Every post `filter` selects, in order, a page at a time: memory stays that of a page.
    public func forEachPost(_ filter: PostFilter = .all, pageSize: Int = 1_000, oldestFirst: Bool = false,
                            _ body: (ManifestTweet) throws -> Void) throws {
        var key: PostKey? = nil
        while true {
            let page = try posts(filter, after: key, limit: pageSize, oldestFirst: oldestFirst)
            for post in page { try body(post) }
            guard page.count == pageSize, let last = page.last else { return }
            key = PostKey(after: last)
        }
    }

    /// The most used hashtags and the most prolific authors among the posts, most first.
    public func facets(limit: Int) throws(CatalogError) -> (tags: [(tag: String, posts: Int)], users: [(handle: String, posts: Int)]) {
        try read("count tags and users") { db in
            let tags = try Row.fetchAll(db, sql: "SELECT display, posts FROM tag_counts ORDER BY posts DESC, display LIMIT ?",
                                        arguments: [limit]).map { (tag: $0["display"] as String, posts: $0["posts"] as Int) }
            let users = try Row.fetchAll(db, sql: "SELECT handle, posts FROM authors ORDER BY posts DESC, handle LIMIT ?",
                                         arguments: [limit]).map { (handle: $0["handle"] as String, posts: $0["posts"] as Int) }
            return (tags, users)
        }
    }

    /// Each search (the query of the posts fetched for it) with its number of posts
    /// and of posts with a servable photo, by query.
    public func searches() throws(CatalogError) -> [(query: String, posts: Int, withPhotos: Int)] {
        try read("list searches") { db in
            try Row.fetchAll(db, sql: """
                SELECT query, count(*) AS posts, sum(photos > 0) AS with_photos FROM posts
                WHERE included = 0 AND query IS NOT NULL GROUP BY query ORDER BY query
                """).map { (query: $0["query"], posts: $0["posts"], withPhotos: $0["with_photos"]) }
        }
    }

    // MARK: - Blobs

    /// Every place a current post uses the blob `sha256`: posts before included posts,
    /// each newest first.
    public func references(to sha256: String) throws(CatalogError) -> [ImageReference] {
        try read("find references") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT r.slot, r.kind, p.id, p.handle, p.created, p.run, p.offset, p.length
                FROM refs r JOIN posts p ON p.rowid = r.post WHERE r.blob = (SELECT id FROM blobs WHERE sha256 = ?)
                ORDER BY p.included, p.created DESC, p.id_order DESC, r.slot
                """, arguments: [Self.blob(sha256)])
            // The URL, media id and size are the post's: read back from its manifest.
            let posts = try loadPosts(rows, db)
            return zip(rows, posts).map { row, post in
                let slot: Int = row["slot"], created: Double = row["created"]
                var reference = ImageReference(
                    tweetID: row["id"], screenName: row["handle"], kind: ImageKind(code: row["kind"]), url: "",
                    position: slot == 0 ? nil : slot / 2, mediaID: nil,
                    createdAt: created == PostOrder.undated ? nil : Date(timeIntervalSince1970: created), bytes: nil)
                if slot == 0 {
                    reference.url = post.author.avatar?.url ?? ""
                    reference.bytes = post.author.avatar?.bytes
                } else if post.media.indices.contains(slot / 2 - 1) {
                    let media = post.media[slot / 2 - 1]
                    reference.mediaID = media.id
                    reference.url = (slot % 2 == 1 ? media.video?.url : media.url) ?? ""
                    reference.bytes = slot % 2 == 1 ? media.video?.bytes : media.bytes
                }
                return reference
            }
        }
    }

    /// One use of a blob by a post, as a listing of every blob needs it.
    public struct BlobUse: Sendable, Equatable {
        public var sha256: String
        public var postID: String
        public var handle: String
        public var kind: ImageKind
    }

    /// Every use of every blob by a current post, in hash order and, per hash, in the
    /// order of ``references(to:)``: one pass, nothing held but one blob's uses, and
    /// no post read back. The blobs in hash order drive it (`CROSS JOIN` keeps SQLite
    /// from scanning the references by number instead and sorting all of them: 1.8
    /// million rows at a million posts).
    public func forEachBlobUse(_ body: (BlobUse) throws -> Void) throws {
        try pool.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT lower(hex(b.sha256)), r.kind, p.id, p.handle
                FROM blobs b CROSS JOIN refs r ON r.blob = b.id CROSS JOIN posts p ON p.rowid = r.post
                ORDER BY b.sha256, p.included, p.created DESC, p.id_order DESC, r.slot
                """)
            while let row = try rows.next() {
                try body(BlobUse(sha256: row[0], postID: row[2], handle: row[3], kind: ImageKind(code: row[1])))
            }
        }
    }

    /// For each blob the current posts use: how many uses, and the strongest kind
    /// (photo over video over avatar). Counts kept as posts come and go, so one row
    /// per blob is read, not every use.
    public func referenceSummary() throws(CatalogError) -> [String: (uses: Int, kind: ImageKind)] {
        try read("summarise references") { db in
            var result: [String: (uses: Int, kind: ImageKind)] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT lower(hex(sha256)), photo, video, avatar FROM blob_uses")
            while let row = try rows.next() {
                let photo: Int = row[1], video: Int = row[2], avatar: Int = row[3]
                result[row[0]] = (photo + video + avatar, photo > 0 ? .photo : video > 0 ? .video : .avatar)
            }
            return result
        }
    }

    /// Every blob any run named, before newer runs replaced its posts: what `gc` keeps.
    public func referencedHashes() throws(CatalogError) -> Set<String> {
        try read("list referenced blobs") { db in
            var result = Set<String>()
            let rows = try String.fetchCursor(db, sql: "SELECT lower(hex(sha256)) FROM blobs")
            while let sha = try rows.next() { result.insert(sha) }
            return result
        }
    }

    /// The blobs the posts `filter` selects use (avatars, media, videos).
    public func hashes(_ filter: PostFilter) throws(CatalogError) -> Set<String> {
        try read("list blobs of posts") { db in
            guard let query = Self.select("p.rowid", filter, after: nil) else { return [] }
            let sql = "SELECT lower(hex(sha256)) FROM blobs WHERE id IN (SELECT blob FROM refs WHERE post IN (\(query.sql)))"
            return Set(try String.fetchAll(db, sql: sql, arguments: StatementArguments(query.arguments)))
        }
    }

    /// Hashes the current posts use that start with `prefix` (lower-case hex), at most 100.
    public func hashes(prefix: String) throws(CatalogError) -> [String] {
        guard !prefix.isEmpty, prefix.count <= 64, prefix.allSatisfy(\.isHexDigit),
              let low = Self.blob(prefix.padding(toLength: 64, withPad: "0", startingAt: 0)),
              let high = Self.blob(prefix.padding(toLength: 64, withPad: "f", startingAt: 0))
        else { return [] }
        return try read("find a hash prefix") { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT lower(hex(sha256)) FROM blob_uses WHERE sha256 BETWEEN ? AND ? LIMIT 100",
                                arguments: [low, high])
        }
    }

    /// A hash as the catalog stores it: its 32 bytes; nil for anything but 64 hex digits.
    static func blob(_ hex: String) -> Data? {
        blobHash(hex).map { Data($0.bytes) }
    }

    /// A hash named in a manifest or asked for: 64 hex digits, either case; nil for
    /// anything else (a hand-edited manifest names no blob).
    static func blobHash(_ hex: String) -> BlobHash? {
        BlobHash(hex: hex) ?? (hex.utf8.count == 64 ? BlobHash(hex: hex.lowercased()) : nil)
    }

    // MARK: - Parts

    /// Above this many matches, a page of posts with words walks the posts in order
    /// (asking the index of each, or through the set of matches) rather than finding
    /// every match first. At a million posts, one word in 875,091 of them: 0.2 s a page
    /// instead of 1.2 s through the set, 15 ms asking post by post. Fewer matches are
    /// found in one pass, which also counts them, and then walked or sorted
    /// (``wordsPage(_:after:offset:limit:oldestFirst:few:many:_:)``).
    /// ``manyMatches`` but in tests, which walk small catalogs too.
    static let defaultManyMatches = 20_000

    /// The FTS5 query of a filter that is only words (no tag, user, search or photos),
    /// whose count the index answers alone.
    static func wordsAlone(_ filter: PostFilter) -> String? {
        guard filter.tag == nil, filter.user == nil, filter.query == nil, !filter.withPhotos else { return nil }
        return filter.text.flatMap(PostFilter.ftsQuery)
    }

    /// How many posts hold the words of `fts`: the full-text index's own count (it
    /// holds the posts, not included ones), a third of the time of the same count
    /// joined with the posts. Remembered for later pages' plans (``wordCounts``).
    func matches(_ fts: String, _ db: Database) throws -> Int {
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ?", arguments: [fts]) ?? 0
        remember(fts, count: count)
        return count
    }

    /// Notes how many posts hold `fts`'s words, for later pages' plans; a bounded table.
    /// `unlessLarger`: kept only if no larger count is noted (a lower bound).
    func remember(_ fts: String, count: Int, unlessLarger: Bool = false) {
        wordCounts.withLock { counts in
            if counts.count >= Self.rememberedWordCounts { counts.removeAll(keepingCapacity: true) }
            if !unlessLarger || (counts[fts] ?? 0) < count { counts[fts] = count }
        }
    }

    /// The rowids of the posts holding `fts`'s words, when there are at most
    /// ``manyMatches`` of them, else nil: one pass of the index, stopped one past the
    /// limit, that is both the count and the page's candidates. Counting first and
    /// then joining the matches made FTS5 find them twice (at a million posts, two
    /// words in 8,028 posts: 13 ms to count, 26 ms to join and sort).
    func fewMatches(_ fts: String, _ db: Database) throws -> [Int64]? {
        let found = try Int64.fetchAll(db, sql: "SELECT rowid FROM posts_fts WHERE posts_fts MATCH ? LIMIT ?",
                                       arguments: [fts, manyMatches + 1])
        // Past the limit, remembered as manyMatches + 1 (that there are more, never a total)
        // unless a count is known, so later pages skip this pass.
        remember(fts, count: found.count, unlessLarger: found.count > manyMatches)
        return found.count <= manyMatches ? found : nil
    }

    /// How a page finds the posts with `filter`'s words: the matches drive the scan
    /// (a few of them, read once by ``fewMatches(_:_:)``; or a tag beside them), else
    /// the posts are walked in order (``manyMatches``). A page after the first takes
    /// the count its first page made, when it is remembered, to skip a pass that
    /// would find too many.
    func wordsPlan(_ filter: PostFilter, _ db: Database) throws -> (drive: Bool, matches: [Int64]?) {
        guard filter.tag == nil, let fts = filter.text.flatMap(PostFilter.ftsQuery) else { return (true, nil) }
        if let known = wordCounts.withLock({ $0[fts] }), known > manyMatches { return (false, nil) }
        let few = try fewMatches(fts, db)
        return (few != nil, few)
    }

    /// `SELECT <columns> FROM …` for `filter`, and the order to list it in: by the
    /// tag table's copy of the sort key when a tag drives the scan (one index range),
    /// else by the post's own. Nil when the filter can match nothing.
    ///
    /// With words, `wordsDrive` says who leads: the matches, found by FTS5 and then
    /// sorted (few matches), or the posts in order, each kept when it is among the
    /// matches (many: ``wordsPlan(_:_:)``).
    ///
    /// `matches`, when given, are the rowids of every post with the words
    /// (``fewMatches(_:_:)``), looked up instead of asking FTS5 again.
    static func select(_ columns: String, _ filter: PostFilter, after key: PostKey?, oldestFirst: Bool = false,
                       wordsDrive: Bool = true, matches: [Int64]? = nil)
        -> (sql: String, arguments: [DatabaseValueConvertible?], order: String)?
    {
        var sql: String
        var arguments: [DatabaseValueConvertible?] = []
        let o: String
        let fts = filter.text.flatMap(PostFilter.ftsQuery)
        if let fts, !wordsDrive, filter.tag == nil {
            // The matches as a set SQLite makes once (a rowid each), and the posts
            // walked in order through it: no sort of every match.
            // `+p.rowid`: never the set as the lead, whatever statistics SQLite has
            // (with `ANALYZE`'s it would look the rowids up and sort them again).
            sql = "SELECT \(columns) FROM posts p WHERE p.included = 0 AND +p.rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)"
            arguments.append(fts)
            o = "p"
        } else if fts != nil, let matches {
            // The matches already found drive the scan: each looked up by rowid
            // (`CROSS JOIN`: the list leads, whatever statistics SQLite has), then sorted.
            sql = "SELECT \(columns) FROM json_each(?) m CROSS JOIN posts p ON p.rowid = m.value WHERE p.included = 0"
            arguments.append("[" + matches.lazy.map(String.init).joined(separator: ",") + "]")
            o = "p"
            if let tag = filter.tag {
                sql += " AND p.rowid IN (SELECT post FROM post_tags WHERE tag = ?)"
                arguments.append(tag)
            }
        } else if let fts {
            // Words drive the scan: the matches are found by FTS5 and then sorted,
            // rather than every post in order tested against them.
            sql = "SELECT \(columns) FROM posts_fts f CROSS JOIN posts p ON p.rowid = f.rowid WHERE posts_fts MATCH ? AND p.included = 0"
            arguments.append(fts)
            o = "p"
            if let tag = filter.tag {
                sql += " AND p.rowid IN (SELECT post FROM post_tags WHERE tag = ?)"
                arguments.append(tag)
            }
        } else if let tag = filter.tag {
            sql = "SELECT \(columns) FROM post_tags o JOIN posts p ON p.rowid = o.post WHERE o.tag = ?"
            arguments.append(tag)
            o = "o"
        } else {
            sql = "SELECT \(columns) FROM posts p WHERE p.included = 0"
            o = "p"
        }
        if let user = filter.user {
            sql += " AND p.user = ?"
            arguments.append(user)
        }
        if let query = filter.query {
            sql += " AND p.query = ?"
            arguments.append(query)
        }
        if filter.withPhotos { sql += " AND p.photos > 0" }
        if let text = filter.text, fts == nil {
            // Nothing FTS5 indexes (symbols, emoji): a substring scan, as before FTS.
            sql += " AND p.rowid IN (SELECT rowid FROM posts_fts WHERE instr(lower(text), ?) > 0"
                + " OR instr(lower(name), ?) > 0 OR instr(lower(handle), ?) > 0)"
            let lower = text.lowercased()
            arguments += [lower, lower, lower]
        }
        if let key {
            sql += " AND (\(o).created, \(o).id_order) \(oldestFirst ? ">" : "<") (?, ?)"
            arguments += [PostOrder.created(key.createdAt), PostOrder.idKey(key.id)]
        }
        let direction = oldestFirst ? "" : " DESC"
        return (sql, arguments, " ORDER BY \(o).created\(direction), \(o).id_order\(direction)")
    }

    /// The posts at `rows`' `run`, `offset` and `length`, in order: each read back
    /// from its run's manifest (one open per run and lane, one `pread` or a frame or
    /// two a post: ``ManifestBytes``), decoded, and trusted only when it is the post
    /// the row names (its `id`). A page of posts is read and decoded on every core:
    /// a compressed manifest's frames are most of a page's time.
    func loadPosts(_ rows: [Row], _ db: Database) throws -> [ManifestTweet] {
        struct Place: Sendable {
            var path: String
            var range: Range<Int>
            var id: String
        }
        var paths: [Int64: String] = [:]
        let places = try rows.map { row -> Place in
            let run: Int64 = row["run"], offset: Int = row["offset"], length: Int = row["length"]
            if paths[run] == nil {
                guard let path = try String.fetchOne(db, sql: "SELECT path FROM runs WHERE id = ?", arguments: [run]),
                      CacheKey(path: path)?.kind == .manifest
                else { throw CatalogError.database(operation: "read a post", message: "run \(run) is not in the catalog") }
                paths[run] = path
            }
            guard length > 0, length <= Self.largestPost, offset >= 0, offset < Int.max / 2 else {
                throw CatalogError.database(operation: "read a post", message: "a post of \(length) bytes")
            }
            return Place(path: paths[run]!, range: offset..<(offset + length), id: row["id"])
        }
        let root = cacheRoot
        let lanes = places.count >= 16 ? min(ProcessInfo.processInfo.activeProcessorCount, 4) : 1
        let parts = ParallelSlices.split(places.indices, parts: lanes)
        let read = ParallelSlices.map(parts.count) { lane -> [Result<ManifestTweet, CatalogError>] in
            let decoder = ManifestFile.decoder
            var files: [String: ManifestBytes] = [:]
            return parts[lane].map { i -> Result<ManifestTweet, CatalogError> in
                let place = places[i]
                let file: ManifestBytes
                if let open = files[place.path] {
                    file = open
                } else {
                    do throws(SeekableZstd.Problem) {
                        guard let opened = try ManifestBytes(path: root.appendingPathComponent(place.path).path) else {
                            return .failure(.database(operation: "read a post", message: "\(place.path): \(String(cString: strerror(errno)))"))
                        }
                        file = opened
                    } catch {
                        return .failure(.database(operation: "read a post", message: "\(place.path): \(error)"))
                    }
                    files[place.path] = file
                }
                guard let bytes = file.read(place.range) else {
                    return .failure(.database(operation: "read a post",
                                              message: "its manifest is shorter than the catalog says, or damaged there"))
                }
                // Bytes that do not decode, or decode to another post: the file changed
                // behind the catalog's back, and the next refresh rebuilds it.
                guard let post = try? decoder.decode(ManifestTweet.self, from: bytes), post.id == place.id else {
                    return .failure(.database(operation: "read a post", message: "its manifest changed since it was read"))
                }
                return .success(post)
            }
        }
        return try read.flatMap { $0 }.map { try $0.get() }
    }

    /// A post's JSON larger than this is not read back (a real one is a few kilobytes).
    static let largestPost = 16 << 20

}
