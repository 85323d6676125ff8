internal import CSQLite
import Foundation

/// A prepared statement. Created and cached by its ``Connection``, which
/// finalizes it; it must not outlive the connection.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: Connection

    init(handle: OpaquePointer, sql: String, connection: Connection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    func finalize() {
        sqlite3_finalize(handle)
    }

    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    // MARK: Binding (1-based, as SQLite counts parameters)

    /// Clears earlier bindings and results so a cached statement starts fresh.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Makes the statement ready to run again, keeping its bindings (each of
    /// which the caller is about to replace anyway).
    @inline(__always)
    func rewind() {
        sqlite3_reset(handle)
    }

    func bind(_ values: [SQLValue]) throws {
        guard values.count == parameterCount else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE,
                message: "statement takes \(parameterCount) arguments, \(values.count) given",
                sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: SQLValue, at index: Int32) throws {
        let result: Int32
        switch value {
        case .null:
            result = sqlite3_bind_null(handle, index)
        case .integer(let value):
            result = sqlite3_bind_int64(handle, index, value)
        case .real(let value):
            result = sqlite3_bind_double(handle, index, value)
        case .text(let text):
            result = bindText(text, at: index)
        case .blob(let data):
            result = data.withUnsafeBytes { buffer -> Int32 in
                // A NULL pointer would bind SQL NULL: empty data is a zero-length blob.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(buffer.count), literecord_sqlite_transient())
            }
        }
        guard result == SQLITE_OK else {
            throw SQLiteError(resultCode: result, db: connection.handle, sql: sql)
        }
    }

    func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buffer -> Int32 in
            // Binding with the explicit byte count keeps NUL bytes inside the text.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, literecord_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text64(
                    handle, index, $0, sqlite3_uint64(buffer.count), literecord_sqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
    }

    // MARK: Stepping

    /// Advances to the next row; `false` when done.
    @inline(__always)
    func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(resultCode: result, db: connection.handle, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    func run() throws {
        while try step() {}
    }

    // MARK: Columns (0-based)

    @inline(__always)
    func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @inline(__always)
    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    @inline(__always)
    func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    @inline(__always)
    func string(at column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Calls `body` with the column's UTF-8 bytes, without making a String.
    @inline(__always)
    func withText<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let bytes = sqlite3_column_text(handle, column) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let count = Int(sqlite3_column_bytes(handle, column))
        return body(UnsafeBufferPointer(start: bytes, count: count))
    }

    @inline(__always)
    func data(at column: Int32) -> Data {
        // The pointer must be read before the byte count (SQLite's documented order).
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Data(bytes: bytes, count: count)
    }

    /// The SQLite storage class of the column in the current row.
    func storageClass(at column: Int32) -> Int32 {
        sqlite3_column_type(handle, column)
    }

    func value(at column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(at: column))
        case SQLITE_FLOAT: .real(double(at: column))
        case SQLITE_BLOB: .blob(data(at: column))
        default: .text(string(at: column))
        }
    }

    func columnName(at column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }
}
