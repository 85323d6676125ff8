internal import CSQLite
import Foundation

/// A prepared statement. Created and cached by its ``Connection``, which
/// finalizes it; it must not outlive the connection.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: Connection
    /// The connection's ``TraceArming``, compared before each step.
    let traceArming: TraceArming

    init(handle: OpaquePointer, sql: String, connection: Connection, traceArming: TraceArming) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        self.traceArming = traceArming
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

    /// Advances to the next row; `false` when done. Arms or disarms the
    /// connection's trace first when a listener came or went
    /// (``Connection/armTraceIfListened()``).
    @inline(__always)
    func step() throws -> Bool {
        if !traceArming.isCurrent { connection.armTraceIfListened() }
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

    /// The column reader of the current row.
    @inline(__always)
    var columns: ColumnReader { ColumnReader(handle: handle) }

    @inline(__always)
    func isNull(at column: Int32) -> Bool { columns.isNull(at: column) }

    @inline(__always)
    func int64(at column: Int32) -> Int64 { columns.int64(at: column) }

    @inline(__always)
    func double(at column: Int32) -> Double { columns.double(at: column) }

    @inline(__always)
    func string(at column: Int32) -> String { columns.string(at: column) }

    /// Calls `body` with the column's UTF-8 bytes, without making a String.
    @inline(__always)
    func withText<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        columns.withText(at: column, body)
    }

    @inline(__always)
    func data(at column: Int32) -> Data { columns.data(at: column) }

    /// The SQLite storage class of the column in the current row.
    func storageClass(at column: Int32) -> Int32 { columns.storageClass(at: column) }

    func value(at column: Int32) -> SQLValue { columns.value(at: column) }

    func columnName(at column: Int32) -> String { columns.columnName(at: column) }
}

/// Reads the columns of a statement's current row: the statement's handle
/// alone, so that a ``Row`` holding one reads columns with plain C calls and
/// no reference counting (a class reference, even `unowned(unsafe)`, is
/// retained around each use). Valid while the statement stays on the row.
struct ColumnReader {
    let handle: OpaquePointer

    /// The column as one value: a single call into SQLite, after which its
    /// type and contents cost none (see ``Cell``).
    @inline(__always)
    func cell(at column: Int32) -> Cell {
        Cell(value: sqlite3_column_value(handle, column))
    }

    @inline(__always)
    func isNull(at column: Int32) -> Bool { cell(at: column).type == SQLITE_NULL }

    @inline(__always)
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always)
    func string(at column: Int32) -> String { cell(at: column).string }

    /// Calls `body` with the column's UTF-8 bytes, without making a String.
    @inline(__always)
    func withText<R>(at column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        cell(at: column).withText(body)
    }

    @inline(__always)
    func data(at column: Int32) -> Data { cell(at: column).data }

    /// The SQLite storage class of the column in the current row.
    @inline(__always)
    func storageClass(at column: Int32) -> Int32 { cell(at: column).type }

    func value(at column: Int32) -> SQLValue { cell(at: column).sqlValue }

    func columnName(at column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }
}

/// One column of the current row as SQLite's `sqlite3_value`.
///
/// Each `sqlite3_column_*` call enters and leaves the connection (its mutex
/// and error bookkeeping); reading a column's type and then its contents that
/// way pays twice, three times for text (type, bytes, length). A cell pays
/// once, in `sqlite3_column_value`; the `sqlite3_value_*` reads after it are
/// plain accessors. SQLite documents the value as "unprotected", which makes
/// no difference for a connection opened without mutexes, as every
/// ``Connection`` is (`SQLITE_OPEN_NOMUTEX`). Valid until the statement
/// steps, resets or reads the column another way.
struct Cell {
    let value: OpaquePointer?

    @inline(__always)
    var type: Int32 {
        guard let value else { return SQLITE_NULL }
        return sqlite3_value_type(value)
    }

    // The storage class, for code outside SQLite/ (which does not import C).
    @inline(__always) var isNull: Bool { type == SQLITE_NULL }
    @inline(__always) var isInteger: Bool { type == SQLITE_INTEGER }
    @inline(__always) var isText: Bool { type == SQLITE_TEXT }
    /// An integer or a real.
    @inline(__always) var isNumber: Bool {
        let type = type
        return type == SQLITE_INTEGER || type == SQLITE_FLOAT
    }

    @inline(__always)
    var int64: Int64 { value.map { sqlite3_value_int64($0) } ?? 0 }

    @inline(__always)
    var double: Double { value.map { sqlite3_value_double($0) } ?? 0 }

    /// Calls `body` with the UTF-8 bytes of the value as text.
    @inline(__always)
    func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // The pointer must be read before the byte count (SQLite's documented order).
        guard let value, let bytes = sqlite3_value_text(value) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))))
    }

    @inline(__always)
    var string: String {
        withText { String(decoding: $0, as: UTF8.self) }
    }

    @inline(__always)
    var data: Data {
        guard let value, let bytes = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_value_bytes(value)))
    }

    var sqlValue: SQLValue {
        switch type {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64)
        case SQLITE_FLOAT: .real(double)
        case SQLITE_BLOB: .blob(data)
        default: .text(string)
        }
    }
}
