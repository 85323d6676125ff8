internal import CSQLite

/// A failed SQLite call: SQLite's primary and extended result codes, its
/// message, and the SQL that was running, if any.
///
/// Only the SQLite layer creates these; everything above it wraps them into a
/// ``LiteRecordError`` that says which operation failed.
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    var code: Int32 { extendedCode & 0xFF }
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    let extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    let message: String
    /// The statement that failed, without its bound values.
    let sql: String?

    init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the error state of `db` after a call returned `resultCode`.
    init(resultCode: Int32, db: OpaquePointer?, sql: String? = nil) {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? resultCode
        // sqlite3_extended_errcode may describe an older error when the failing
        // call does not set the connection's error state; trust the call's code
        // when the two disagree on the primary code.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let text =
            db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(resultCode))
        self.init(extendedCode: code, message: text, sql: sql)
    }

    var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    var isBusy: Bool { Self.isBusy(code) }
    /// Whether the primary result `code` (a ``LiteRecordError/resultCode``)
    /// says another connection held the lock.
    static func isBusy(_ code: Int32) -> Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    var isUnavailable: Bool { code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_FULL }

    var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }
}
