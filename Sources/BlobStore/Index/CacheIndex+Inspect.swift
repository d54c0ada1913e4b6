internal import GRDB

extension CacheIndex {
    /// Every derived-file row, by blob then kind: `stats` and `verify` walk them all.
    public func allDerivedRecords() throws(BlobStoreError) -> [DerivedRecord] {
        try read("list derived files") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM derived ORDER BY sha256, kind, size_param").map(DerivedRecord.init(row:))
        }
    }

    /// How many URLs have content.
    public func urlCount() throws(BlobStoreError) -> Int {
        try read("count URLs") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM urls") ?? 0 }
    }

    /// Removes the rows of many blobs (URLs, blob, derived) in one transaction, so
    /// garbage collection drops them from the index before unlinking any file: a
    /// reader that finds a URL row then finds its blob, or finds no row and fetches.
    ///
    /// `keep` is asked inside the transaction for each hash and may veto (e.g. a row
    /// touched since the caller decided); vetoed hashes are returned unchanged.
    public func forget(
        _ hashes: [BlobHash], keep: @Sendable (BlobHash, _ newestUse: Double?) -> Bool = { _, _ in false }
    ) throws(BlobStoreError) -> [BlobHash] {
        guard !hashes.isEmpty else { return [] }
        return try write("forget \(hashes.count) blobs") { db in
            var forgotten: [BlobHash] = []
            let newest = try db.cachedStatement(sql: """
                SELECT max(coalesce(
                    (SELECT max(max(coalesce(fetched_at, 0), coalesce(last_access, 0))) FROM urls WHERE sha256 = ?1), 0),
                    coalesce((SELECT max(coalesce(created_at, 0), coalesce(last_access, 0)) FROM blobs WHERE sha256 = ?1), 0))
                """)
            for hash in hashes {
                let use = try Double.fetchOne(newest, arguments: [hash.hex])
                if keep(hash, use) { continue }
                for table in ["urls", "blobs", "derived", "pdq"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE sha256 = ?", arguments: [hash.hex])
                }
                try CacheIndex.forgetContentHashes(of: hash, in: db)
                forgotten.append(hash)
            }
            return forgotten
        }
    }

    /// Removes derived-file rows (a repair of rows whose blob is gone, the old
    /// layout's rows once an image is converted), in one transaction.
    public func removeDerived(_ records: [DerivedRecord]) throws(BlobStoreError) {
        guard !records.isEmpty else { return }
        try write("remove \(records.count) derived file row(s)") { db in
            for record in records {
                try db.execute(sql: "DELETE FROM derived WHERE sha256 = ? AND kind = ? AND size_param = ? AND path = ?",
                               arguments: [record.hash.hex, record.kind.rawValue, record.sizeParameter, record.path])
            }
        }
    }
}
