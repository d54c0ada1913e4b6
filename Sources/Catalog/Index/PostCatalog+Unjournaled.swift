import Foundation
import BlobStore
internal import GRDB
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// A read from nothing writes the catalog with no journal at all (SQLite's
    /// `journal_mode = OFF`, no syncs) when its caller reads nothing from the catalog
    /// meanwhile (`alone`: `reindex`) and no other process has the file open: the log
    /// (WAL) wrote every page twice, once into the log and again when it was copied into
    /// the database, and read it back in between. At a million posts that was 3.1-3.3 s
    /// of a 28.5 s `reindex`, 1.8 CPU-seconds of them the kernel's. (A reader of the same
    /// process would wait on the writer's locks without the log: a `serve` refreshing
    /// its own catalog keeps it.)
    ///
    /// Nothing is lost that the manifests do not hold: a process or machine that stops
    /// while the file has no journal may leave it damaged anywhere, so a mark beside it
    /// (``unjournaledSuffix``, made and synced first) is removed only once the file is
    /// synced and back in WAL mode; a catalog that opens with the mark there is removed
    /// and made anew, and the next refresh reads every manifest. Any other process with
    /// the catalog open (a `serve`) keeps a connection to it, and SQLite then refuses to
    /// leave WAL mode: the read goes through the log as before, without waiting. A
    /// process that opens the catalog meanwhile waits for the catalog's lock, which the
    /// read holds.
    ///
    /// Returns whether the file is now without a journal; the caller ends that with
    /// ``journalAgain(keepingMark:)`` however the read ends.
    func withoutJournal() -> Bool {
        let mark = path.path + Self.unjournaledSuffix
        guard Self.makeDurably(mark) else { return false }
        // This process's idle readers hold the file open too.
        pool.releaseMemory()
        let mode = try? pool.writeWithoutTransaction { db -> String? in
            // Another process's connection makes SQLite refuse at once; no lock is waited for.
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { _ = try? db.execute(sql: "PRAGMA busy_timeout = \(Self.busySeconds * 1_000)") }
            let mode = try? String.fetchOne(db, sql: "PRAGMA journal_mode = OFF")
            // Without syncs too; left at NORMAL should this fail, which costs time only.
            if mode == "off" { _ = try? db.execute(sql: "PRAGMA synchronous = OFF") }
            return mode
        }
        guard mode == "off" else {
            unlink(mark)
            return false
        }
        return true
    }

    /// Ends what ``withoutJournal()`` began: the file synced and back in WAL mode, then
    /// (unless `keepingMark`) the mark removed. When any of it fails the mark stays (the
    /// file is made anew at the next open) and this catalog takes no more writes
    /// (``leftWithoutJournal``).
    func journalAgain(keepingMark: Bool) throws(CatalogError) {
        do {
            // Every page the read wrote reaches the disk before the mark can go.
            do {
                let fd = try FileSystem.openFile(path.path, flags: O_RDONLY, operation: "open the catalog")
                defer { close(fd) }
                try FileSystem.sync(fd, path: path.path)
            } catch {
                throw CatalogError.database(operation: "sync the catalog", message: error.description)
            }
            let mode = try pool.writeWithoutTransaction { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                return mode
            }
            guard mode == "wal" else {
                throw CatalogError.database(operation: "go back to WAL mode", message: "the journal mode stayed \(mode ?? "unknown")")
            }
        } catch {
            leftWithoutJournal.store(true, ordering: .relaxed)
            if let error = error as? CatalogError { throw error }
            throw .database(operation: "go back to WAL mode", message: String(describing: error))
        }
        if !keepingMark { unlink(path.path + Self.unjournaledSuffix) }
    }

    /// Throws once a read without a journal could not go back to WAL mode: the file
    /// may be damaged, and is made anew when the catalog next opens.
    func checkJournaled() throws(CatalogError) {
        guard leftWithoutJournal.load(ordering: .relaxed) else { return }
        throw .database(operation: "write", message: "a read without a journal could not end; the catalog is made anew when next opened")
    }

    /// Creates `path` and syncs it and its folder: it is there after a power cut.
    static func makeDurably(_ path: String) -> Bool {
        do {
            let fd = try FileSystem.openFile(path, flags: O_WRONLY | O_CREAT | O_TRUNC, operation: "create")
            defer { close(fd) }
            try FileSystem.sync(fd, path: path)
            try FileSystem.syncDirectory((path as NSString).deletingLastPathComponent)
            return true
        } catch {
            return false
        }
    }

    /// The mark of a read without a journal, beside the catalog (``withoutJournal()``).
    static let unjournaledSuffix = ".unjournaled"
}
