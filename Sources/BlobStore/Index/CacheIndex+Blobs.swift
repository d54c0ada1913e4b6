internal import Foundation
internal import GRDB

extension CacheIndex {
    /// Records what is known about a blob's content.
    ///
    /// Merges with an existing row: a later call without dimensions does not
    /// erase dimensions learned earlier, and `createdAt` keeps the first
    /// value.
    public func recordBlob(_ record: BlobRecord) throws(BlobStoreError) {
        try recordBlobs([record])
    }

    /// Records many blobs in one transaction.
    public func recordBlobs(_ records: [BlobRecord]) throws(BlobStoreError) {
        guard !records.isEmpty else { return }
        try write("record \(records.count) blob(s)") { db in
            try Self.upsertBlobs(records, in: db)
        }
    }

    /// What is known about a blob, or nil if it was never recorded.
    public func blob(_ hash: BlobHash) throws(BlobStoreError) -> BlobRecord? {
        try read("look up blob \(hash)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM blobs WHERE sha256 = ?", arguments: [hash.hex])
                .map(BlobRecord.init(row:))
        }
    }

    /// What is known about many blobs, in one read transaction; unrecorded ones are absent.
    public func blobs(_ hashes: [BlobHash]) throws(BlobStoreError) -> [BlobHash: BlobRecord] {
        guard !hashes.isEmpty else { return [:] }
        return try read("look up \(hashes.count) blobs") { db in
            var found: [BlobHash: BlobRecord] = [:]
            let statement = try db.cachedStatement(sql: "SELECT * FROM blobs WHERE sha256 = ?")
            for hash in hashes {
                if let row = try Row.fetchOne(statement, arguments: [hash.hex]) { found[hash] = try BlobRecord(row: row) }
            }
            return found
        }
    }

    /// Every recorded blob, least recently used first (eviction order).
    public func allBlobRecords() throws(BlobStoreError) -> [BlobRecord] {
        try read("list blobs") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM blobs ORDER BY last_access, sha256").map(BlobRecord.init(row:))
        }
    }

    /// Records a file derived from a blob, replacing an earlier one of the
    /// same kind and size parameter.
    public func recordDerived(_ record: DerivedRecord) throws(BlobStoreError) {
        try recordDerived([record])
    }

    /// Records many derived files in one transaction (an image yields several).
    public func recordDerived(_ records: [DerivedRecord]) throws(BlobStoreError) {
        guard !records.isEmpty else { return }
        try write("record \(records.count) derived file(s)") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO derived (sha256, kind, size_param, path, width, height, bytes, content_sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(sha256, kind, size_param) DO UPDATE SET
                    path = excluded.path, width = excluded.width,
                    height = excluded.height, bytes = excluded.bytes,
                    content_sha256 = CASE WHEN excluded.path = derived.path
                        THEN coalesce(excluded.content_sha256, derived.content_sha256)
                        ELSE excluded.content_sha256 END
                """)
            for record in records {
                try statement.execute(arguments: [
                    record.hash.hex, record.kind.rawValue, record.sizeParameter, record.path,
                    record.width, record.height, record.bytes, record.contentSHA256?.hex,
                ])
            }
        }
    }

    /// The derived files of many blobs, in one read transaction.
    public func derived(for hashes: [BlobHash]) throws(BlobStoreError) -> [BlobHash: [DerivedRecord]] {
        guard !hashes.isEmpty else { return [:] }
        return try read("list derived files of \(hashes.count) blobs") { db in
            var found: [BlobHash: [DerivedRecord]] = [:]
            let statement = try db.cachedStatement(sql: "SELECT * FROM derived WHERE sha256 = ? ORDER BY kind, size_param")
            for hash in hashes {
                let rows = try Row.fetchAll(statement, arguments: [hash.hex]).map(DerivedRecord.init(row:))
                if !rows.isEmpty { found[hash] = rows }
            }
            return found
        }
    }

    /// The SHA-256s recorded for the derived file at `path` (made from `source`),
    /// by this machine or by the manifests it synced; empty when none was
    /// recorded. What a copy read back from disk or a bucket is checked against.
    public func contentHashes(ofDerived path: String, source: BlobHash) throws(BlobStoreError) -> Set<BlobHash> {
        try read("look up the hash of \(path)") { db in
            let mine = try String.fetchAll(db, sql: "SELECT content_sha256 FROM derived WHERE sha256 = ? AND path = ?",
                                           arguments: [source.hex, path])
            let known = try String.fetchAll(db, sql: "SELECT sha256 FROM content_hashes WHERE path = ?", arguments: [path])
            return Set((mine + known).compactMap(BlobHash.init(hex:)))
        }
    }

    /// Records what derived files this machine may not hold hash to (a bucket's
    /// thumbnails, from the manifests that name them), keeping what it knew.
    public func recordContentHashes(_ hashes: [(path: String, sha256: BlobHash)]) throws(BlobStoreError) {
        guard !hashes.isEmpty else { return }
        try write("record \(hashes.count) content hash(es)") { db in
            let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO content_hashes (path, sha256) VALUES (?, ?)")
            for entry in hashes { try statement.execute(arguments: [entry.path, entry.sha256.hex]) }
        }
    }

    /// Drops the recorded hashes of every file derived from `hash`: their paths all
    /// start `derived/ab/<hex>.`, and `/` sorts right after `.`.
    static func forgetContentHashes(of hash: BlobHash, in db: Database) throws {
        let prefix = CacheLayout.derivedPrefix(hash)
        try db.execute(sql: "DELETE FROM content_hashes WHERE path >= ? AND path < ?",
                       arguments: [prefix, String(prefix.dropLast()) + "/"])
    }

    /// Every file derived from a blob.
    public func derived(for hash: BlobHash) throws(BlobStoreError) -> [DerivedRecord] {
        try read("list derived files of \(hash)") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM derived WHERE sha256 = ? ORDER BY kind, size_param",
                             arguments: [hash.hex])
                .map(DerivedRecord.init(row:))
        }
    }

    /// Removes every row that mentions a blob (its URLs, its own row, its
    /// derived files), for garbage collection after the blob is deleted.
    /// Returns the URLs that pointed at it, so they can be re-fetched.
    @discardableResult
    public func forget(_ hash: BlobHash) throws(BlobStoreError) -> [String] {
        try write("forget blob \(hash)") { db in
            let urls = try String.fetchAll(db, sql: "SELECT url FROM urls WHERE sha256 = ? ORDER BY url",
                                           arguments: [hash.hex])
            for table in ["urls", "blobs", "derived", "pdq"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE sha256 = ?", arguments: [hash.hex])
            }
            try Self.forgetContentHashes(of: hash, in: db)
            return urls
        }
    }

    static func upsertBlobs(_ records: [BlobRecord], in db: Database) throws {
        guard !records.isEmpty else { return }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO blobs (sha256, size, content_type, width, height, created_at, last_access, decode_warning)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(sha256) DO UPDATE SET
                size = excluded.size,
                content_type = coalesce(excluded.content_type, blobs.content_type),
                width = coalesce(excluded.width, blobs.width),
                height = coalesce(excluded.height, blobs.height),
                decode_warning = coalesce(excluded.decode_warning, blobs.decode_warning),
                created_at = coalesce(blobs.created_at, excluded.created_at),
                last_access = excluded.last_access
            """)
        for record in records {
            try statement.execute(arguments: [
                record.hash.hex, record.size, record.contentType, record.width, record.height,
                record.createdAt.timeIntervalSince1970, record.lastAccess.timeIntervalSince1970, record.decodeWarning,
            ])
        }
    }
}

extension BlobRecord {
    init(row: Row) throws {
        self.init(
            hash: try row.blobHash("sha256"),
            size: try row.decode(Int?.self, forColumn: "size") ?? 0,
            contentType: try row.decode(String?.self, forColumn: "content_type"),
            width: try row.decode(Int?.self, forColumn: "width"),
            height: try row.decode(Int?.self, forColumn: "height"),
            createdAt: try row.date("created_at"),
            lastAccess: try row.date("last_access")
        )
        decodeWarning = try row.decode(String?.self, forColumn: "decode_warning")
    }
}

extension DerivedRecord {
    init(row: Row) throws {
        self.init(
            hash: try row.blobHash("sha256"),
            kind: DerivedKind(rawValue: try row.decode(String.self, forColumn: "kind")),
            sizeParameter: try row.decode(String?.self, forColumn: "size_param") ?? "",
            path: try row.decode(String.self, forColumn: "path"),
            width: try row.decode(Int?.self, forColumn: "width"),
            height: try row.decode(Int?.self, forColumn: "height"),
            bytes: try row.decode(Int?.self, forColumn: "bytes"),
            contentSHA256: try row.decode(String?.self, forColumn: "content_sha256").flatMap(BlobHash.init(hex:))
        )
    }
}
