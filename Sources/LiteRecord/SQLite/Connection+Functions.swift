internal import CSQLite
import Foundation

/// The arguments of one call of an application-defined SQL function, read
/// without copying them into an array first (functions run once per row).
struct FunctionArguments {
    fileprivate let count: Int32
    fileprivate let values: UnsafeMutablePointer<OpaquePointer?>?

    private func value(_ index: Int) -> OpaquePointer? {
        guard index >= 0, index < Int(count), let values else { return nil }
        return values[index]
    }

    func isNull(_ index: Int) -> Bool {
        guard let value = value(index) else { return true }
        return sqlite3_value_type(value) == SQLITE_NULL
    }

    /// The SQLite storage class of the argument (`SQLITE_INTEGER`, …).
    func isInteger(_ index: Int) -> Bool {
        guard let value = value(index) else { return false }
        return sqlite3_value_type(value) == SQLITE_INTEGER
    }

    func int64(_ index: Int) -> Int64 {
        value(index).map { sqlite3_value_int64($0) } ?? 0
    }

    func double(_ index: Int) -> Double {
        value(index).map { sqlite3_value_double($0) } ?? 0
    }

    /// Calls `body` with the argument's UTF-8 bytes (NUL bytes included),
    /// valid only during the call.
    func withUTF8<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let value = value(index), let bytes = sqlite3_value_text(value) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        // The pointer must be read before the byte count (SQLite's documented order).
        let length = Int(sqlite3_value_bytes(value))
        return try body(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    func string(_ index: Int) -> String {
        withUTF8(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// The argument as a ``SQLValue`` (copied), for functions that hand it to
    /// Swift code reading a stored form.
    func sqlValue(_ index: Int) -> SQLValue {
        guard let value = value(index) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(string(index))
        case SQLITE_BLOB:
            // The pointer must be read before the byte count.
            guard let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
        default: return .null
        }
    }
}

/// An error an application-defined function reports to SQLite; the statement
/// then fails with this message.
struct FunctionError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension Connection {
    /// Compares two UTF-8 strings: negative, zero or positive.
    typealias CollationFunction = @Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32
    /// The body of a scalar SQL function.
    typealias ScalarFunction = @Sendable (FunctionArguments) throws(FunctionError) -> SQLValue

    private final class CollationBox {
        let compare: CollationFunction
        init(_ compare: @escaping CollationFunction) { self.compare = compare }
    }

    private final class FunctionBox {
        let body: ScalarFunction
        init(_ body: @escaping ScalarFunction) { self.body = body }
    }

    /// Registers a collating sequence usable as `COLLATE name`
    /// (https://sqlite.org/c3ref/create_collation.html). SQLite owns the
    /// closure from then on and releases it when the connection closes.
    ///
    /// With `asciiFastPath`, two plain-ASCII strings are compared byte by byte
    /// in C and `compare` sees only the others: use it only where `compare`
    /// orders ASCII text by its bytes.
    func createCollation(_ name: String, asciiFastPath: Bool = false, _ compare: @escaping CollationFunction) throws {
        let db = try liveHandle()
        // unsafe(box-lives-while-registered): retained here, released by
        // SQLite through `release` when the collation goes (or below, when
        // it was never registered).
        let box = Unmanaged.passRetained(CollationBox(compare)).toOpaque()
        let callCompare: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
            context, leftCount, left, rightCount, right in
            guard let context else { return 0 }
            let box = Unmanaged<CollationBox>.fromOpaque(context).takeUnretainedValue()  // unsafe(box-lives-while-registered)
            return box.compare(
                UnsafeRawBufferPointer(start: left, count: Int(leftCount)),
                UnsafeRawBufferPointer(start: right, count: Int(rightCount)))
        }
        let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
            guard let context else { return }
            Unmanaged<CollationBox>.fromOpaque(context).release()  // unsafe(box-lives-while-registered)
        }
        let result =
            asciiFastPath
            ? literecord_create_ascii_first_collation(db, name, callCompare, release, box)
            : sqlite3_create_collation_v2(db, name, SQLITE_UTF8, box, callCompare, release)
        guard result == SQLITE_OK else {
            // Unlike create_function_v2, a failing create_collation_v2 does not
            // call the destructor: the box is ours to release.
            Unmanaged<CollationBox>.fromOpaque(box).release()  // unsafe(box-lives-while-registered)
            throw SQLiteError(resultCode: result, db: db, sql: nil)
        }
    }

    /// Registers a scalar SQL function taking `argumentCount` arguments
    /// (https://sqlite.org/c3ref/create_function.html). A thrown
    /// ``FunctionError`` makes the running statement fail with its message.
    ///
    /// A deterministic function called with constant arguments may be
    /// evaluated once, before the first row; pass `deterministic: false`
    /// for one that must run only where the statement reaches it.
    func createFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true, _ body: @escaping ScalarFunction
    ) throws {
        let db = try liveHandle()
        // unsafe(box-lives-while-registered): retained here, released by
        // SQLite through the destructor below when the function goes.
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_INNOCUOUS | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let result = sqlite3_create_function_v2(
            db, name, argumentCount, flags, box,
            { context, count, values in
                guard let context, let data = sqlite3_user_data(context) else { return }
                let box = Unmanaged<FunctionBox>.fromOpaque(data).takeUnretainedValue()  // unsafe(box-lives-while-registered)
                do throws(FunctionError) {
                    let value = try box.body(FunctionArguments(count: count, values: values))
                    Connection.setResult(value, in: context)
                } catch {
                    sqlite3_result_error(context, error.message, -1)
                }
            },
            nil, nil,
            { data in
                guard let data else { return }
                Unmanaged<FunctionBox>.fromOpaque(data).release()  // unsafe(box-lives-while-registered)
            })
        // A failing create_function_v2 has already called the destructor.
        guard result == SQLITE_OK else {
            throw SQLiteError(resultCode: result, db: db, sql: nil)
        }
    }

    private func liveHandle() throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is closed", sql: nil)
        }
        return handle
    }

    private static func setResult(_ value: SQLValue, in context: OpaquePointer) {
        switch value {
        case .null:
            sqlite3_result_null(context)
        case .integer(let value):
            sqlite3_result_int64(context, value)
        case .real(let value):
            sqlite3_result_double(context, value)
        case .text(let text):
            var text = text
            text.withUTF8 { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    sqlite3_result_text(context, "", 0, literecord_sqlite_transient())
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_result_text64(
                        context, $0, sqlite3_uint64(buffer.count), literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    sqlite3_result_zeroblob(context, 0)
                    return
                }
                sqlite3_result_blob64(context, base, sqlite3_uint64(buffer.count), literecord_sqlite_transient())
            }
        }
    }
}

extension Connection {
    /// Throws unless `sql` is exactly one statement. `sqlite3_prepare` compiles
    /// the first statement and silently ignores the rest, so SQL assembled
    /// from a caller's text is checked for a tail first.
    func requireSingleStatement(_ sql: String) throws {
        let db = try liveHandle()
        var statement: OpaquePointer?
        let tailIsEmpty = try sql.withCString { text -> Bool in
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v3(db, text, -1, 0, &statement, &tail)
            defer { sqlite3_finalize(statement) }
            guard result == SQLITE_OK else { throw SQLiteError(resultCode: result, db: db, sql: sql) }
            guard let tail else { return true }
            return String(cString: tail).allSatisfy { $0.isWhitespace || $0 == ";" }
        }
        guard tailIsEmpty else {
            throw SQLiteError(
                extendedCode: SQLITE_ERROR, message: "the SQL holds more than one statement; only a condition is allowed",
                sql: sql)
        }
    }
}
