public import Foundation
internal import GRDB

extension CacheIndex {
    /// Records that fetching a URL failed, counting repeated failures.
    ///
    /// Returns the updated row so the caller can decide on back-off from
    /// `attempts` without a second query.
    @discardableResult
    public func recordFailure(
        url: String, reason: String, httpStatus: Int? = nil, at date: Date = Date()
    ) throws(BlobStoreError) -> FailureRecord {
        try write("record failure of \(url)") { db in
            let row = try Row.fetchOne(db, sql: """
                INSERT INTO failures (url, reason, http_status, attempts, failed_at)
                VALUES (?, ?, ?, 1, ?)
                ON CONFLICT(url) DO UPDATE SET
                    reason = excluded.reason,
                    http_status = excluded.http_status,
                    attempts = failures.attempts + 1,
                    failed_at = excluded.failed_at
                RETURNING *
                """, arguments: [url, reason, httpStatus, date.timeIntervalSince1970])
            guard let row else {
                throw InvalidIndexRow(description: "the failure row for \(url) was not returned")
            }
            return try FailureRecord(row: row)
        }
    }

    /// Forgets a URL's failures, typically after it finally succeeded.
    public func clearFailure(url: String) throws(BlobStoreError) {
        try write("clear failure of \(url)") { db in
            try db.execute(sql: "DELETE FROM failures WHERE url = ?", arguments: [url])
        }
    }

    /// The last failure recorded for a URL, or nil if it has none.
    public func failure(url: String) throws(BlobStoreError) -> FailureRecord? {
        try read("look up failure of \(url)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM failures WHERE url = ?", arguments: [url])
                .map(FailureRecord.init(row:))
        }
    }

    /// Every failed URL, sorted by URL.
    public func allFailures() throws(BlobStoreError) -> [FailureRecord] {
        try read("list failures") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM failures ORDER BY url").map(FailureRecord.init(row:))
        }
    }
}

extension FailureRecord {
    init(row: Row) throws {
        self.init(
            url: try row.decode(String.self, forColumn: "url"),
            reason: try row.decode(String?.self, forColumn: "reason") ?? "",
            httpStatus: try row.decode(Int?.self, forColumn: "http_status"),
            attempts: try row.decode(Int?.self, forColumn: "attempts") ?? 1,
            failedAt: try row.date("failed_at")
        )
    }
}
