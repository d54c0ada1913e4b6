public import Foundation
internal import GRDB

extension CacheIndex {
    private static let upsertURLSQL = """
        INSERT INTO urls (url, sha256, size, content_type, http_status, fetched_at, last_access)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(url) DO UPDATE SET
            sha256 = excluded.sha256,
            size = excluded.size,
            content_type = excluded.content_type,
            http_status = excluded.http_status,
            fetched_at = excluded.fetched_at,
            last_access = excluded.last_access
        """

    /// Records (or replaces) what a URL produced.
    public func record(_ entry: URLRecord) throws(BlobStoreError) {
        try record([entry])
    }

    /// Records many URLs (and optionally their blobs) in one transaction.
    ///
    /// One commit instead of hundreds is what keeps indexing a large run
    /// cheap, and readers never see half a batch.
    public func record(_ entries: [URLRecord], blobs: [BlobRecord] = []) throws(BlobStoreError) {
        guard !entries.isEmpty || !blobs.isEmpty else { return }
        try write("record \(entries.count) URL(s)") { db in
            let statement = try db.cachedStatement(sql: Self.upsertURLSQL)
            // A URL that now has content no longer counts as failed. Most caches have no
            // failures at all, and then a delete per URL is a third of a batch's work.
            let clearFailure = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM failures)") == true
                ? try db.cachedStatement(sql: "DELETE FROM failures WHERE url = ?") : nil
            for entry in entries {
                try statement.execute(arguments: [
                    entry.url, entry.hash.hex, entry.size, entry.contentType, entry.httpStatus,
                    entry.fetchedAt.timeIntervalSince1970, entry.lastAccess.timeIntervalSince1970,
                ])
                try clearFailure?.execute(arguments: [entry.url])
            }
            try Self.upsertBlobs(blobs, in: db)
        }
    }

    /// What a URL produced last time, or nil if it was never fetched.
    public func lookup(url: String) throws(BlobStoreError) -> URLRecord? {
        try read("look up \(url)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM urls WHERE url = ?", arguments: [url])
                .map(URLRecord.init(row:))
        }
    }

    /// What each of these URLs produced last time, in one read transaction: a run
    /// asks about every URL it needs before fetching, and one query per URL would
    /// cost a transaction each. A new cache answers at once (10,000 misses cost 25 ms).
    public func lookup(urls: [String]) throws(BlobStoreError) -> [String: URLRecord] {
        guard !urls.isEmpty else { return [:] }
        return try read("look up \(urls.count) URLs") { db in
            var found: [String: URLRecord] = [:]
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM urls)") == true else { return found }
            let statement = try db.cachedStatement(sql: "SELECT * FROM urls WHERE url = ?")
            for url in urls {
                if let row = try Row.fetchOne(statement, arguments: [url]) {
                    found[url] = try URLRecord(row: row)
                }
            }
            return found
        }
    }

    /// Every URL that produced this blob (shared avatars, mirrors).
    public func urls(for hash: BlobHash) throws(BlobStoreError) -> [URLRecord] {
        try read("list URLs of blob \(hash)") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM urls WHERE sha256 = ? ORDER BY url", arguments: [hash.hex])
                .map(URLRecord.init(row:))
        }
    }

    /// Every recorded URL, sorted by URL.
    public func allURLRecords() throws(BlobStoreError) -> [URLRecord] {
        try read("list URLs") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM urls ORDER BY url").map(URLRecord.init(row:))
        }
    }

    /// Marks URLs (and their blobs) as used now, so eviction keeps them.
    public func touch(urls: [String], at date: Date = Date()) throws(BlobStoreError) {
        guard !urls.isEmpty else { return }
        let seconds = date.timeIntervalSince1970
        try write("touch \(urls.count) URL(s)") { db in
            let touchURL = try db.cachedStatement(sql: "UPDATE urls SET last_access = ? WHERE url = ?")
            let touchBlob = try db.cachedStatement(sql: """
                UPDATE blobs SET last_access = ? WHERE sha256 IN (SELECT sha256 FROM urls WHERE url = ?)
                """)
            for url in urls {
                try touchURL.execute(arguments: [seconds, url])
                try touchBlob.execute(arguments: [seconds, url])
            }
        }
    }

    /// Marks a blob and every URL that produced it as used now.
    public func touch(hash: BlobHash, at date: Date = Date()) throws(BlobStoreError) {
        let seconds = date.timeIntervalSince1970
        try write("touch blob \(hash)") { db in
            try db.execute(sql: "UPDATE urls SET last_access = ? WHERE sha256 = ?", arguments: [seconds, hash.hex])
            try db.execute(sql: "UPDATE blobs SET last_access = ? WHERE sha256 = ?", arguments: [seconds, hash.hex])
        }
    }
}

extension URLRecord {
    init(row: Row) throws {
        self.init(
            url: try row.decode(String.self, forColumn: "url"),
            hash: try row.blobHash("sha256"),
            size: try row.decode(Int?.self, forColumn: "size") ?? 0,
            contentType: try row.decode(String?.self, forColumn: "content_type"),
            httpStatus: try row.decode(Int?.self, forColumn: "http_status"),
            fetchedAt: try row.date("fetched_at"),
            lastAccess: try row.date("last_access")
        )
    }
}
