public import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// let people = try Person.fetch(sql: "age > ?", arguments: [SQLValue.integer(30)])
/// ```
public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
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
