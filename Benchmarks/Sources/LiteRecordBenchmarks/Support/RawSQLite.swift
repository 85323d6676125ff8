import BenchSQLite

/// A minimal, fast wrapper over the C API for the raw baseline, the shared
/// templates and the checksum verification: no caching layer, no value
/// enums — what a careful C programmer would write.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &db, flags, nil)
        guard result == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(db)
            throw SQLiteFailure(code: result, message: message)
        }
        // Waits out another connection's brief lock (the concurrent workload
        // opens five), as every other engine's connections do.
        sqlite3_busy_timeout(db, 5000)
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// The connection settings every engine uses.
    func applyBenchmarkPragmas() throws {
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        if result != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? ""
            sqlite3_free(message)
            throw SQLiteFailure(code: result, message: "\(text) — \(sql)")
        }
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

    func scalarInt(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
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

    @inline(__always) func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inline(__always) func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inline(__always) func bind(_ value: String?, at index: Int32) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), bench_sqlite_transient())
            }
        }
    }

    /// `true` on a row, `false` when done.
    @inline(__always) func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw db.failure(code)
        }
    }

    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    @inline(__always) func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inline(__always) func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    @inline(__always) func optionalString(_ column: Int32) -> String? {
        isNull(column) ? nil : string(column)
    }

    /// The column's bytes, valid until the next step: for hashing without
    /// building a `String`.
    @inline(__always) func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let text = sqlite3_column_text(handle, column)
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
