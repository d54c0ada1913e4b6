public import Foundation
import BlobStore
internal import CTweetCache
internal import GRDB
internal import GRDBSQLite
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

/// Every post the cache's manifests know about, in SQLite: the one index every
/// reader (`tweets`, `info`, `ls`, `stats`, `export`, `gc`, the server's
/// `/api/tweets` and IIIF documents) asks, so none of them reads all the manifests
/// and each answers in milliseconds at millions of posts.
///
/// The manifests stay the record (durable, shared through a bucket, readable by
/// other tools); the catalog (`<cache>/catalog.sqlite`) is only an index of them and
/// can always be rebuilt from them (``rebuild()``, `tweetcache reindex`). It is kept
/// up to date incrementally: ``refresh()`` reads the manifest files it has not seen
/// (a run adds its manifest with ``add(manifestNamed:)`` right after writing it,
/// `sync` each it copies with ``add(manifestsArriving:bytes:observer:)``), and starts over
/// when a file it read has changed or gone. Posts are not copied: a row points at the
/// post's bytes in its manifest, and a post read back is trusted only when it is the
/// post the row names. A post fetched by several runs is kept as the newest run saw it; the blobs
/// older runs named stay referenced (``referencedHashes()``).
///
/// Every write is one transaction per batch of posts, and a run counts as read only
/// when its last batch is in: a process killed mid-ingest leaves a consistent
/// catalog, and the next ``refresh()`` reads that run again (ingest is idempotent).
/// Processes share the file: ingest is serialised by an advisory lock beside it,
/// readers never wait for it (WAL). Every method blocks.
public final class PostCatalog: Sendable {
    /// The database file.
    public let path: URL
    /// The cache whose `manifests/` it indexes.
    public let cacheRoot: URL
    let pool: DatabasePool
    /// How many posts hold each of the words asked for lately (FTS5 queries, at most
    /// ``rememberedWordCounts``, all forgotten at once when full): what a later page of
    /// the same words needs to choose its plan (``wordsPlan(_:_:)``) without counting
    /// again. Only plans come from it, never totals, so a count gone stale since costs
    /// time, not answers.
    let wordCounts = Mutex<[String: Int]>([:])
    /// Set when a read without a journal could not go back to WAL mode
    /// (``journalAgain(keepingMark:)``): no more writes.
    let leftWithoutJournal = Atomic<Bool>(false)
    static let rememberedWordCounts = 256
    /// Above this many matches, pages of words walk the posts in order (``defaultManyMatches``).
    let manyMatches: Int
    /// Posts a walk in order for a page of words looks at past what it expects, before
    /// another way is taken (``wordsPage(_:after:offset:limit:oldestFirst:few:_:)``);
    /// ``defaultWalkBudget`` but in tests, which make it run out.
    let walkBudget: Int
    /// Manifests larger than this together are a big read (``ingest(_:bytes:intoEmpty:report:)``);
    /// ``bulkThreshold`` but in tests, which read small manifests the big way too.
    let bigRead: Int

    /// `catalog.sqlite`, beside the cache's `index.sqlite`.
    public static let fileName = "catalog.sqlite"
    /// Posts written per transaction while reading a run.
    static let batchSize = 2_000

    /// Opens (creating if need be) the catalog of the cache at `cacheRoot`, without
    /// reading any manifest: call ``refresh()`` for that, or use ``open(cacheRoot:)``.
    ///
    /// A catalog written by another version of the schema is emptied and made anew; a
    /// file that is not a database, or a damaged one, is removed and made anew. Either
    /// way the next ``refresh()`` reads every manifest again.
    public convenience init(cacheRoot: URL) throws(CatalogError) {
        try self.init(cacheRoot: cacheRoot, bigRead: Self.bulkThreshold)
    }

