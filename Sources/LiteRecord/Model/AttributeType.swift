/// How an attribute is stored: its Swift-side kind and the SQLite column type.
///
/// The name is part of the model's fingerprint; the migrator compares names to
/// decide what changed.
public struct AttributeType: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The canonical name, such as `"int64"` or `"string"`.
    public let name: String

    /// Creates the type with the canonical name `name`; the static members
    /// (``int64``, ``string``, …) are the types LiteRecord stores.
    public init(name: String) { self.name = name }

    public init(from decoder: any Decoder) throws {
        name = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    public var description: String { name }

    /// `Bool`, stored as INTEGER 0 or 1.
    public static let bool = AttributeType(name: "bool")
    /// `Int`, stored as INTEGER.
    public static let int = AttributeType(name: "int")
    /// `Int8`, stored as INTEGER.
    public static let int8 = AttributeType(name: "int8")
    /// `Int16`, stored as INTEGER.
    public static let int16 = AttributeType(name: "int16")
    /// `Int32`, stored as INTEGER.
    public static let int32 = AttributeType(name: "int32")
    /// `Int64`, stored as INTEGER.
    public static let int64 = AttributeType(name: "int64")
    /// `UInt`, stored as INTEGER.
    public static let uint = AttributeType(name: "uint")
    /// `UInt8`, stored as INTEGER.
    public static let uint8 = AttributeType(name: "uint8")
    /// `UInt16`, stored as INTEGER.
    public static let uint16 = AttributeType(name: "uint16")
    /// `UInt32`, stored as INTEGER.
    public static let uint32 = AttributeType(name: "uint32")
    /// `UInt64`, stored as INTEGER.
    public static let uint64 = AttributeType(name: "uint64")
    /// `Double`, stored as REAL.
    public static let double = AttributeType(name: "double")
    /// `Float`, stored as REAL.
    public static let float = AttributeType(name: "float")
    /// `String`, stored as TEXT.
    public static let string = AttributeType(name: "string")
    /// `Data`, stored as a BLOB.
    public static let data = AttributeType(name: "data")
    /// Seconds since 2001-01-01 00:00:00 UTC as REAL, like Core Data.
    public static let date = AttributeType(name: "date")
    /// The uppercase UUID string.
    public static let uuid = AttributeType(name: "uuid")
    /// The URL's absolute string.
    public static let url = AttributeType(name: "url")
    /// The decimal's exact text (`Decimal.description`).
    public static let decimal = AttributeType(name: "decimal")
    /// Any other `Codable` value, as JSON text.
    public static let json = AttributeType(name: "json")

    /// The SQLite column type used in `CREATE TABLE`.
    var columnType: String {
        switch self {
        case .double, .float, .date: "REAL"
        case .string, .uuid, .url, .decimal, .json: "TEXT"
        case .data: "BLOB"
        default: isInteger ? "INTEGER" : "TEXT"
        }
    }

    var isInteger: Bool {
        switch self {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64: true
        default: false
        }
    }

    /// Integer and floating-point types, between which a migration can convert with `CAST`.
    var isNumeric: Bool {
        isInteger || self == .double || self == .float
    }
}
