internal import GRDB

/// The older copies of posts a read from nothing replaced, whose tags and
/// references are removed at its end rather than one post at a time: each of those
/// removals reached a random place in each table's tree (a million posts replace
/// 47,000 older copies: 2.2 s when there were four such tables), where at the end, in
/// rowid order, they walk each tree once. The posts' own rows go at once (their key is the new copy's).
///
/// So that a rowid names one post for the whole read, the writer numbers the posts
/// itself (``next(_:)``) instead of letting SQLite give the last one's rowid again. A
/// read from nothing cut short starts over (its words are not in), so rows of posts
/// gone are never seen by a finished catalog's queries, and while the read runs they
/// join no post. Kept for one read, on the writer's thread: 8 bytes a replaced post,
/// as the words' thread keeps them for its own removals at the end.
final class ReplacedPosts {
    private var nextRowid: Int64?
    private(set) var rowids: [Int64] = []

    /// The rowid for the next post written.
    func next(_ db: Database) throws -> Int64 {
        let rowid = try nextRowid ?? (Int64.fetchOne(db, sql: "SELECT coalesce(max(rowid), 0) + 1 FROM posts") ?? 1)
        nextRowid = rowid + 1
        return rowid
    }

    /// Notes a post removed: its rows in the other tables go at ``removeRows(_:)``.
    func removed(_ rowid: Int64) {
        rowids.append(rowid)
    }

    /// Removes the rows of every post removed, each table in post order.
    func removeRows(_ db: Database) throws {
        rowids.sort()
        for table in PostCatalog.postRowTables {
            let delete = try BoundStatement(db, sql: "DELETE FROM \(table) WHERE post = ?")
            for rowid in rowids { try delete.execute(.int(rowid)) }
        }
        rowids = []
    }
}
