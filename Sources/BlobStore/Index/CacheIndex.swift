public import Foundation
internal import GRDB
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The SQLite index beside a ``BlobStore``: which URL produced which blob,
/// which URLs failed and why, what each blob decodes to, and what was
/// derived from it.
///
/// The blobs are the truth and the index is a cache of facts about them, so
/// the database runs with `synchronous = NORMAL` in WAL mode: a power cut
/// can lose the last few commits (the next run re-learns them), never
/// corrupt the file.
///
/// Several processes may open the same index and write at once: writes wait
/// up to `busyTimeout` for each other instead of failing, and creation and
/// migration are serialised by an advisory lock file next to the database.
/// Every method blocks; call from a thread that may block.
public final class CacheIndex: Sendable {
    /// The database file.
    public let path: URL
    let pool: DatabasePool
    let databasePath: String

    /// Opens or creates the index at `path`, bringing its schema up to date.
    ///
    /// - Parameter busyTimeout: how long a write waits for another process's
    ///   write before failing with "database is locked".
    public init(path: URL, busyTimeout: TimeInterval = 10) throws(BlobStoreError) {
        let databasePath = path.standardizedFileURL.path
        self.path = URL(fileURLWithPath: databasePath, isDirectory: false)
        self.databasePath = databasePath
        try FileSystem.makeDirectoryTree(FileSystem.parentPath(of: databasePath))

        var configuration = Configuration()
        configuration.label = "TweetCache.index"
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Deleted rows' bytes zeroed where that costs no extra write; `forget`
            // turns it fully on (``CacheIndex/erase(hashes:urls:)``).
            try db.execute(sql: "PRAGMA secure_delete = FAST")
        }

        let lock = try Self.lockSetup(of: databasePath)
        defer { Self.unlock(lock) }
        do {
            let pool = try DatabasePool(path: databasePath, configuration: configuration)
            let migrator = Self.migrator
            if try pool.read(migrator.hasBeenSuperseded) {
                throw BlobStoreError.indexFromNewerVersion(path: databasePath)
            }
            try migrator.migrate(pool)
            self.pool = pool
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw .index(operation: "open", path: databasePath, message: String(describing: error))
        }
    }

    /// Opens the index at the store's conventional location.
    public convenience init(store: BlobStore, busyTimeout: TimeInterval = 10) throws(BlobStoreError) {
        try self.init(path: store.indexURL, busyTimeout: busyTimeout)
    }

    // MARK: - Helpers for the table extensions

    /// Runs `body` in one write transaction (IMMEDIATE, so two processes
    /// never interleave half-done batches), mapping SQLite errors to ours.
    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(BlobStoreError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw .index(operation: operation, path: databasePath, message: String(describing: error))
        }
    }

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(BlobStoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw .index(operation: operation, path: databasePath, message: String(describing: error))
        }
    }

    /// Takes an exclusive advisory lock on `<database>.lock`, so that two
    /// processes opening a fresh cache do not both try to create the tables.
    private static func lockSetup(of databasePath: String) throws(BlobStoreError) -> Int32 {
        try FileSystem.lockExclusively(databasePath + ".lock")
    }

    private static func unlock(_ fd: Int32) { FileSystem.unlock(fd) }
}

/// A row whose content cannot be turned back into a record (edited by
/// hand, or written by a buggy version).
struct InvalidIndexRow: Error, CustomStringConvertible {
    let description: String
}

extension Row {
    /// Decodes a hash column, refusing anything but canonical hex.
    func blobHash(_ column: String) throws -> BlobHash {
        let text = try decode(String.self, forColumn: column)
        guard let hash = BlobHash(hex: text) else {
            throw InvalidIndexRow(description: "column \(column) holds \(text.prefix(80).debugDescription), not a SHA-256")
        }
        return hash
    }

    /// Decodes a timestamp stored as seconds since 1970; a missing one reads
    /// as the epoch rather than failing, since it only orders evictions.
    func date(_ column: String) throws -> Date {
        let seconds = try decode(Double?.self, forColumn: column)
        return Date(timeIntervalSince1970: seconds ?? 0)
    }
}
