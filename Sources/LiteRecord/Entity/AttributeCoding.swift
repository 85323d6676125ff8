import Foundation

/// The encoders and type lookups that generated (and hand-written) entity code
/// calls. Each comes in the same overload families as ``Row``'s decoders:
/// built-in ``AttributeValue``s, `RawRepresentable`s stored as their raw
/// value, and any other `Codable` stored as JSON text.
///
/// ```swift
/// func encodeAttribute(at index: Int) throws -> SQLValue {
///     switch index {
///     case 0: try AttributeCoding.encode(name)
///     default: try AttributeCoding.encodeOptional(email)
///     }
/// }
/// ```
public enum AttributeCoding {
    // MARK: Types

    public static func type<T: AttributeValue>(of _: T.Type) -> AttributeType { T.attributeType }
    public static func type<T: RawRepresentable>(of _: T.Type) -> AttributeType where T.RawValue: AttributeValue {
        T.RawValue.attributeType
    }
    public static func type<T: Codable>(of _: T.Type) -> AttributeType { .json }
    public static func type<T: AttributeValue & Codable>(of _: T.Type) -> AttributeType { T.attributeType }
    public static func type<T: RawRepresentable & Codable>(of _: T.Type) -> AttributeType
    where T.RawValue: AttributeValue { T.RawValue.attributeType }

    /// A property whose type is an entity is not a column: without
    /// `@Relationship` the macro treats it as an attribute, and this overload
    /// turns the compiler's complaint into the fix.
    @available(*, unavailable, message: "a property whose type is an entity is a relationship: mark it '@Relationship'")
    public static func type<T: Entity>(of _: T.Type) -> AttributeType { .json }
    @available(*, unavailable, message: "a property whose type is a list of entities is a to-many relationship: mark it '@Relationship'")
    public static func type<T: Entity>(of _: [T].Type) -> AttributeType { .json }

    // MARK: Encoding

    @inlinable
    public static func encode<T: AttributeValue>(_ value: T) throws -> SQLValue { try value.sqlValue() }
    public static func encode<T: RawRepresentable>(_ value: T) throws -> SQLValue where T.RawValue: AttributeValue {
        try value.rawValue.sqlValue()
    }
    public static func encode<T: Codable>(_ value: T) throws -> SQLValue { try encodeJSON(value) }
    @inlinable
    public static func encode<T: AttributeValue & Codable>(_ value: T) throws -> SQLValue { try value.sqlValue() }
    public static func encode<T: RawRepresentable & Codable>(_ value: T) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.rawValue.sqlValue() }

    @inlinable
    public static func encodeOptional<T: AttributeValue>(_ value: T?) throws -> SQLValue {
        try value.map { try $0.sqlValue() } ?? .null
    }
    public static func encodeOptional<T: RawRepresentable>(_ value: T?) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.map { try $0.rawValue.sqlValue() } ?? .null }
    public static func encodeOptional<T: Codable>(_ value: T?) throws -> SQLValue {
        try value.map { try encodeJSON($0) } ?? .null
    }
    @inlinable
    public static func encodeOptional<T: AttributeValue & Codable>(_ value: T?) throws -> SQLValue {
        try value.map { try $0.sqlValue() } ?? .null
    }
    public static func encodeOptional<T: RawRepresentable & Codable>(_ value: T?) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.map { try $0.rawValue.sqlValue() } ?? .null }

    private static func encodeJSON<T: Encodable>(_ value: T) throws -> SQLValue {
        let encoder = JSONEncoder()
        // Sorted keys make equal values encode to equal text, so comparisons and
        // change detection on JSON columns are stable.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            throw LiteRecordError(.validationFailed, "a \(T.self) value cannot be encoded as JSON: \(error)")
        }
    }

    // MARK: Change detection

    /// Whether a setter's new value differs from the old one. Equatable values
    /// are compared; anything else always counts as changed.
    @inlinable
    public static func isChange<T: Equatable>(_ old: T, _ new: T) -> Bool { old != new }
    @inlinable
    public static func isChange<T>(_ old: T, _ new: T) -> Bool { true }
}
