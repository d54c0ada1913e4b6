internal import GRDB
#if canImport(Glibc)
internal import Glibc
#endif

extension CacheIndex {
    /// Removes every row of `hashes` (URLs, blob, derived files, PDQ) and the URL and
    /// failure rows of `urls`, for `forget`: with `secure_delete` on, so the rows'
    /// bytes are overwritten rather than left in free pages, and the log then copied
    /// in and cut to nothing, so no earlier page image of them stays in
    /// `index.sqlite-wal`. No grace period: what `forget` removes is removed even if a
    /// fetch touched it a moment ago (a fetch running now fetches it again).
    public func erase(hashes: [BlobHash], urls: Set<String>) throws(BlobStoreError) {
        guard !hashes.isEmpty || !urls.isEmpty else { return }
        do {
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = ON") }
        } catch {
            throw .index(operation: "erase as it deletes", path: databasePath, message: String(describing: error))
        }
        defer { _ = try? pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = FAST") } }
        try write("erase \(hashes.count) blobs and \(urls.count) URLs") { db in
            for hash in hashes {
                for table in ["urls", "blobs", "derived", "pdq"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE sha256 = ?", arguments: [hash.hex])
                }
                try CacheIndex.forgetContentHashes(of: hash, in: db)
            }
            for url in urls.sorted() {
                try db.execute(sql: "DELETE FROM urls WHERE url = ?", arguments: [url])
                try db.execute(sql: "DELETE FROM failures WHERE url = ?", arguments: [url])
            }
        }
        for attempt in 0..<20 {
            let busy = try write(withoutTransaction: "cut the log") { db in
                try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)").map { $0[0] as Int } ?? 0
            }
            if busy == 0 { return }
            if attempt < 19 { usleep(100_000) }
        }
        throw .index(operation: "cut the log", path: databasePath,
                     message: "readers held the log for 2 s; run `tweetcache forget` again to finish")
    }

    private func write<T>(withoutTransaction operation: String, _ body: (Database) throws -> T) throws(BlobStoreError) -> T {
        do {
            return try pool.writeWithoutTransaction(body)
        } catch {
            throw .index(operation: operation, path: databasePath, message: String(describing: error))
        }
    }
}
