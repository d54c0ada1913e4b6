import CTweetCache
import GRDB
import GRDBSQLite
import Testing

/// The process-wide SQLite settings the shim makes before SQLite initializes.
@Suite struct SQLiteSettingsTests {
    /// Memory statistics are off (one mutex fewer on every allocation), so SQLite reports
    /// none however much a database takes.
    @Test func sqliteKeepsNoCountOfItsMemory() throws {
        #expect(tc_sqlite_counts_memory() == 0)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO t SELECT randomblob(1000) FROM n")
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 100)
        #expect(sqlite3_memory_used() == 0)
    }
}
