import Foundation
internal import GRDB
import TweetModel
import MediaTypes

extension PostCatalog {
    /// Reads one manifest file into the catalog, a batch of posts per transaction.
    /// `read` is false when the file is not a manifest at all; `problem` says why, or
    /// which posts in it could not be read (recorded, so the file is not read again
    /// until it changes).
    func ingestFile(_ file: ListedFile) throws(CatalogError) -> (read: Bool, problem: String?) {
        let manifest: ManifestFile
        do {
            manifest = try ManifestFile(url: cacheRoot.appendingPathComponent(file.path))
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
            return try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ?", arguments: [file.path]) ?? 0
        }
        var writer = try PostWriter(catalog: self, run: runID, order: (manifest.header.generatedAt.timeIntervalSince1970, file.path))
        var failed: [String] = []
        var pending: [(section: ManifestFile.Section, range: Range<Int>)] = []
        pending.reserveCapacity(Self.batchSize)
        var index: [ManifestFile.Section: Int] = [:]
        func flush() throws(CatalogError) {
            let posts = manifest.decode(PostFacts.self, at: pending.map(\.range))
            try write("add posts") { db in
                for (entry, post) in zip(pending, posts) {
                    let position = index[entry.section, default: 0]
                    index[entry.section] = position + 1
                    switch post {
                    case let .success(post):
                        try writer.upsert(post, included: entry.section == .includedTweets, at: entry.range, db: db)
                    case let .failure(error):
                        let name = entry.section == .tweets ? "tweets" : "included_tweets"
                        failed.append("\(name)[\(position)]: \(error)")
                    }
                }
                try writer.flushCounts(db)
            }
            // The batch's pages go back: a manifest of gigabytes is not left resident.
            if let first = pending.first, let last = pending.last {
                manifest.release(first.range.lowerBound..<last.range.upperBound)
            }
            pending.removeAll(keepingCapacity: true)
        }
        do {
            try manifest.forEachPost { section, range in
                pending.append((section, range))
                if pending.count == Self.batchSize { try flush() }
            }
            try flush()
        } catch let error as CatalogError {
            throw error
        } catch {
            // The scan checked the structure when the file was opened; a file that
            // changes under the scan is read again by the next refresh.
            throw .database(operation: "read \(file.path)", message: "\(error)")
        }
        try write("finish a run") { db in
            try db.execute(sql: "DELETE FROM searches WHERE run = ?", arguments: [runID])
            for source in manifest.header.sources {
                try db.execute(sql: "INSERT INTO searches(run, source, query, tweets) VALUES (?, ?, ?, ?)",
                               arguments: [runID, source.path, source.query, source.tweets])
            }
            try writer.finish(db)
            try db.execute(sql: "UPDATE runs SET complete = 1 WHERE id = ?", arguments: [runID])
        }
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
/// and counts what the facets gain and lose until ``flushCounts(_:)``.
struct PostWriter {
    let run: Int64
    /// `(generated_at, path)` of each run: a post's copy from the larger one wins.
    var runOrder: [Int64: (Double, String)]
    var order: (Double, String)
    var authorDeltas: [String: (handle: String, delta: Int)] = [:]
    var tagDeltas: [String: (display: String, delta: Int)] = [:]
    /// Uses gained and lost per blob, by kind (photo, video, avatar).
    var blobDeltas: [Data: (Int, Int, Int)] = [:]
    /// Every blob the run names, written once at its end.
    var runHashes = Set<Data>()

    init(catalog: PostCatalog, run: Int64, order: (Double, String)) throws(CatalogError) {
        self.run = run
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

    mutating func upsert(_ post: PostFacts, included: Bool, at range: Range<Int>, db: Database) throws {
        let hashes = Self.references(of: post)
        for reference in hashes { runHashes.insert(reference.sha256) }

        let existing = try db.cachedStatement(sql: "SELECT rowid, run FROM posts WHERE included = ? AND id = ?")
        if let row = try Row.fetchOne(existing, arguments: [included, post.id]) {
            let otherRun: Int64 = row["run"]
            if otherRun != run, let other = runOrder[otherRun], other > order { return }
            try delete(rowid: row["rowid"], db: db)
        }

        let created = PostOrder.created(post.createdAt)
        let idOrder = PostOrder.idKey(post.id)
        let user = PostFilter.normalise(post.author.screenName, dropping: ["@"])
        var tags: [(key: String, display: String)] = []
        for tag in post.entities.hashtags.map(\.tag) + post.entities.cashtags.map(\.tag) {
            let key = PostFilter.normalise(tag, dropping: ["#", "$"])
            if !key.isEmpty, !tags.contains(where: { $0.key == key }) { tags.append((key, tag)) }
        }
        let query = post.query.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO posts(id, included, run, offset, length, created, id_order, user, handle, query, photos, network)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.execute(arguments: [
            post.id, included, run, range.lowerBound, range.count, created, idOrder, user, post.author.screenName, query,
            post.media.filter(\.servable).count, post.network ?? "x",
        ])
        let rowid = db.lastInsertedRowID
        if !included {
            let text = try db.cachedStatement(sql: "INSERT INTO posts_fts(rowid, text, name, handle, tags) VALUES (?, ?, ?, ?, ?)")
            try text.execute(arguments: [rowid, post.text, post.author.name, post.author.screenName,
                                         tags.map(\.display).joined(separator: " ")])
        }

        let reference = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO refs(post, slot, sha256, kind) VALUES (?, ?, ?, ?)
            """)
        for r in hashes {
            try reference.execute(arguments: [rowid, r.slot, r.sha256, r.kind])
            count(r.sha256, kind: r.kind, by: 1)
        }
        // A photo's hash is a fact of its bytes: the first copy read stays.
        let perceptual = try db.cachedStatement(sql: "INSERT OR IGNORE INTO images_pdq(sha256, quality, hashes) VALUES (?, ?, ?)")
        for media in post.media where media.type == "photo" {
            guard let sha = media.sha256.flatMap(PostCatalog.blob), let signature = media.signature else { continue }
            try perceptual.execute(arguments: [sha, signature.quality, Data(signature.packed)])
        }
        let mention = try db.cachedStatement(sql: "INSERT OR IGNORE INTO mentions(post, username) VALUES (?, ?)")
        for m in post.entities.mentions {
            try mention.execute(arguments: [rowid, PostFilter.normalise(m.username, dropping: ["@"])])
        }
        let link = try db.cachedStatement(sql: "INSERT OR IGNORE INTO links(post, url) VALUES (?, ?)")
        for l in post.entities.urls { try link.execute(arguments: [rowid, l.expandedURL ?? l.url]) }
        guard !included else { return }
        let tag = try db.cachedStatement(sql: "INSERT INTO post_tags(post, tag, created, id_order) VALUES (?, ?, ?, ?)")
        for t in tags {
            try tag.execute(arguments: [rowid, t.key, created, idOrder])
            tagDeltas[t.key, default: (t.display, 0)].delta += 1
        }
        authorDeltas[user, default: (post.author.screenName, 0)].delta += 1
        authorDeltas[user]?.handle = post.author.screenName
    }

    /// Removes a post and what hangs off it, counting it out of the facets.
    private mutating func delete(rowid: Int64, db: Database) throws {
        let facts = try db.cachedStatement(sql: "SELECT included, user, handle FROM posts WHERE rowid = ?")
        guard let row = try Row.fetchOne(facts, arguments: [rowid]) else { return }
        if !(row["included"] as Bool) {
            let user: String = row["user"]
            authorDeltas[user, default: (row["handle"], 0)].delta -= 1
            let tags = try db.cachedStatement(sql: "SELECT tag FROM post_tags WHERE post = ?")
            for tag in try String.fetchAll(tags, arguments: [rowid]) { tagDeltas[tag, default: (tag, 0)].delta -= 1 }
        }
        let uses = try db.cachedStatement(sql: "SELECT sha256, kind FROM refs WHERE post = ?")
        for row in try Row.fetchAll(uses, arguments: [rowid]) { count(row[0], kind: row[1], by: -1) }
        for table in ["post_tags", "mentions", "links", "refs"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE post = ?").execute(arguments: [rowid])
        }
        try db.cachedStatement(sql: "DELETE FROM posts WHERE rowid = ?").execute(arguments: [rowid])
    }

    /// Records every blob the run named (what `gc` keeps).
    mutating func finish(_ db: Database) throws {
        let runRef = try db.cachedStatement(sql: "INSERT OR IGNORE INTO run_refs(run, sha256) VALUES (?, ?)")
        for sha in runHashes { try runRef.execute(arguments: [run, sha]) }
        runHashes.removeAll()
    }

    private mutating func count(_ sha: Data, kind: Int, by delta: Int) {
        var entry = blobDeltas[sha] ?? (0, 0, 0)
        switch ImageKind(code: kind) {
        case .photo: entry.0 += delta
        case .video: entry.1 += delta
        default: entry.2 += delta
        }
        blobDeltas[sha] = entry
    }

    /// Applies the batch's gains and losses to the facet counts and the blobs' uses.
    mutating func flushCounts(_ db: Database) throws {
        let use = try db.cachedStatement(sql: """
            INSERT INTO blob_uses(sha256, photo, video, avatar) VALUES (?, ?, ?, ?)
            ON CONFLICT(sha256) DO UPDATE SET photo = photo + excluded.photo, video = video + excluded.video,
                avatar = avatar + excluded.avatar
            """)
        let unused = try db.cachedStatement(sql: "DELETE FROM blob_uses WHERE sha256 = ? AND photo + video + avatar <= 0")
        for (sha, d) in blobDeltas where d != (0, 0, 0) {
            try use.execute(arguments: [sha, d.0, d.1, d.2])
            if d.0 < 0 || d.1 < 0 || d.2 < 0 { try unused.execute(arguments: [sha]) }
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
    struct Reference {
        var slot: Int
        var sha256: Data
        var kind: Int
    }

    static func references(of post: PostFacts) -> [Reference] {
        var result: [Reference] = []
        // A hash that is not one (a hand-edited manifest) names no blob.
        if let avatar = post.author.avatar, let sha = avatar.sha256.flatMap(PostCatalog.blob) {
            result.append(Reference(slot: 0, sha256: sha, kind: ImageKind.avatar.code))
        }
        for (i, media) in post.media.enumerated() {
            let kind = media.type == "photo" ? ImageKind.photo : .video
            if media.url != nil, let sha = media.sha256.flatMap(PostCatalog.blob) {
                result.append(Reference(slot: 2 * (i + 1), sha256: sha, kind: kind.code))
            }
            if let sha = media.video?.sha256.flatMap(PostCatalog.blob) {
                result.append(Reference(slot: 2 * (i + 1) + 1, sha256: sha, kind: ImageKind.video.code))
            }
        }
        return result
    }
}