    init(cacheRoot: URL, bigRead: Int, manyMatches: Int = PostCatalog.defaultManyMatches,
         walkBudget: Int = PostCatalog.defaultWalkBudget) throws(CatalogError) {
        self.bigRead = bigRead
        self.manyMatches = manyMatches
        self.walkBudget = walkBudget
        self.cacheRoot = cacheRoot.standardizedFileURL
        path = self.cacheRoot.appendingPathComponent(Self.fileName)
        let databasePath = path.path
        let lock = try Self.lock(databasePath)
        defer { Self.unlock(lock) }
        // Left by a read without a journal that did not end: the file may be damaged
        // where no query looks (``withoutJournal()``), so it goes as a damaged one does.
        if access(databasePath + Self.unjournaledSuffix, F_OK) == 0 { Self.remove(databasePath) }
        do {
            pool = try Self.openPool(databasePath)
        } catch {
            // Not a database, or damaged beyond opening: it holds nothing the manifests
            // do not, so it goes.
            Self.remove(databasePath)
            do {
                pool = try Self.openPool(databasePath)
            } catch {
                throw .open(path: databasePath, message: String(describing: error))
            }
        }
    }

    /// Removes the catalog's file and what is kept beside it (the near-duplicate index
    /// numbers its photos), the mark of a read without a journal last.
    private static func remove(_ databasePath: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(databasePath + suffix) }
        PDQIndexFile.remove(databasePath + perceptualSuffix)
        FullTextBuilder.remove(databasePath + fullTextSuffix)
        unlink(databasePath + unjournaledSuffix)
    }

    /// Opens the catalog and brings it up to date with the manifests.
    public static func open(cacheRoot: URL) throws(CatalogError) -> (catalog: PostCatalog, report: RefreshReport) {
        let catalog = try PostCatalog(cacheRoot: cacheRoot)
        let report = try catalog.refresh()
        return (catalog, report)
    }

    private static func openPool(_ databasePath: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "TweetCache.catalog"
        configuration.busyMode = .timeout(TimeInterval(busySeconds))
        configuration.prepareDatabase { db in
            // An index of files that are themselves durable: a power cut may lose the
            // last batches (the next refresh reads them again), never corrupt the file.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Deleted rows' bytes are zeroed where that costs no extra write; `forget`
            // turns it fully on (``PostCatalog/forget(_:rewritten:)``).
            try db.execute(sql: "PRAGMA secure_delete = FAST")
            try db.execute(sql: "PRAGMA cache_size = -16384")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(walCheckpointPages)")
            // A big read lets the log grow to 256 MB; it is cut back to 64 MB when it starts over.
            try db.execute(sql: "PRAGMA journal_size_limit = 67108864")
        }
        let pool = try DatabasePool(path: databasePath, configuration: configuration)
        // Outside a transaction: a backup cannot start inside one. Processes that open
        // the catalog take its lock first, so none writes between the two.
        try pool.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            if version != schemaVersion {
                try Self.replaceWithEmpty(db)
            } else {
                // A damaged file can open and still fail its first query: ask now.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM runs")
            }
            // Missing only when a rebuild that fills without them was cut short.
            try db.execute(sql: indexes)
        }
        return pool
    }

    /// Replaces the whole database with an empty catalog of this build's schema, in
    /// one write: SQLite's backup of one made in memory (outside a transaction). It
    /// writes the empty file's few pages and cuts the file to them at the next
    /// checkpoint; dropping the tables instead visited every page of them (9 s of a
    /// million posts' 53 s `reindex`, with the next read then reusing the freed pages
    /// one by one). A reader of another process keeps its snapshot until it ends.
    static func replaceWithEmpty(_ db: Database) throws {
        // The kept near-duplicate index numbers the old catalog's photos.
        if let connection = db.sqliteConnection, let file = sqlite3_db_filename(connection, "main"), file.pointee != 0 {
            PDQIndexFile.remove(String(cString: file) + perceptualSuffix)
        }
        // A backup into a database in WAL mode cannot change its page size: the empty
        // catalog is made with the file's (one written by another tool or build with
        // other pages was otherwise never rebuilt, `reindex` failing as read-only).
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
        let empty = try DatabaseQueue()
        try empty.inDatabase { source in
            try source.execute(sql: "PRAGMA page_size = \(pageSize)")
            try source.execute(sql: schema)
            try source.execute(sql: indexes)
            try source.execute(sql: "PRAGMA user_version = \(schemaVersion)")
            try source.backup(to: db)
        }
    }

    // MARK: - Keeping up with the manifests

    /// What a ``refresh()`` did.
    public struct RefreshReport: Sendable, Equatable {
        /// Manifests read into the catalog now.
        public var added: [String] = []
        /// True when the catalog was emptied first: a manifest it had read changed or went.
        public var rebuilt = false
        /// Manifest files that could not be read now (named once; ``problems()`` lists all).
        public var problems: [String] = []
    }

    /// Reads the manifest files the catalog has not read (or not finished reading).
    /// When one it read has changed or gone, it starts over: a post's newest copy
    /// may have come from that file.
    /// `progress` counts the bytes of the manifests read, out of those to read; `alone`:
    /// the caller reads nothing from this catalog until it returns, and a read from
    /// nothing may write the file without a journal (``withoutJournal()``).
    @discardableResult
    public func refresh(progress: WorkProgress? = nil, alone: Bool = false) throws(CatalogError) -> RefreshReport {
        let lock = try Self.lock(path.path)
        defer { Self.unlock(lock) }
        let files = try manifestFiles()
        var report = RefreshReport()
        let (known, wordsMissing) = try read("refresh") { db in
            var known: [String: (size: Int, mtime: Int, complete: Bool)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT path, size, mtime, complete FROM runs") {
                known[row["path"]] = (row["size"], row["mtime"], row["complete"])
            }
            for row in try Row.fetchAll(db, sql: "SELECT path, size, mtime FROM problems") {
                known[row["path"]] = (row["size"], row["mtime"], true)
            }
            return (known, try Bool.fetchOne(db, sql: "SELECT 1 FROM pending WHERE what = 'fts'") ?? false)
        }
        let current = Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        // A read from nothing cut short left its posts in but not their words: it starts over.
        let changed = wordsMissing || known.contains { path, seen in
            guard let file = current[path] else { return true }
            return file.size != seen.size || file.mtime != seen.mtime
        }
        if wordsMissing { FullTextBuilder.remove(path.path + Self.fullTextSuffix) }
        if changed {
            try writeWithoutTransaction("rebuild") { db in try Self.replaceWithEmpty(db) }
            report.rebuilt = true
        }
        let todo = files.filter { file in changed || !(known[file.path]?.complete ?? false) }.map { file in
            var file = file
            file.json = Self.jsonBytes(cacheRoot.appendingPathComponent(file.path).path, size: file.size)
            return file
        }
        let bytes = todo.reduce(0) { $0 + ($1.json ?? $1.size) }
        progress?.addTotal(bytes)
        try ingest(ManifestsAhead(files: todo, cacheRoot: cacheRoot), bytes: bytes, intoEmpty: changed || known.isEmpty,
                   alone: alone, progress: progress, report: &report)
        return report
    }

    /// Reads runs' manifests in as another thread puts them under `manifests/` (`sync`
    /// copying a bucket's runs reads each while the next is copied): `next` blocks
    /// until the next file in place is known (with the file as its putter opened it,
    /// not scanned again), and is nil after the last. `bytes` is what they will come to
    /// (a listing's sizes): a read is sized by it as ``refresh()`` sizes its own.
    /// `observer` sees each post's fetched objects from the same decode as its facts.
    /// Then refreshes, for anything else that changed.
    @discardableResult
    package func add(manifestsArriving next: @escaping () -> ManifestArrival?, bytes: Int,
                     observer: (any FetchedObjectsObserver)? = nil, alone: Bool = false) throws(CatalogError) -> RefreshReport {
        var report = RefreshReport()
        do {
            let lock = try Self.lock(path.path)
            defer { Self.unlock(lock) }
            let empty = try isEmpty()
            let files = sequence(state: ()) { _ -> ListedFile? in
                while let arrival = next() {
                    let relative = CacheLayout.manifest(arrival.name)
                    guard !arrival.name.contains("/"),
                          let (size, mtime) = Self.fileFacts(self.cacheRoot.appendingPathComponent(relative).path)
                    else { continue }
                    // The file as opened, unless what is in place now is not that file.
                    let opened = arrival.manifest.flatMap { $0.fileSize == size ? $0 : nil }
                    return ListedFile(path: relative, size: size, mtime: mtime, opened: opened)
                }
                return nil
            }
            try ingest(files, bytes: bytes, intoEmpty: empty, alone: alone, observer: observer, report: &report)
        }
        let rest = try refresh()
        report.added += rest.added
        report.problems += rest.problems
        report.rebuilt = rest.rebuilt
        return report
    }

    /// Reads `files` in, sized for how much there is: into an empty catalog, many
    /// posts go faster without the indexes (made once at the end, and by the next open
    /// should this be cut short), and with the posts' words indexed beside it on a
    /// thread and in a file of their own (``FullTextBuilder``), copied in at the end
    /// (a read cut short before that starts over at the next refresh). Any big read
    /// leaves the facet counts and the blobs' uses to its end (``recount(_:)``): kept
    /// batch by batch, their trees (keyed by user, tag and hash) were written all over
    /// by every batch. What is left is written in key order, so a big read keeps a
    /// small page cache (``bigReadCacheKiB``) and copies the log into the database
    /// every 256 MB rather than every 32 MB (a page written by many batches is copied
    /// once), and at the end.
    private func ingest(_ files: some Sequence<ListedFile>, bytes: Int, intoEmpty empty: Bool, alone: Bool = false,
                        observer: (any FetchedObjectsObserver)? = nil, progress: WorkProgress? = nil,
                        report: inout RefreshReport) throws(CatalogError)
    {
        let big = bytes > bigRead
        let bulk = empty && big
        if bulk {
            try write("drop indexes") { db in
                for name in Self.indexNames { try db.execute(sql: "DROP INDEX IF EXISTS \(name)") }
                try db.execute(sql: "INSERT OR IGNORE INTO pending(what) VALUES ('fts')")
            }
        }
        if big {
            // What the process freed before (a fetch's run) goes back first.
            _ = tc_malloc_trim()
            try write("start a big read") { db in
                try db.execute(sql: "INSERT OR IGNORE INTO pending(what) VALUES ('counts')")
                try db.execute(sql: "PRAGMA cache_size = -\(Self.bigReadCacheKiB)")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.bigReadCheckpointPages)")
            }
        }
        // Asked for now, or left by a big read cut short: the counts are made at the end.
        let deferCounts = try big ? true : read("read what is pending") { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM pending WHERE what = 'counts'") ?? false
        }
        defer {
            if big {
                _ = try? write("size the cache") { db in
                    try db.execute(sql: "PRAGMA cache_size = -16384")
                    try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.walCheckpointPages)")
                }
                // The log grew to a quarter of a gigabyte: copied in now, without waiting
                // for readers (a server's), and cut back to `journal_size_limit` when it
                // next starts over.
                _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            }
        }
        let fullText = bulk ? try FullTextBuilder(path: path.path + Self.fullTextSuffix) : nil
        // Into an empty `blobs`, a hash the read has not numbered is new.
        let blobsEmpty = bulk ? try read("read blobs") { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM blobs LIMIT 1") == nil } : false
        let blobNumbers = BlobNumbers(forReading: bytes, fromEmpty: blobsEmpty)
        let notedTags = NotedTags()
        let replaced = bulk ? ReplacedPosts() : nil
        let unjournaled = bulk && alone && withoutJournal()
        do {
            for file in files {
                let before = progress?.snapshot.done ?? 0
                let outcome = try ingestFile(file, deferringCounts: deferCounts, fullText: fullText, blobNumbers: blobNumbers, notedTags: notedTags,
                                             replaced: replaced, observer: observer, progress: progress)
                progress?.setDone(before + (file.json ?? file.opened?.bytes.count ?? file.size))
                if outcome.read { report.added.append(file.path) }
                if let problem = outcome.problem { report.problems.append(problem) }
            }
            if let fullText {
                // The words' index merges into one segment while the other indexes are made.
                fullText.endInput()
                progress?.setPhase("making indexes")
                if let replaced { try write("remove replaced posts' rows") { db in try replaced.removeRows(db) } }
                try write("make indexes") { db in
                    // Sorted in little memory: at a run's end this is its peak. With
                    // helper threads SQLite sorts each index on both cores, beside the
                    // words' thread's merge, each thread in that much memory: four of
                    // the million posts' indexes took 2.6 s in `sqlite3` instead of 3.4 s.
                    try db.execute(sql: "PRAGMA cache_size = -\(Self.endSortKiB)")
                    try db.execute(sql: "PRAGMA threads = \(Self.sortHelpers)")
                    defer { _ = try? db.execute(sql: "PRAGMA threads = 0") }
                    try db.execute(sql: Self.indexes)
                }
                // The counts need those indexes, not the words: made while the words'
                // thread ends its merge (it was the last to end; 1.2 s at a million posts).
                try count()
                try fullText.finish()
                try adoptFullText(from: fullText.path, unjournaled: unjournaled)
            }
        } catch {
            fullText?.cancel()
            if unjournaled {
                // Without a journal a statement that failed may have left pages half
                // made: back in WAL mode with the mark kept, the catalog starts over
                // empty in one commit (the next refresh reads every manifest), and only
                // then does the mark go; failing that, the file is made anew when it next opens.
                do {
                    try journalAgain(keepingMark: true)
                    try writeWithoutTransaction("start over") { db in try Self.replaceWithEmpty(db) }
                    unlink(path.path + Self.unjournaledSuffix)
                } catch {
                    leftWithoutJournal.store(true, ordering: .relaxed)
                }
            }
            throw error
        }
        if unjournaled { try journalAgain(keepingMark: false) }
        if fullText == nil { try count() }

        func count() throws(CatalogError) {
            guard deferCounts else { return }
            progress?.setPhase("counting")
            try write("count") { db in
                if big { try db.execute(sql: "PRAGMA cache_size = -\(Self.endSortKiB)") }
                try Self.recount(db)
            }
        }
    }

    /// Makes the facet counts (`authors`, `tag_counts`) and the blobs' uses
    /// (`blob_uses`) from the posts, their tags and references, as the writer keeps
    /// them post by post: an author's handle is that of their post read last, a tag's
    /// spelling the first one read (kept in `tag_counts` as the read went). Each reads
    /// its table or index in its own order, never row by row through another: authors
    /// by a scan of `posts` and a sort (through `posts_by_user` each post's handle was a
    /// lookup in the table: 10.1 s at a million posts, against 1.2 s), tags by one pass
    /// over `post_tags_in_order` (3.2 s as a count per tag, 0.2 s), blobs by one over
    /// `refs_by_blob`, which holds the kind for it (13.8 s through the table, 0.5 s),
    /// each blob's hash then looked up by its number.
    static func recount(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM authors;
            INSERT INTO authors(user, handle, posts)
                SELECT user, handle, n FROM (
                    SELECT user, handle, count(*) AS n, max(rowid) FROM posts NOT INDEXED WHERE included = 0 GROUP BY user);
            UPDATE tag_counts SET posts = 0;
            UPDATE tag_counts SET posts = c.n FROM (SELECT tag, count(*) AS n FROM post_tags GROUP BY tag) AS c
                WHERE c.tag = tag_counts.tag;
            DELETE FROM tag_counts WHERE posts <= 0;
            DELETE FROM blob_uses;
            INSERT INTO blob_uses(sha256, photo, video, avatar)
                SELECT (SELECT sha256 FROM blobs WHERE id = blob), sum(kind = \(ImageKind.photo.code)),
                    sum(kind = \(ImageKind.video.code)), sum(kind NOT IN (\(ImageKind.photo.code), \(ImageKind.video.code)))
                FROM refs GROUP BY blob;
            DELETE FROM pending WHERE what = 'counts';
            """)
    }

    /// The file a ``FullTextBuilder`` writes, beside the catalog's.
    static let fullTextSuffix = ".fts"

    /// FTS5 merges segments once this many of a level are there while an empty catalog
    /// is filled (in the ``FullTextBuilder``'s file; FTS5's default is 4): a million
    /// posts took 10% less time with 16, and one `optimize` at the end (3 s) leaves a
    /// single segment.
    static let bulkAutomerge = 16
    /// FTS5's own `automerge`, set again as the built index is copied in.
    static let automerge = 4

    /// The words FTS5 gathers in memory before it writes them out as a segment, while
    /// an empty catalog is filled (FTS5's `hashsize`; its default, ``hashBytes``, is
    /// 1 MB): fewer, larger segments leave fewer merges. The index of a million posts
    /// alone in `sqlite3`, with its final `optimize`: 10.5-11.0 s at 1 MB, 9.9-10.1 s
    /// at 4 MB, 8.3-8.5 s at 8 MB (13 MB more memory), no faster at 16 or 32 MB.
    static let bulkHashBytes = 8 << 20
    /// FTS5's own `hashsize`, set again as the built index is copied in: a refresh
    /// writes a run's words at its commit, and needs no more.
    static let hashBytes = 1 << 20

    /// Empties the catalog and reads every manifest again (`tweetcache reindex`);
    /// `alone` as for ``refresh(progress:alone:)``.
    @discardableResult
    public func rebuild(progress: WorkProgress? = nil, alone: Bool = false) throws(CatalogError) -> RefreshReport {
        do {
            let lock = try Self.lock(path.path)
            defer { Self.unlock(lock) }
            try writeWithoutTransaction("rebuild") { db in try Self.replaceWithEmpty(db) }
        }
        var report = try refresh(progress: progress, alone: alone)
        report.rebuilt = true
        return report
    }

    /// Manifests larger than this, read into an empty catalog, are read without its
    /// indexes, which are made at the end.
    static let bulkThreshold = 64 << 20
    /// The writer's page cache while reading more than that: 4 MB. With the counts
    /// left to the end nothing is written all over the trees, and a bigger cache buys
    /// no time: a million posts read into an empty catalog took 87.9 and 94.5 s with
    /// 8 MB, 81.4 and 94.8 s with 32 MB (the machine's spread), at 89 and 114 MB peak
    /// RSS (a fetch's memory grows by it at its end); later `reindex` of a million took
    /// 31.9 and 35.7 s with 4 MB, 32.4 and 36.9 s with 8 MB, 3 MB less. The indexes
    /// made at the end sort in ``endSortKiB`` (a million posts' indexes took 8.0 s with
    /// 8 MB, 9.8 s and 50 MB more with 32 MB).
    static let bigReadCacheKiB = 4_096
    /// The page cache, and so the sorter's memory, while a big read makes its indexes
    /// and counts at its end: SQLite sorts in as much memory as the cache may hold
    /// (each of its sorting threads, ``sortHelpers``) and merges runs of it from
    /// temporary files, no slower. At the end of a million-post fetch the 8 MB cache
    /// and 8 MB of sorting were the run's peak. `reindex` of a million posts peaked
    /// at 82-84 MB with two helpers and ``ManifestsAhead``, 78-79 MB before both, 95 MB once
    /// the words' builder gathered 8 MB of words at a time (``bulkHashBytes``).
    static let endSortKiB = 2_048
    /// How long a connection waits for another's lock before its statement fails.
    static let busySeconds = 60
    /// Threads SQLite may add to sort the indexes made at a big read's end (`PRAGMA threads`).
    static let sortHelpers = 2
    /// The log is copied into the database every 256 MB during a big read: 9% less
    /// time at a million posts than every 64 MB.
    static let bigReadCheckpointPages = 65_536
    /// The log is copied into the database once it holds this many pages (32 MB),
    /// not at SQLite's 1,000 (4 MB): a run of 100 posts writes about 1,100 pages
    /// (a post's rows land on as many B-tree pages as it has indexed facts), so at
    /// 1,000 every small run paid for a copy of its own pages before its first page
    /// could be served.
    static let walCheckpointPages = 8_192

    /// Adds a run's manifest just written (or copied) to `name` under `manifests/`,
    /// reading it back while it is still in the page cache: a run's posts are in the
    /// catalog when the run ends. Returns the problem when it is not a manifest.
    @discardableResult
    public func add(manifestNamed name: String) throws(CatalogError) -> String? {
        let lock = try Self.lock(path.path)
        defer { Self.unlock(lock) }
        let relative = CacheLayout.manifest(name)
        guard !name.contains("/"), let (size, mtime) = Self.fileFacts(cacheRoot.appendingPathComponent(relative).path) else {
            return "\(relative): not a file"
        }
        let empty = try isEmpty()
        var report = RefreshReport()
        let json = Self.jsonBytes(cacheRoot.appendingPathComponent(relative).path, size: size)
        try ingest([ListedFile(path: relative, size: size, mtime: mtime, json: json)], bytes: json, intoEmpty: empty, report: &report)
        return report.problems.first
    }

    /// True when no run has been read: a read into it may go the bulk way.
    private func isEmpty() throws(CatalogError) -> Bool {
        try read("count runs") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM runs") ?? 0 } == 0
    }

    /// A file under `manifests/` as listed: its path relative to the cache root.
    struct ListedFile: Sendable {
        var path: String
        var size: Int
        /// Modification time in nanoseconds since 1970.
        var mtime: Int
        /// The file already opened (``ManifestArrival``, ``ManifestsAhead``), else opened when read.
        var opened: ManifestFile? = nil
        /// Its JSON's bytes (``jsonBytes(_:size:)``), where a read was sized by them.
        var json: Int? = nil
    }

    func manifestFiles() throws(CatalogError) -> [ListedFile] {
        let directory = cacheRoot.appendingPathComponent(CacheLayout.manifestsFolder, isDirectory: true)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            if !FileManager.default.fileExists(atPath: directory.path) { return [] }
            throw .manifests(message: (error as NSError).localizedDescription)
        }
        return names.filter(CacheKey.isManifestName).sorted().compactMap { name in
            let relative = CacheLayout.manifest(name)
            guard let (size, mtime) = Self.fileFacts(directory.appendingPathComponent(name).path) else { return nil }
            return ListedFile(path: relative, size: size, mtime: mtime)
        }
    }

    /// How much JSON the manifest at `path` (`size` bytes on disk) holds: a read is
    /// sized by its JSON (a compressed manifest holds about nine times its size),
    /// from the seek table of a compressed one.
    static func jsonBytes(_ path: String, size: Int) -> Int {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return size }
        defer { close(fd) }
        guard SeekableZstd.isCompressed(fd) else { return size }
        return (try? SeekableZstd.Table.read(fd, size: size).decompressedSize) ?? estimatedJSONBytes(name: path, size: size)
    }

    /// ``jsonBytes(_:size:)`` from a name and size alone (a bucket's listing): ten
    /// times the size of a `.json.zst`.
    package static func estimatedJSONBytes(name: String, size: Int) -> Int {
        name.hasSuffix(".zst") ? size * 10 : size
    }

    static func fileFacts(_ path: String) -> (size: Int, mtime: Int)? {
        // Not through a symbolic link: the catalog reads posts back from these files.
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }
}
