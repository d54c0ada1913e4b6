import Foundation
internal import GRDB
import TweetModel
import MediaTypes
import BlobStore

extension PostCatalog {
    /// Reads one manifest file into the catalog, a batch of posts per transaction.
    /// `read` is false when the file is not a manifest at all; `problem` says why, or
    /// which posts in it could not be read (recorded, so the file is not read again
    /// until it changes).
    /// `deferringCounts`: the facet counts and blobs' uses are left to ``recount(_:)``;
    /// `fullText`: the posts' words go to that builder instead of `posts_fts`;
    /// `blobNumbers`: the hashes numbered lately, shared by a read's runs;
    /// `notedTags`: the tags a read deferring its counts has put in `tag_counts`, shared likewise;
    /// `replaced`: in a read from nothing, where the rows of replaced posts wait;
    /// `observer`: sees the posts' fetched objects, decoded with their facts.
    func ingestFile(_ file: ListedFile, deferringCounts: Bool = false, fullText: FullTextBuilder? = nil,
                    blobNumbers: BlobNumbers = BlobNumbers(), notedTags: NotedTags = NotedTags(), replaced: ReplacedPosts? = nil,
                    observer: (any FetchedObjectsObserver)? = nil, progress: WorkProgress? = nil)
        throws(CatalogError) -> (read: Bool, problem: String?)
    {
        let progressStart = progress?.snapshot.done ?? 0
        let manifest: ManifestFile
        do {
            manifest = try file.opened ?? ManifestFile(url: cacheRoot.appendingPathComponent(file.path))
        } catch {
            let message: String
            if let problem = error as? ManifestFile.Problem {
                message = "\(file.path): not a TweetCache manifest (\(problem.description))"
            } else {
                message = "\(file.path): unreadable (\((error as NSError).localizedDescription))"
            }
            try recordProblem(message, file: file)
            return (false, message)
        }
        let runID: Int64 = try write("add a run") { db in
            try db.execute(sql: "DELETE FROM problems WHERE path = ?", arguments: [file.path])
            try db.execute(sql: """
                INSERT INTO runs(path, generated_at, size, mtime, tweets, included, complete) VALUES (?, ?, ?, ?, ?, ?, 0)
                ON CONFLICT(path) DO UPDATE SET generated_at = excluded.generated_at, size = excluded.size,
                    mtime = excluded.mtime, tweets = excluded.tweets, included = excluded.included, complete = 0
                """, arguments: [file.path, manifest.header.generatedAt.timeIntervalSince1970, file.size, file.mtime,
                                 manifest.tweetCount, manifest.includedCount])
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ?", arguments: [file.path]) ?? 0
            // A run read again (its last read was cut short) pages its posts anew.
            try db.execute(sql: "DELETE FROM run_pages WHERE run = ?", arguments: [id])
            return id
        }
        var pages = RunPagesWriter(run: runID, sources: manifest.header.sources.map(\.path))
        var writer = try PostWriter(catalog: self, run: runID, order: (manifest.header.generatedAt.timeIntervalSince1970, file.path),
                                    deferringCounts: deferringCounts, fullText: fullText, blobNumbers: blobNumbers, notedTags: notedTags,
                                    replaced: replaced)
        var failed: [String] = []
        var index: [ManifestFile.Section: Int] = [:]
        let name = (file.path as NSString).lastPathComponent
        var objects: (@Sendable ([FetchedObjects]) -> Void)?
        if let observer {
            let header = manifest.header
            objects = { observer.read($0, ofRun: name, header: header) }
        }
        let reader = PostReader(manifest, batchSize: Self.batchSize, objects: objects)
        func store(_ batch: DecodedBatch) throws(CatalogError) {
            try write("add posts") { db in
                let statements = try writer.statements(db)
                for (entry, post) in zip(batch.entries, batch.rows) {
                    let position = index[entry.section, default: 0]
                    index[entry.section] = position + 1
                    switch post {
                    case let .success(post):
                        try writer.upsert(post, included: entry.section == .includedTweets, at: entry.range, with: statements, db: db)
                        if entry.section == .tweets { pages.add(post, at: entry.range) }
                    case let .failure(error):
                        let name = entry.section == .tweets ? "tweets" : "included_tweets"
                        failed.append("\(name)[\(position)]: \(error)")
                    }
                }
                try writer.flushRows(db)
                try writer.flushCounts(db)
                try pages.flush(db)
            }
            // How far into the file the batch ends.
            if let progress, let last = batch.entries.last { progress.setDone(progressStart + last.range.upperBound) }
            try fullText?.send(writer.takeFullTextChanges())
        }
        do {
            while let batch = try reader.next() { try store(batch) }
        } catch let error as CatalogError {
            reader.cancel()
            throw error
        } catch {
            // The scan checked the structure when the file was opened; a file that
            // changes under the scan is read again by the next refresh.
            throw .database(operation: "read \(file.path)", message: "\(error)")
        }
        try write("finish a run") { db in
            try pages.finish(db)
            try db.execute(sql: "DELETE FROM searches WHERE run = ?", arguments: [runID])
            for source in manifest.header.sources {
                let search = source.search
                try db.execute(sql: """
                    INSERT INTO searches(run, source, query, tweets, search, newest_id, newest_at, reached)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [runID, source.path, source.query, source.tweets, search?.key, search?.newestID,
                                     search?.newestAt?.timeIntervalSince1970, search?.reached ?? false])
            }
            try db.execute(sql: "UPDATE runs SET complete = 1 WHERE id = ?", arguments: [runID])
        }
        observer?.finished(run: name)
        guard let first = failed.first else { return (true, nil) }
        let message = "\(file.path): \(failed.count) post\(failed.count == 1 ? "" : "s") could not be read (\(first))"
        try recordProblem(message, file: file)
        return (true, message)
    }

    private func recordProblem(_ message: String, file: ListedFile) throws(CatalogError) {
        try write("record a problem") { db in
            try db.execute(sql: "INSERT OR REPLACE INTO problems(path, size, mtime, message) VALUES (?, ?, ?, ?)",
                           arguments: [file.path, file.size, file.mtime, message])
        }
    }
}

/// Writes posts of one run: replaces an older copy of each post, keeps a newer one,
/// and counts what the facets gain and lose until ``flushCounts(_:)`` (or, in a big
/// read, only notes each tag's first spelling: ``PostCatalog/recount(_:)`` counts).
struct PostWriter {
    let run: Int64
    let deferCounts: Bool
    /// `(generated_at, path)` of each run: a post's copy from the larger one wins.
    var runOrder: [Int64: (Double, String)]
    var order: (Double, String)
    var authorDeltas: [String: (handle: String, delta: Int)] = [:]
    var tagDeltas: [String: (display: String, delta: Int)] = [:]
    /// Uses gained and lost per blob, by kind (photo, video, avatar).
    var blobDeltas: [BlobHash: (Int, Int, Int)] = [:]
    /// The `blobs` numbers met lately, shared by the read's runs.
    let blobNumbers: BlobNumbers
    /// The tags already in `tag_counts` while the counts wait for the read's end, shared likewise.
    let notedTags: NotedTags
    /// Set in a read from nothing: posts are numbered by it, and a replaced post's rows
    /// in the other tables wait there for the read's end.
    let replaced: ReplacedPosts?
    /// The batch's rows of references and tags, written many to a
    /// statement (``flushRows(_:)``) at the batch's end, and before a post whose rows
    /// may be among them is removed (SQLite may give its rowid to the next post).
    var pendingReferences: [(post: Int64, reference: Reference, blob: Int64)] = []
    var pendingTags: [(post: Int64, key: String, created: Double, idOrder: String)] = []
    /// The rowid of the first post with rows waiting: every post with rows waiting has
    /// this rowid or a larger one (SQLite gives a rowid again only to the post after
    /// the one with the largest, and that one is removed only after a flush), so a
    /// post below it has none waiting and is removed without writing them first: a
    /// flush for every replaced post wrote most of a batch's rows one statement a row.
    var pendingFrom: Int64?
    /// Set when the words go to a ``PostCatalog/FullTextBuilder``: the batch's changes
    /// to its index, in order, until ``takeFullTextChanges()``.
    let separateFullText: Bool
    var fullTextChanges = PostCatalog.FullTextChanges()

    init(catalog: PostCatalog, run: Int64, order: (Double, String), deferringCounts: Bool = false,
         fullText: PostCatalog.FullTextBuilder? = nil, blobNumbers: BlobNumbers = BlobNumbers(), notedTags: NotedTags = NotedTags(),
         replaced: ReplacedPosts? = nil) throws(CatalogError) {
        self.run = run
        self.blobNumbers = blobNumbers
        self.notedTags = notedTags
        self.replaced = replaced
        deferCounts = deferringCounts
        separateFullText = fullText != nil
        self.order = order
        runOrder = try catalog.read("read runs") { db in
            var result: [Int64: (Double, String)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, generated_at, path FROM runs") {
                result[row["id"]] = (row["generated_at"], row["path"])
            }
            return result
        }
        runOrder[run] = order
    }

    mutating func upsert(_ post: PostRow, included: Bool, at range: Range<Int>, with s: Statements, db: Database) throws {
        let includedFlag: Int64 = included ? 1 : 0
        func insert() throws -> Bool {
            // In a read from nothing the writer numbers the posts (``ReplacedPosts``);
            // a number an insert that found an older copy did not use is left unused.
            try s.insert.execute(
                replaced.map { .int(try $0.next(db)) } ?? .null, .text(post.id), .int(includedFlag), .int(run),
                .int(Int64(range.lowerBound)), .int(Int64(range.count)), .double(post.created), .text(post.idOrder),
                .text(post.user), .text(post.handle), .optionalText(post.query), .int(Int64(post.photos)), .text(post.network))
            return db.changesCount > 0
        }
        // Most posts are new: the insert finds a copy already there by the key it
        // checks anyway, and only then is it looked up (one search of the index, not two).
        if try !insert() {
            guard let (rowid, otherRun) = try s.existing.first(.int(includedFlag), .text(post.id), row: { ($0.int64(0), $0.int64(1)) })
            else { throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "a post neither inserted nor found") }
            if otherRun != run, let other = runOrder[otherRun], other > order {
                // Every blob the run names is in `blobs`, a post's copy kept or not: `gc` keeps them.
                for r in post.references { _ = try blobID(r.sha256, s, db) }
                return
            }
            if let replaced {
                try s.deletePost.execute(.int(rowid))
                replaced.removed(rowid)
            } else {
                if let pendingFrom, rowid >= pendingFrom { try flushRows(db) }
                try delete(rowid: rowid, db: db)
            }
            if separateFullText && !included { fullTextChanges.remove(rowid: rowid) }
            guard try insert() else { throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "a post's older copy stayed") }
        }
        let rowid = db.lastInsertedRowID
        if pendingFrom == nil { pendingFrom = rowid }
        if !included && separateFullText {
            fullTextChanges.add(rowid: rowid, text: post.text, name: post.name, handle: post.handle, tags: post.tagText)
        } else if !included {
            try s.text.execute(.int(rowid), .text(post.text), .text(post.name), .text(post.handle), .text(post.tagText))
        }
        for r in post.references {
            pendingReferences.append((rowid, r, try blobID(r.sha256, s, db)))
            if !deferCounts { count(r.sha256, kind: r.kind, by: 1) }
        }
        for p in post.signatures { try s.perceptual.execute(.hash(p.sha256), .int(Int64(p.quality)), .bytes(p.signature)) }
        guard !included else { return }
        for t in post.tags {
            pendingTags.append((rowid, t.key, post.created, post.idOrder))
            tagDeltas[t.key, default: (t.display, 0)].delta += 1
        }
        guard !deferCounts else { return }
        authorDeltas[post.user, default: (post.handle, 0)].delta += 1
        authorDeltas[post.user]?.handle = post.handle
    }

    /// Writes the rows ``upsert(_:included:at:with:db:)`` gathered.
    mutating func flushRows(_ db: Database) throws {
        try BoundStatement.insert(db, "INSERT OR REPLACE INTO refs(post, slot, blob, kind) VALUES ", columns: 4,
                                  pendingReferences) { row, values in
            values += [.int(row.post), .int(Int64(row.reference.slot)), .int(row.blob), .int(Int64(row.reference.kind))]
        }
        try BoundStatement.insert(db, "INSERT INTO post_tags(post, tag, created, id_order) VALUES ", columns: 4, pendingTags) { row, values in
            values += [.int(row.post), .text(row.key), .double(row.created), .text(row.idOrder)]
        }
        pendingReferences.removeAll(keepingCapacity: true)
        pendingTags.removeAll(keepingCapacity: true)
        pendingFrom = nil
    }

    /// The statements ``upsert(_:included:at:with:db:)`` runs for every post, prepared
    /// once per transaction (not looked up by their text for each post).
    struct Statements {
        var existing, insert, text, perceptual, blob, newBlob, deletePost: BoundStatement
    }

    func statements(_ db: Database) throws -> Statements {
        try Statements(
            existing: BoundStatement(db, sql: "SELECT rowid, run FROM posts WHERE included = ? AND id = ?"),
            insert: BoundStatement(db, sql: """
                INSERT INTO posts(rowid, id, included, run, offset, length, created, id_order, user, handle, query, photos, network)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(included, id) DO NOTHING
                """),
            text: BoundStatement(db, sql: "INSERT INTO posts_fts(rowid, text, name, handle, tags) VALUES (?, ?, ?, ?, ?)"),
            perceptual: BoundStatement(db, sql: "INSERT OR IGNORE INTO images_pdq(sha256, quality, hashes) VALUES (?, ?, ?)"),
            blob: BoundStatement(db, sql: "SELECT id FROM blobs WHERE sha256 = ?"),
            newBlob: BoundStatement(db, sql: "INSERT INTO blobs(sha256) VALUES (?) ON CONFLICT(sha256) DO NOTHING"),
            deletePost: BoundStatement(db, sql: "DELETE FROM posts WHERE rowid = ?"))
    }

    /// The number of the blob `sha`, given it the first time any run names it. A hash
    /// ``BlobNumbers`` knows SQLite cannot hold is added without asking for it first;
    /// should it be there after all, the insert leaves it and it is asked for.
    private mutating func blobID(_ sha: BlobHash, _ s: Statements, _ db: Database) throws -> Int64 {
        if let id = blobNumbers.number(of: sha) { return id }
        func known() throws -> Int64? { try s.blob.first(.hash(sha), row: { $0.int64(0) }) }
        let id: Int64
        if blobNumbers.mayBeNumbered(sha), let number = try known() {
            id = number
        } else {
            try s.newBlob.execute(.hash(sha))
            if db.changesCount > 0 {
                id = db.lastInsertedRowID
            } else if let number = try known() {
                id = number
            } else {
                throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "a blob neither inserted nor found")
            }
        }
        blobNumbers.remember(id, for: sha)
        return id
    }

    /// Removes a post and what hangs off it, counting it out of the facets.
    private mutating func delete(rowid: Int64, db: Database) throws {
        if !deferCounts { try countOut(rowid: rowid, db: db) }
        for table in PostCatalog.postRowTables {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE post = ?").execute(arguments: [rowid])
        }
        try db.cachedStatement(sql: "DELETE FROM posts WHERE rowid = ?").execute(arguments: [rowid])
    }

    /// Counts a post about to go out of the facets and blobs' uses.
    private mutating func countOut(rowid: Int64, db: Database) throws {
        let facts = try db.cachedStatement(sql: "SELECT included, user, handle FROM posts WHERE rowid = ?")
        guard let row = try Row.fetchOne(facts, arguments: [rowid]) else { return }
        if !(row["included"] as Bool) {
            let user: String = row["user"]
            authorDeltas[user, default: (row["handle"], 0)].delta -= 1
            let tags = try db.cachedStatement(sql: "SELECT tag FROM post_tags WHERE post = ?")
            for tag in try String.fetchAll(tags, arguments: [rowid]) { tagDeltas[tag, default: (tag, 0)].delta -= 1 }
        }
        let uses = try db.cachedStatement(sql: "SELECT b.sha256, r.kind FROM refs r JOIN blobs b ON b.id = r.blob WHERE r.post = ?")
        for row in try Row.fetchAll(uses, arguments: [rowid]) {
            let bytes: Data = row[0]
            if let sha = BlobHash(bytes: bytes) { count(sha, kind: row[1], by: -1) }
        }
    }

    /// The batch's changes to the full-text index, handed over once the batch is in.
    mutating func takeFullTextChanges() -> PostCatalog.FullTextChanges {
        defer { fullTextChanges = PostCatalog.FullTextChanges() }
        return fullTextChanges
    }

    private mutating func count(_ sha: BlobHash, kind: Int, by delta: Int) {
        var entry = blobDeltas[sha] ?? (0, 0, 0)
        switch ImageKind(code: kind) {
        case .photo: entry.0 += delta
        case .video: entry.1 += delta
        default: entry.2 += delta
        }
        blobDeltas[sha] = entry
    }

    /// Applies the batch's gains and losses to the facet counts and the blobs' uses;
    /// when they are left to the end, only adds the tags the read has not written yet
    /// (``NotedTags``), with their spelling (an existing row is not written).
    mutating func flushCounts(_ db: Database) throws {
        if deferCounts {
            let tag = try db.cachedStatement(sql: "INSERT OR IGNORE INTO tag_counts(tag, display, posts) VALUES (?, ?, 0)")
            for (key, entry) in tagDeltas where notedTags.needsWriting(key) { try tag.execute(arguments: [key, entry.display]) }
            tagDeltas.removeAll(keepingCapacity: true)
            return
        }
        let use = try db.cachedStatement(sql: """
            INSERT INTO blob_uses(sha256, photo, video, avatar) VALUES (?, ?, ?, ?)
            ON CONFLICT(sha256) DO UPDATE SET photo = photo + excluded.photo, video = video + excluded.video,
                avatar = avatar + excluded.avatar
            """)
        let unused = try db.cachedStatement(sql: "DELETE FROM blob_uses WHERE sha256 = ? AND photo + video + avatar <= 0")
        for (sha, d) in blobDeltas.sorted(by: { $0.key < $1.key }) where d != (0, 0, 0) {
            let bytes = Data(sha.bytes)
            try use.execute(arguments: [bytes, d.0, d.1, d.2])
            if d.0 < 0 || d.1 < 0 || d.2 < 0 { try unused.execute(arguments: [bytes]) }
        }
        blobDeltas.removeAll(keepingCapacity: true)
        let author = try db.cachedStatement(sql: """
            INSERT INTO authors(user, handle, posts) VALUES (?, ?, ?)
            ON CONFLICT(user) DO UPDATE SET posts = posts + excluded.posts, handle = excluded.handle
            """)
        let gone = try db.cachedStatement(sql: "DELETE FROM authors WHERE user = ? AND posts <= 0")
        for (user, entry) in authorDeltas where entry.delta != 0 {
            try author.execute(arguments: [user, entry.handle, entry.delta])
            if entry.delta < 0 { try gone.execute(arguments: [user]) }
        }
        let tag = try db.cachedStatement(sql: """
            INSERT INTO tag_counts(tag, display, posts) VALUES (?, ?, ?)
            ON CONFLICT(tag) DO UPDATE SET posts = posts + excluded.posts
            """)
        let untagged = try db.cachedStatement(sql: "DELETE FROM tag_counts WHERE tag = ? AND posts <= 0")
        for (key, entry) in tagDeltas where entry.delta != 0 {
            try tag.execute(arguments: [key, entry.display, entry.delta])
            if entry.delta < 0 { try untagged.execute(arguments: [key]) }
        }
        authorDeltas.removeAll(keepingCapacity: true)
        tagDeltas.removeAll(keepingCapacity: true)
    }

    /// One blob a post uses. `slot` is 0 for the avatar, `2n` for the n-th medium's
    /// still image and `2n+1` for its video file.
    struct Reference: Sendable {
        var slot: Int
        var sha256: BlobHash
        var kind: Int
    }

    static func references(of post: PostFacts) -> [Reference] {
        var result: [Reference] = []
        // A hash that is not one (a hand-edited manifest) names no blob.
        if let avatar = post.author.avatar, let sha = avatar.sha256.flatMap(PostCatalog.blobHash) {
            result.append(Reference(slot: 0, sha256: sha, kind: ImageKind.avatar.code))
        }
        for (i, media) in post.media.enumerated() {
            let kind = media.type == "photo" ? ImageKind.photo : .video
            if media.url != nil, let sha = media.sha256.flatMap(PostCatalog.blobHash) {
                result.append(Reference(slot: 2 * (i + 1), sha256: sha, kind: kind.code))
            }
            if let sha = media.video?.sha256.flatMap(PostCatalog.blobHash) {
                result.append(Reference(slot: 2 * (i + 1) + 1, sha256: sha, kind: ImageKind.video.code))
            }
        }
        return result
    }
}
