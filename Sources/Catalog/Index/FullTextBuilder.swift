import Foundation
internal import GRDB
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    /// Writes the full-text index of a catalog filled from nothing on a thread and in
    /// a database file of its own, while the writer fills the catalog's tables: SQLite
    /// has one writer per file, and FTS5's tokenizing and merging was about a fifth of
    /// that writer's time, on a machine with a second core. At the end the index is
    /// merged into one segment there (while the catalog makes its other indexes) and its
    /// tables are copied into the catalog's empty `posts_fts` in one transaction
    /// (``PostCatalog/adoptFullText(from:unjournaled:)``: about a second at a million posts, rows
    /// in key order).
    ///
    /// The file is scratch: no journal, no syncs. A read cut short leaves `pending`'s
    /// `fts` row in the catalog, and the next refresh starts over (the posts are in,
    /// their words are not).
    final class FullTextBuilder: @unchecked Sendable {
        /// The scratch database.
        let path: String
        private let condition = NSCondition()
        // Guarded by `condition`.
        private var waiting: [FullTextChanges] = []
        private var closed = false
        private var cancelled = false
        private var running = true
        private var failure: (any Error)?

        /// Batches the writer may be ahead of the index: memory stays a few batches of
        /// posts' words however big the read.
        static let depth = 2
        /// Its page cache: FTS5 writes its segments once, in order, and merges them by
        /// reading them in order, so a small one does (a fetch's peak memory at a
        /// million posts is its catalog's read of the run).
        static let cacheKiB = 2_048

        /// Creates the scratch file (removing one a read cut short left) with the
        /// catalog's `posts_fts`, and starts the thread.
        init(path: String) throws(CatalogError) {
            self.path = path
            Self.remove(path)
            let queue: DatabaseQueue
            do {
                var configuration = Configuration()
                configuration.label = "TweetCache.catalog.fts"
                configuration.prepareDatabase { db in
                    try db.execute(sql: "PRAGMA journal_mode = OFF")
                    try db.execute(sql: "PRAGMA synchronous = OFF")
                    try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
                }
                queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.write { db in
                    try db.execute(sql: PostCatalog.fullTextTable)
                    try db.execute(sql: "INSERT INTO posts_fts(posts_fts, rank) VALUES ('automerge', \(PostCatalog.bulkAutomerge))")
                    try db.execute(sql: "INSERT INTO posts_fts(posts_fts, rank) VALUES ('hashsize', \(PostCatalog.bulkHashBytes))")
                }
            } catch {
                Self.remove(path)
                throw .database(operation: "make the full-text index's file", message: String(describing: error))
            }
            Thread.detachNewThread { [self] in
                do {
                    // One transaction for the whole read: the file is scratch (no
                    // journal), and a commit per batch flushed FTS5's pending words
                    // into a segment of their own each time, for the merges to redo.
                    try queue.writeWithoutTransaction { db in
                        try db.inTransaction {
                            let add = try BoundStatement(db, sql: "INSERT INTO posts_fts(rowid, text, name, handle, tags) VALUES (?, ?, ?, ?, ?)")
                            let remove = try BoundStatement(db, sql: "DELETE FROM posts_fts WHERE rowid = ?")
                            // Removals wait for the end, in rowid order: FTS5 writes its
                            // pending words out as a segment whenever a change goes to a
                            // rowid below the last one, and each post replaced by a newer
                            // copy did (7 s of the thread's 22 at a million posts).
                            var removals = Set<Int64>()
                            while let batch = take() {
                                try batch.bytes.withUnsafeBytes { base in
                                    for change in batch.changes {
                                        switch change {
                                        case let .add(rowid, columns):
                                            // A rowid SQLite gave again (the last post went): its
                                            // old words go first.
                                            if removals.remove(rowid) != nil { try remove.execute(.int(rowid)) }
                                            let (text, name, handle, tags) = FullTextChanges.ranges(columns, in: base)
                                            try add.execute(.int(rowid), .borrowed(text), .borrowed(name), .borrowed(handle), .borrowed(tags))
                                        case let .remove(rowid):
                                            removals.insert(rowid)
                                        }
                                    }
                                }
                            }
                            guard !isCancelled else { return .rollback }
                            for rowid in removals.sorted() { try remove.execute(.int(rowid)) }
                            return .commit
                        }
                        if !isCancelled {
                            // One segment: what queries read fastest.
                            try db.execute(sql: "INSERT INTO posts_fts(posts_fts) VALUES ('optimize')")
                        }
                    }
                    try queue.close()
                    end(nil)
                } catch {
                    try? queue.close()
                    end(error)
                }
            }
        }

        /// Hands a batch's changes to the thread, waiting while it is ``depth`` batches
        /// behind. Throws what stopped the thread.
        func send(_ changes: FullTextChanges) throws(CatalogError) {
            guard !changes.isEmpty else { return }
            condition.lock()
            defer { condition.unlock() }
            while waiting.count >= Self.depth && running { condition.wait() }
            if let failure = failure ?? (running ? nil : CancellationError()) {
                throw .database(operation: "write the full-text index", message: String(describing: failure))
            }
            waiting.append(changes)
            condition.broadcast()
        }

        /// No more changes: the thread merges the index once it has written them
        /// (while the caller does other work).
        func endInput() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }

        /// Waits for every change and the final merge; the file is then ready to copy.
        func finish() throws(CatalogError) {
            endInput()
            condition.lock()
            while running { condition.wait() }
            let failure = failure
            condition.unlock()
            if let failure {
                Self.remove(path)
                throw .database(operation: "write the full-text index", message: String(describing: failure))
            }
        }

        /// Stops the thread, waits for it and removes the file (the read failed).
        func cancel() {
            condition.lock()
            cancelled = true
            condition.broadcast()
            while running { condition.wait() }
            condition.unlock()
            Self.remove(path)
        }

        /// Removes the file; SQLite makes no companions with the journal off, but a
        /// build of another kind might have.
        static func remove(_ path: String) {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        }

        private var isCancelled: Bool {
            condition.lock()
            defer { condition.unlock() }
            return cancelled
        }

        private func take() -> FullTextChanges? {
            condition.lock()
            defer { condition.unlock() }
            while waiting.isEmpty && !closed && !cancelled { condition.wait() }
            guard !cancelled, !waiting.isEmpty else { return nil }
            condition.broadcast()
            return waiting.removeFirst()
        }

        private func end(_ error: (any Error)?) {
            condition.lock()
            defer { condition.unlock() }
            failure = error
            running = false
            condition.broadcast()
        }
    }

    /// Copies the full-text index a ``FullTextBuilder`` made into the catalog's
    /// `posts_fts`, which is empty (filled from nothing, nothing wrote to it), and
    /// marks the words as in, in one transaction. FTS5's tables are plain tables to
    /// SQLite; the copy goes through a connection of its own, so the pool's
    /// connections, which may hold the empty index's structure, see the change as
    /// another connection's commit and read the structure again.
    /// `unjournaled`: the catalog is being written without a journal (``withoutJournal()``),
    /// and so is the copy.
    func adoptFullText(from built: String, unjournaled: Bool) throws(CatalogError) {
        do {
            var configuration = Configuration()
            configuration.label = "TweetCache.catalog.adopt"
            configuration.busyMode = .timeout(TimeInterval(PostCatalog.busySeconds))
            configuration.prepareDatabase { db in
                if unjournaled {
                    // Not a rollback journal of its own: the read syncs the file once at its end.
                    try db.execute(sql: "PRAGMA journal_mode = OFF")
                    try db.execute(sql: "PRAGMA synchronous = OFF")
                    return
                }
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Copied in by the big read's passive checkpoint at its end.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            }
            let queue = try DatabaseQueue(path: path.path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS built", arguments: [built])
                defer { try? db.execute(sql: "DETACH DATABASE built") }
                try db.inTransaction {
                    let tables = ["posts_fts_data", "posts_fts_idx", "posts_fts_content"]
                    for table in tables {
                        try db.execute(sql: "DELETE FROM main.\(table)")
                        try db.execute(sql: "INSERT INTO main.\(table) SELECT * FROM built.\(table)")
                    }
                    try db.execute(sql: "INSERT OR REPLACE INTO main.posts_fts_config SELECT * FROM built.posts_fts_config")
                    // The builder's settings for a big read go back to FTS5's own in the
                    // same commit (a process ending between two commits left them for good).
                    try db.execute(sql: "INSERT INTO main.posts_fts(posts_fts, rank) VALUES ('automerge', \(PostCatalog.automerge))")
                    try db.execute(sql: "INSERT INTO main.posts_fts(posts_fts, rank) VALUES ('hashsize', \(PostCatalog.hashBytes))")
                    try db.execute(sql: "DELETE FROM pending WHERE what = 'fts'")
                    return .commit
                }
            }
            try queue.close()
        } catch {
            throw .database(operation: "copy the full-text index in", message: String(describing: error))
        }
        FullTextBuilder.remove(built)
    }
}
