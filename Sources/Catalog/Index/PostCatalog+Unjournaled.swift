import Foundation
internal import GRDB
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// A read from nothing writes the catalog with no journal at all (SQLite's
    /// `journal_mode = OFF`, no syncs) when no other process has the file open: the
    /// log (WAL) wrote every page twice, once into the log and again when it was copied
    /// into the database, and read it back in between. At a million posts that was
    /// 3.1-3.3 s of a 28.5 s `reindex`, 1.8 CPU-seconds of them the kernel's.
    ///
    /// Nothing is lost that the manifests do not hold: a process or machine that stops
    /// while the file has no journal may leave it damaged, so a mark (``unjournaledMark``,
    /// in `pending`) is committed through the log first and removed only once the file
    /// is synced and back in WAL mode; a catalog that opens with the mark still there
    /// is removed and made anew (``openPool(_:)``), and the next refresh reads every
    /// manifest. Any other process with the catalog open (a `serve`) keeps a connection
    /// to it, and SQLite then refuses to leave WAL mode: the read goes through the log as
    /// before, without waiting. A process that opens the catalog meanwhile waits for the
    /// catalog's lock, which the read holds.
    ///
    /// Returns whether the file is now without a journal; the caller hands that to
    /// ``journalAgain(_:succeeded:)`` once the read ends, however it ends.
    func withoutJournal() throws(CatalogError) -> Bool {
        try write("mark a read without a journal") { db in
            try db.execute(sql: "INSERT OR IGNORE INTO pending(what) VALUES ('\(Self.unjournaledMark)')")
        }
        // This process's idle readers hold the file open too.
        pool.releaseMemory()
        let mode = try writeWithoutTransaction("leave WAL mode") { db -> String in
            // Another process's connection makes SQLite wait for it: asked once, not for a minute.
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { _ = try? db.execute(sql: "PRAGMA busy_timeout = \(Self.busySeconds * 1_000)") }
            let mode = (try? String.fetchOne(db, sql: "PRAGMA journal_mode = OFF")) ?? "wal"
            if mode == "off" { try db.execute(sql: "PRAGMA synchronous = OFF") }
            return mode
        }
        guard mode == "off" else {
            try write("unmark a read without a journal") { db in
                try db.execute(sql: "DELETE FROM pending WHERE what = '\(Self.unjournaledMark)'")
            }
            return false
        }
        return true
    }

    /// Ends what ``withoutJournal()`` began (when it returned true): the file synced,
    /// back in WAL mode, and only then, when the file is whole (`succeeded`), the mark
    /// removed. Otherwise it stays, and the file is made anew when the catalog next opens.
    func journalAgain(_ unjournaled: Bool, succeeded: Bool) throws(CatalogError) {
        guard unjournaled else { return }
        // Every page the read wrote reaches the disk before the mark can go.
        let fd = Glibc.open(path.path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
        try writeWithoutTransaction("go back to WAL mode") { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        guard succeeded else { return }
        try write("unmark a read without a journal") { db in
            try db.execute(sql: "DELETE FROM pending WHERE what = '\(Self.unjournaledMark)'")
        }
    }

    /// The `pending` row of a read writing without a journal (``withoutJournal()``).
    static let unjournaledMark = "unjournaled"
}
