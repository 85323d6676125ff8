import SearchSQLite

/// The smallest wrapper over the C API the hand-written search needs: what a
/// careful C programmer would write.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

final class RawDatabase {
    let handle: OpaquePointer

    init(path: String, create: Bool = false) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw SQLiteFailure(code: result, message: "cannot open \(path)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw failure(result) }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result) }
        return RawStatement(handle: statement, db: self)
    }

    func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// The first column of the first row of `sql` as text.
    func scalarText(_ sql: String) throws -> String {
        let statement = try prepare(sql)
        guard try statement.step() else { return "" }
        return statement.text(0)
    }

    func scalarInt(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }
}

final class RawStatement {
    let handle: OpaquePointer
    unowned let db: RawDatabase

    init(handle: OpaquePointer, db: RawDatabase) {
        self.handle = handle
        self.db = db
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always) func reset() { sqlite3_reset(handle) }
    @inline(__always) func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    @inline(__always) func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }

    @inline(__always) func bind(_ value: String?, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), search_sqlite_transient())
            }
        }
    }

    /// Steps a statement that returns no row, then resets it.
    @inline(__always) func run() throws {
        _ = try step()
        reset()
    }

    @inline(__always) func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw db.failure(code)
        }
    }

    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
}

extension RawStatement {
    /// The text of `column` as a Swift string (what a C caller copying the
    /// row into its own struct pays).
    @inline(__always) func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
