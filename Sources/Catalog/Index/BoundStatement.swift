import Foundation
import BlobStore
internal import GRDB
internal import GRDBSQLite

/// A prepared statement of ingest's hot loop, bound and stepped through SQLite's own
/// calls: GRDB's `execute(arguments:)` boxes every argument into a `DatabaseValue`
/// array and checks it against the statement, which cost ingest more than SQLite's
/// own work for the same rows (a reindex of a million posts runs about ten statements
/// a post). Text is bound from the string's own UTF-8, copied once, by SQLite.
///
/// Use it inside one `write` of the ``PostCatalog``: it holds GRDB's cached statement,
/// which belongs to that connection.
struct BoundStatement {
    private let handle: OpaquePointer
    private let database: Database

    init(_ db: Database, sql: String) throws {
        database = db
        handle = try db.cachedStatement(sql: sql).sqliteStatement
    }

    /// Binds `values` to the parameters in order, runs the statement to its end and
    /// resets it.
    func execute(_ values: Value...) throws {
        try execute(values: values)
    }

    /// Binds `values` (every parameter, in order) and runs the statement to its end.
    func execute(values: [Value]) throws {
        try bindAll(values)
        // Nothing stays bound to memory a `.borrowed` value lent.
        defer { if values.contains(where: \.isBorrowed) { sqlite3_clear_bindings(handle) } }
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code) }
    }

    /// Rows a statement of ``insert(_:_:columns:_:values:)`` takes at most.
    static let rowsPerStatement = 64

    /// Runs `sql` (an `INSERT … VALUES ` without its rows) for `rows`,
    /// ``rowsPerStatement`` rows a statement and the rest one by one (two statements
    /// for GRDB to keep, not one per count): SQLite's work per statement (starting its
    /// program, stepping, resetting) was a good part of ingest's, which writes about
    /// five such rows a post. `values` appends a row's `columns` values.
    static func insert<Row>(_ db: Database, _ sql: String, columns: Int, _ rows: [Row],
                            values: (Row, inout [Value]) -> Void) throws {
        guard !rows.isEmpty else { return }
        let tuple = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        var buffer: [Value] = []
        buffer.reserveCapacity(rowsPerStatement * columns)
        var start = 0
        if rows.count >= rowsPerStatement {
            let many = try BoundStatement(db, sql: sql + Array(repeating: tuple, count: rowsPerStatement).joined(separator: ", "))
            while rows.count - start >= rowsPerStatement {
                buffer.removeAll(keepingCapacity: true)
                for row in rows[start..<start + rowsPerStatement] { values(row, &buffer) }
                try many.execute(values: buffer)
                start += rowsPerStatement
            }
        }
        guard start < rows.count else { return }
        let one = try BoundStatement(db, sql: sql + tuple)
        for row in rows[start...] {
            buffer.removeAll(keepingCapacity: true)
            values(row, &buffer)
            try one.execute(values: buffer)
        }
    }

    /// Binds `values`, steps once and hands the row (if any) to `row`, then resets.
    func first<T>(_ values: Value..., row: (Columns) -> T) throws -> T? {
        try bindAll(values)
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return row(Columns(handle: handle))
        case SQLITE_DONE: return nil
        default: throw error(code)
        }
    }

    /// The columns of the row a ``first(_:row:)`` stepped to.
    struct Columns {
        fileprivate let handle: OpaquePointer
        func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
    }

    /// One argument, unboxed.
    enum Value {
        case int(Int64)
        case double(Double)
        case text(String)
        case optionalText(String?)
        case hash(BlobHash)
        case bytes([UInt8])
        /// UTF-8 text bound where it lies, not copied: it must stay in place until the
        /// statement has run (``execute(values:)`` unbinds it before returning).
        case borrowed(UnsafeRawBufferPointer)
        case null

        var isBorrowed: Bool {
            if case .borrowed = self { return true }
            return false
        }
    }

    private func bindAll(_ values: [Value]) throws {
        // A parameter left out would keep what the last run bound.
        precondition(values.count == Int(sqlite3_bind_parameter_count(handle)), "every parameter is bound")
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case let .int(v): code = sqlite3_bind_int64(handle, index, v)
            case let .double(v): code = sqlite3_bind_double(handle, index, v)
            case let .text(v): code = bind(v, at: index)
            case let .optionalText(v): code = v.map { bind($0, at: index) } ?? sqlite3_bind_null(handle, index)
            case let .hash(v): code = bind(v.bytes, at: index)
            case let .bytes(v): code = bind(v, at: index)
            case let .borrowed(v):
                // A null pointer would bind NULL: an empty column is bound as the empty string.
                code = v.baseAddress.map {
                    sqlite3_bind_text(handle, index, $0.assumingMemoryBound(to: CChar.self), Int32(v.count), Self.static)
                } ?? sqlite3_bind_text(handle, index, "", 0, Self.transient)
            case .null: code = sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
    }

    private func bind(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            // A null pointer would bind NULL: the empty string is bound as one.
            guard let base = utf8.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, Self.transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Self.transient)
            }
        }
    }

    private func bind(_ bytes: [UInt8], at index: Int32) -> Int32 {
        bytes.withUnsafeBytes { raw in
            // Never empty here (hashes and signatures), but a null pointer would bind NULL.
            guard let base = raw.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob(handle, index, base, Int32(raw.count), Self.transient)
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_errmsg(database.sqliteConnection).map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sqlite3_sql(handle).map { String(cString: $0) })
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// SQLite's `SQLITE_STATIC`: it reads the bytes where they are, until they are unbound.
    private static let `static`: sqlite3_destructor_type? = nil
}
