public import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// let people = try Person.fetch(sql: "age > ?", arguments: [SQLValue.integer(30)])
/// ```
public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer: SQLite's INTEGER storage class.
    case integer(Int64)
    /// An 8-byte floating-point number: SQLite's REAL storage class.
    case real(Double)
    /// A string, stored as UTF-8: SQLite's TEXT storage class.
    case text(String)
    /// Bytes stored as they are: SQLite's BLOB storage class.
    case blob(Data)

    /// `true` for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short description that never prints the value itself, so that logs and
    /// error messages do not leak user data.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text(let text): "TEXT(\(text.utf8.count) bytes)"
        case .blob(let data): "BLOB(\(data.count) bytes)"
        }
    }

    /// A SQL literal for the value, used only where SQLite cannot take a bound
    /// parameter (a column `DEFAULT` in `ALTER TABLE … ADD COLUMN`).
    var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value):
            if value.isNaN { return "NULL" }
            if value == .infinity { return "9e999" }
            if value == -.infinity { return "-9e999" }
            return "\(value)"
        case .text(let text):
            // Text can hold NUL bytes, which a quoted literal cannot; a hex blob
            // cast to text keeps every byte.
            let hex = text.utf8.map { String(format: "%02X", $0) }.joined()
            return "CAST(X'\(hex)' AS TEXT)"
        case .blob(let data):
            let hex = data.map { String(format: "%02X", $0) }.joined()
            return "X'\(hex)'"
        }
    }
}
