import Foundation
public import BlobStore
internal import GRDB
import TweetModel
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// The posts (own and included copies) whose author has `handle` (without `@`,
    /// case ignored), or whose author id is `handle`: the authors are found by their
    /// newest handle (`authors`), their posts through the index by author.
    public func postKeys(byAuthor handle: String) throws(CatalogError) -> [PostIdentity] {
        let name = handle.hasPrefix("@") ? String(handle.dropFirst()) : handle
        let users = try read("find an author") { db in
            try String.fetchAll(db, sql: "SELECT user FROM authors WHERE lower(handle) = lower(?) OR user = ?", arguments: [name, name])
        }
        // An author known only by included copies (quoted, reposted) has no `authors` row.
        var keys: [PostIdentity] = []
        for user in Set(users + [name]).sorted() { keys += try postKeys(byUserID: user) }
        return keys.sorted()
    }

    /// The posts (own and included copies) of the author whose id is `user`.
    public func postKeys(byUserID user: String) throws(CatalogError) -> [PostIdentity] {
        try read("find an author's posts") { db in
            try Row.fetchAll(db, sql: "SELECT network, id FROM posts WHERE included IN (0, 1) AND user = ?", arguments: [user])
                .compactMap { row in Network(rawValue: row["network"]).map { PostIdentity(network: $0, id: row["id"]) } }
        }
    }

    /// Which of `keys` the catalog holds (as an own or an included copy).
    public func known(_ keys: Set<PostIdentity>) throws(CatalogError) -> [PostIdentity] {
        try read("look up posts") { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM posts WHERE included IN (0, 1) AND id = ? AND network = ? LIMIT 1")
            return try keys.sorted().filter { key in
                try Bool.fetchOne(statement, arguments: [key.id, key.network.rawValue]) ?? false
            }
        }
    }

    /// What forgetting posts would remove from the catalog (``forgetting(_:)``).
    public struct ForgetOutcome: Sendable, Equatable {
        /// Rows of posts (own and included copies).
        public var posts = 0
        /// Blobs no other current post uses: the candidates for deletion, which the
        /// caller checks against every manifest (older copies of posts name blobs too).
        public var unused: [BlobHash] = []
        /// Blobs the forgotten posts used that other posts still use.
        public var shared = 0
    }

    /// Removes the posts `keys` name and everything the catalog knew from them (their
    /// words, tags, references, facet counts), forgets the blobs
    /// `unused` (the caller found no remaining post naming them, in any manifest) when
    /// no current post uses them, and records the new size and time of the manifests
    /// `rewritten` without the posts, so the next refresh does not read those runs
    /// again. One transaction, with `secure_delete` on: the rows' bytes are overwritten,
    /// not left in free pages. Then the words' index is merged into one segment (FTS5
    /// otherwise keeps a deleted post's words in its old segments behind a delete
    /// marker) and the log is copied in and cut to nothing, so no earlier page image of
    /// the rows stays in `catalog.sqlite-wal` either, and the kept near-duplicate index
    /// (``PDQIndexFile``) goes. Returns the rows of posts removed.
    @discardableResult
    public func forget(_ keys: Set<PostIdentity>, rewritten: [(path: String, size: Int, mtime: Int, blanked: [Range<Int>])],
                       unused: Set<BlobHash>) throws(CatalogError) -> Int
    {
        let lock = try Self.lock(path.path)
        defer { Self.unlock(lock) }
        try writeWithoutTransaction("erase as it deletes") { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        defer { _ = try? writeWithoutTransaction("delete as before") { db in try db.execute(sql: "PRAGMA secure_delete = FAST") } }
        let posts = try write("forget posts") { db -> Int in
            let rows = try Self.rows(of: keys, db)
            for table in Self.postRowTables {
                let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE post = ?")
                for row in rows { try delete.execute(arguments: [row]) }
            }
            // The trigger removes each own post's words.
            let delete = try db.cachedStatement(sql: "DELETE FROM posts WHERE rowid = ?")
            for row in rows { try delete.execute(arguments: [row]) }
            let stillUsed = try db.cachedStatement(sql: "SELECT 1 FROM refs WHERE blob = (SELECT id FROM blobs WHERE sha256 = ?) LIMIT 1")
            for hash in unused.sorted() {
                let bytes = Data(hash.bytes)
                guard !(try Bool.fetchOne(stillUsed, arguments: [bytes]) ?? false) else { continue }
                try db.execute(sql: "DELETE FROM blobs WHERE sha256 = ?", arguments: [bytes])
                try db.execute(sql: "DELETE FROM images_pdq WHERE sha256 = ?", arguments: [bytes])
            }
            for file in rewritten {
                try db.execute(sql: "UPDATE runs SET size = ?, mtime = ? WHERE path = ?", arguments: [file.size, file.mtime, file.path])
                try Self.dropFromRunPages(path: file.path, blanked: file.blanked, db)
            }
            try Self.recount(db)
            return rows.count
        }
        // The kept near-duplicate index holds the forgotten photos' hashes: gone at once
        // (a later step may fail), and the next search makes it again from the catalog.
        PDQIndexFile.remove(path.path + Self.perceptualSuffix)
        try write("merge the words' index") { db in
            try db.execute(sql: "INSERT INTO posts_fts(posts_fts) VALUES ('optimize')")
        }
        try cutLog()
        return posts
    }

    /// Takes the posts `forget` blanked out of a run (their ranges) out of its pages,
    /// and the pages it leaves empty, each file's pages numbered from 0 again: a
    /// Collection of a file's pages lists no page without a post, and its counts and
    /// first post are those of what is left.
    static func dropFromRunPages(path: String, blanked: [Range<Int>], _ db: Database) throws {
        guard !blanked.isEmpty,
              let run = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ?", arguments: [path])
        else { return }
        let gone = Set(blanked.map(\.lowerBound))
        let rows = try Row.fetchAll(db, sql: "SELECT source, ranges FROM run_pages WHERE run = ? ORDER BY source, page",
                                    arguments: [run])
        try db.execute(sql: "DELETE FROM run_pages WHERE run = ?", arguments: [run])
        let insert = try db.cachedStatement(sql: "INSERT INTO run_pages(run, source, page, posts, ranges) VALUES (?, ?, ?, ?, ?)")
        var next: [Int: Int] = [:]
        for row in rows {
            let source: Int = row[0]
            guard let packed = row[1] as Data? else { continue }
            let kept = ranges(packed).filter { !gone.contains($0.lowerBound) }
            guard !kept.isEmpty else { continue }
            let page = next[source, default: 0]
            next[source] = page + 1
            try insert.execute(arguments: [run, source, page, kept.count, Data(RunPagesWriter.pack(kept))])
        }
    }

    /// What forgetting `keys` would remove: the rows of posts, and the blobs only
    /// they use (`--dry-run`).
    public func forgetting(_ keys: Set<PostIdentity>) throws(CatalogError) -> ForgetOutcome {
        try read("look up what forget removes") { db in
            let rows = try Self.rows(of: keys, db)
            let media = try Self.mediaOnly(of: rows, db)
            return ForgetOutcome(posts: rows.count, unused: media.unused.map(\.hash), shared: media.shared)
        }
    }

    /// The rowids of the posts (own and included copies) `keys` name.
    static func rows(of keys: Set<PostIdentity>, _ db: Database) throws -> Set<Int64> {
        let find = try db.cachedStatement(sql: "SELECT rowid FROM posts WHERE included = ? AND id = ? AND network = ?")
        var rows = Set<Int64>()
        for key in keys {
            for included in [0, 1] {
                if let row = try Int64.fetchOne(find, arguments: [included, key.id, key.network.rawValue]) { rows.insert(row) }
            }
        }
        return rows
    }

    /// The blobs the posts `rows` use that no other current post uses (by number and
    /// hash), and how many they share with other posts.
    static func mediaOnly(of rows: Set<Int64>, _ db: Database) throws -> (unused: [(id: Int64, hash: BlobHash)], shared: Int) {
        var blobs = Set<Int64>()
        let uses = try db.cachedStatement(sql: "SELECT blob FROM refs WHERE post = ?")
        for row in rows { blobs.formUnion(try Int64.fetchAll(uses, arguments: [row])) }
        let users = try db.cachedStatement(sql: "SELECT post FROM refs WHERE blob = ?")
        let hashOf = try db.cachedStatement(sql: "SELECT sha256 FROM blobs WHERE id = ?")
        var unused: [(id: Int64, hash: BlobHash)] = []
        var shared = 0
        for blob in blobs.sorted() {
            let cursor = try Int64.fetchCursor(users, arguments: [blob])
            var other = false
            while let post = try cursor.next() {
                if !rows.contains(post) {
                    other = true
                    break
                }
            }
            if other {
                shared += 1
            } else if let bytes = try Data.fetchOne(hashOf, arguments: [blob]), let hash = BlobHash(bytes: [UInt8](bytes)) {
                unused.append((blob, hash))
            }
        }
        return (unused, shared)
    }

    /// Copies the log into the database and truncates it to nothing; readers still on
    /// an older snapshot (a server's) are waited for a while (the pool's busy timeout),
    /// then it is tried again.
    func cutLog() throws(CatalogError) {
        for _ in 0..<20 {
            let busy = try writeWithoutTransaction("cut the log") { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)").map { $0[0] as Int } ?? 0
            }
            if busy == 0 { return }
            usleep(100_000)
        }
        throw .database(operation: "cut the log", message: "readers held the log for 2 s; run `tweetcache forget` again to finish")
    }
}
