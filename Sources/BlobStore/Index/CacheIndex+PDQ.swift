public import MediaTypes
internal import Foundation
internal import GRDB

extension CacheIndex {
    /// Records the PDQ signatures of images, replacing earlier ones (a hash is a pure
    /// function of the bytes, so a later one can only be the same or from a fixed hasher).
    public func recordPDQ(_ signatures: [BlobHash: PDQSignature]) throws(BlobStoreError) {
        guard !signatures.isEmpty else { return }
        try write("record \(signatures.count) PDQ hash(es)") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO pdq (sha256, quality, hashes) VALUES (?, ?, ?)
                ON CONFLICT(sha256) DO UPDATE SET quality = excluded.quality, hashes = excluded.hashes
                """)
            for (hash, signature) in signatures {
                try statement.execute(arguments: [hash.hex, signature.quality, Data(signature.packed)])
            }
        }
    }

    /// The signatures known for these images; images never hashed are absent.
    public func pdq(for hashes: [BlobHash]) throws(BlobStoreError) -> [BlobHash: PDQSignature] {
        guard !hashes.isEmpty else { return [:] }
        return try read("look up the PDQ hashes of \(hashes.count) image(s)") { db in
            var found: [BlobHash: PDQSignature] = [:]
            let statement = try db.cachedStatement(sql: "SELECT quality, hashes FROM pdq WHERE sha256 = ?")
            for hash in hashes {
                guard let row = try Row.fetchOne(statement, arguments: [hash.hex]),
                      let signature = PDQSignature(quality: row[0], packed: [UInt8](row[1] as Data))
                else { continue }
                found[hash] = signature
            }
            return found
        }
    }

    /// Every image with a signature: `verify` reports those whose blob is gone.
    public func allPDQHashes() throws(BlobStoreError) -> [BlobHash] {
        try read("list PDQ hashes") { db in
            try String.fetchAll(db, sql: "SELECT sha256 FROM pdq ORDER BY sha256").compactMap(BlobHash.init(hex:))
        }
    }

    /// How many images have a signature, for `stats`.
    public func pdqCount() throws(BlobStoreError) -> Int {
        try read("count PDQ hashes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pdq") ?? 0 }
    }
}
