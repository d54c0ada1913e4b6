import Foundation
internal import GRDB

extension PostCatalog {
    /// Reads one manifest file into the catalog; returns the problem when it is not a
    /// manifest (recorded, so the file is not read again until it changes).
    func ingestFile(_ file: ManifestFile) throws(CatalogError) -> String? {
        let url = cacheRoot.appendingPathComponent(file.path)
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(Data(contentsOf: url, options: .alwaysMapped))
        } catch {
            let message: String
            if let decoding = error as? DecodingError {
                message = "\(file.path): not a TweetCache manifest (\(Self.describe(decoding)))"
            } else {
                message = "\(file.path): unreadable (\((error as NSError).localizedDescription))"
            }
            try write("record a problem") { db in
                try db.execute(sql: "INSERT OR REPLACE INTO problems(path, size, mtime, message) VALUES (?, ?, ?, ?)",
                               arguments: [file.path, file.size, file.mtime, message])
            }
            return message
        }
        try ingest(manifest, file: file)
        return nil
    }

    /// Writes a run's posts in batches, then marks the run read. Idempotent: a run
    /// read again (after a kill mid-way) replaces its own posts with the same rows.
    func ingest(_ manifest: Manifest, file: ManifestFile) throws(CatalogError) {
        let runID: Int64 = try write("add a run") { db in
            try db.execute(sql: "DELETE FROM problems WHERE path = ?", arguments: [file.path])
            try db.execute(sql: """
                INSERT INTO runs(path, generated_at, size, mtime, tweets, included, complete) VALUES (?, ?, ?, ?, ?, ?, 0)
                ON CONFLICT(path) DO UPDATE SET generated_at = excluded.generated_at, size = excluded.size,
                    mtime = excluded.mtime, tweets = excluded.tweets, included = excluded.included, complete = 0
                """, arguments: [file.path, manifest.generatedAt.timeIntervalSince1970, file.size, file.mtime,
                                 manifest.tweets.count, manifest.includedTweets.count])
            return try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE path = ?", arguments: [file.path]) ?? 0
        }
        var writer = try PostWriter(catalog: self, run: runID, order: (manifest.generatedAt.timeIntervalSince1970, file.path))
        let all = [(manifest.tweets, false), (manifest.includedTweets, true)]
        for (posts, included) in all {
            var start = 0
            while start < posts.count {
                let end = min(posts.count, start + Self.batchSize)
                try write("add posts") { db in
                    for post in posts[start..<end] { try writer.upsert(post, included: included, db: db) }
                    try writer.flushCounts(db)
                }
                start = end
            }
        }
        try write("finish a run") { db in
            try db.execute(sql: "DELETE FROM searches WHERE run = ?", arguments: [runID])
            for source in manifest.sources {
                try db.execute(sql: "INSERT INTO searches(run, source, query, tweets) VALUES (?, ?, ?, ?)",
                               arguments: [runID, source.path, source.query, source.tweets])
            }
            try db.execute(sql: "UPDATE runs SET complete = 1 WHERE id = ?", arguments: [runID])
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): return "missing \(key.stringValue)"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "\(error)"
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
    var json: [UInt8] = []

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

    mutating func upsert(_ post: ManifestTweet, included: Bool, db: Database) throws {
        let hashes = Self.references(of: post)
        let runRef = try db.cachedStatement(sql: "INSERT OR IGNORE INTO run_refs(sha256, run) VALUES (?, ?)")
        for reference in hashes { try runRef.execute(arguments: [reference.sha256, run]) }

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
        ManifestJSONWriter.encodeCompact(post, into: &json)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO posts(id, included, run, created, id_order, user, handle, name, text, tags, query, photos, json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.execute(arguments: [
            post.id, included, run, created, idOrder, user, post.author.screenName, post.author.name, post.text,
            tags.map(\.display).joined(separator: " "), query, post.media.filter(PresentationBuilder.servable).count,
            Data(json),
        ])
        let rowid = db.lastInsertedRowID

        let reference = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO refs(post, slot, sha256, kind, url, media_id, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for r in hashes {
            try reference.execute(arguments: [rowid, r.slot, r.sha256, r.kind, r.url, r.mediaID, r.bytes])
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
        for table in ["post_tags", "mentions", "links", "refs"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE post = ?").execute(arguments: [rowid])
        }
        try db.cachedStatement(sql: "DELETE FROM posts WHERE rowid = ?").execute(arguments: [rowid])
    }

    /// Applies the batch's gains and losses to the facet counts.
    mutating func flushCounts(_ db: Database) throws {
        let author = try db.cachedStatement(sql: """
            INSERT INTO authors(user, handle, posts) VALUES (?, ?, ?)
            ON CONFLICT(user) DO UPDATE SET posts = posts + excluded.posts, handle = excluded.handle
            """)
        for (user, entry) in authorDeltas where entry.delta != 0 {
            try author.execute(arguments: [user, entry.handle, entry.delta])
        }
        let tag = try db.cachedStatement(sql: """
            INSERT INTO tag_counts(tag, display, posts) VALUES (?, ?, ?)
            ON CONFLICT(tag) DO UPDATE SET posts = posts + excluded.posts
            """)
        for (key, entry) in tagDeltas where entry.delta != 0 {
            try tag.execute(arguments: [key, entry.display, entry.delta])
        }
        if authorDeltas.values.contains(where: { $0.delta < 0 }) { try db.execute(sql: "DELETE FROM authors WHERE posts <= 0") }
        if tagDeltas.values.contains(where: { $0.delta < 0 }) { try db.execute(sql: "DELETE FROM tag_counts WHERE posts <= 0") }
        authorDeltas.removeAll(keepingCapacity: true)
        tagDeltas.removeAll(keepingCapacity: true)
    }

    /// One blob a post uses. `slot` is 0 for the avatar, `2n` for the n-th medium's
    /// still image and `2n+1` for its video file.
    struct Reference {
        var slot: Int
        var sha256: String
        var kind: Int
        var url: String
        var mediaID: String?
        var bytes: Int?
    }

    static func references(of post: ManifestTweet) -> [Reference] {
        var result: [Reference] = []
        if let avatar = post.author.avatar, let sha = avatar.sha256 {
            result.append(Reference(slot: 0, sha256: sha, kind: ImageKind.avatar.code, url: avatar.url, bytes: avatar.bytes))
        }
        for (i, media) in post.media.enumerated() {
            let kind = media.type == "photo" ? ImageKind.photo : .video
            if let sha = media.sha256, let url = media.url {
                result.append(Reference(slot: 2 * (i + 1), sha256: sha, kind: kind.code, url: url, mediaID: media.id, bytes: media.bytes))
            }
            if let video = media.video, let sha = video.sha256 {
                result.append(Reference(slot: 2 * (i + 1) + 1, sha256: sha, kind: ImageKind.video.code, url: video.url,
                                        mediaID: media.id, bytes: video.bytes))
            }
        }
        return result
    }
}
