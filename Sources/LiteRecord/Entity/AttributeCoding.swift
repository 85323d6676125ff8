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

    /// The stored type of a built-in attribute value: its own ``AttributeValue/attributeType``.
    public static func type<T: AttributeValue>(of _: T.Type) -> AttributeType { T.attributeType }
    /// The stored type of a `RawRepresentable`: the type of its raw value.
    public static func type<T: RawRepresentable>(of _: T.Type) -> AttributeType where T.RawValue: AttributeValue {
        T.RawValue.attributeType
    }
    /// The stored type of any other `Codable` value: ``AttributeType/json``.
    public static func type<T: Codable>(of _: T.Type) -> AttributeType { .json }
    /// The stored type of a built-in attribute value that is also `Codable`:
    /// its own ``AttributeValue/attributeType``, not JSON.
    public static func type<T: AttributeValue & Codable>(of _: T.Type) -> AttributeType { T.attributeType }
    /// The stored type of a `Codable` `RawRepresentable`: the type of its raw
    /// value, not JSON.
    public static func type<T: RawRepresentable & Codable>(of _: T.Type) -> AttributeType
    where T.RawValue: AttributeValue { T.RawValue.attributeType }

    /// A property whose type is an entity is not a column. `@Entity` makes
    /// `D?` and `[D]` relationships; it reaches this overload for a
    /// non-optional `D` or for `@Attribute` on a relationship, and the
    /// overload turns the compiler's complaint into the fix.
    @available(*, unavailable, message: "a property whose type is an entity is a to-one relationship, which must be optional: declare it 'Destination?' (and without '@Attribute')")
    public static func type<T: Entity>(of _: T.Type) -> AttributeType { .json }
    /// A list of entities is a to-many relationship, never a column: like
    /// the overload above, this one only turns the compiler's complaint into
    /// the fix.
    @available(*, unavailable, message: "a property whose type is a list of entities is a to-many relationship, not a column: declare it '[Destination]' without '@Attribute'")
    public static func type<T: Entity>(of _: [T].Type) -> AttributeType { .json }

    // MARK: Encoding

    /// The SQLite value of a built-in attribute value.
    ///
    /// - Throws: `.validationFailed` for a value SQLite cannot hold (NaN, an
    ///   unsigned integer above `Int64.max`).
    @inlinable
    public static func encode<T: AttributeValue>(_ value: T) throws -> SQLValue { try value.sqlValue() }
    /// The SQLite value of a `RawRepresentable`: its raw value's.
    ///
    /// - Throws: what encoding the raw value throws.
    public static func encode<T: RawRepresentable>(_ value: T) throws -> SQLValue where T.RawValue: AttributeValue {
        try value.rawValue.sqlValue()
    }
    /// Any other `Codable` value as JSON text, with sorted keys.
    ///
    /// - Throws: `.validationFailed` when the value cannot be encoded as JSON.
    public static func encode<T: Codable>(_ value: T) throws -> SQLValue { try encodeJSON(value) }
    /// The SQLite value of a built-in attribute value that is also `Codable`
    /// (not JSON).
    ///
    /// - Throws: `.validationFailed` for a value SQLite cannot hold.
    @inlinable
    public static func encode<T: AttributeValue & Codable>(_ value: T) throws -> SQLValue { try value.sqlValue() }
    /// The SQLite value of a `Codable` `RawRepresentable`: its raw value's,
    /// not JSON.
    ///
    /// - Throws: what encoding the raw value throws.
    public static func encode<T: RawRepresentable & Codable>(_ value: T) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.rawValue.sqlValue() }

    /// The optional form of `encode(_:)` for a built-in attribute value: `nil` is
    /// ``SQLValue/null``.
    ///
    /// - Throws: what `encode(_:)` throws for the wrapped value.
    @inlinable
    public static func encodeOptional<T: AttributeValue>(_ value: T?) throws -> SQLValue {
        try value.map { try $0.sqlValue() } ?? .null
    }
    /// The optional form of `encode(_:)` for a `RawRepresentable`: `nil` is
    /// ``SQLValue/null``.
    ///
    /// - Throws: what `encode(_:)` throws for the wrapped value.
    public static func encodeOptional<T: RawRepresentable>(_ value: T?) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.map { try $0.rawValue.sqlValue() } ?? .null }
    /// The optional form of `encode(_:)` for any other `Codable` value: `nil` is
    /// ``SQLValue/null``.
    ///
    /// - Throws: what `encode(_:)` throws for the wrapped value.
    public static func encodeOptional<T: Codable>(_ value: T?) throws -> SQLValue {
        try value.map { try encodeJSON($0) } ?? .null
    }
    /// The optional form of `encode(_:)` for a built-in, `Codable` attribute value: `nil` is
    /// ``SQLValue/null``.
    ///
    /// - Throws: what `encode(_:)` throws for the wrapped value.
    @inlinable
    public static func encodeOptional<T: AttributeValue & Codable>(_ value: T?) throws -> SQLValue {
        try value.map { try $0.sqlValue() } ?? .null
    }
    /// The optional form of `encode(_:)` for a `Codable` `RawRepresentable`: `nil` is
    /// ``SQLValue/null``.
    ///
    /// - Throws: what `encode(_:)` throws for the wrapped value.
    public static func encodeOptional<T: RawRepresentable & Codable>(_ value: T?) throws -> SQLValue
    where T.RawValue: AttributeValue { try value.map { try $0.rawValue.sqlValue() } ?? .null }

    /// The JSON text stored for a `Codable` attribute (also what predicates
    /// bind for a captured collection, and how they check that a
    /// `RawRepresentable` element is stored as its raw value).
    static func encodeJSON<T: Encodable>(_ value: T) throws -> SQLValue {
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

    // `==` calls -0.0 and +0.0 equal, and canonically equivalent strings ("é"
    // and "e\u{301}") too: a setter that trusted it would keep the old value
    // and drop the new one without a word. These compare what is stored: the
    // bits of a number, the bytes of a string.

    /// Whether a `Double` changed, bit for bit (`-0.0` differs from `0.0`).
    ///
    /// ```swift
    /// AttributeCoding.isChange(0.0, -0.0)   // true
    /// ```
    @inlinable
    public static func isChange(_ old: Double, _ new: Double) -> Bool { old.bitPattern != new.bitPattern }
    /// Whether a `Float` changed, bit for bit.
    @inlinable
    public static func isChange(_ old: Float, _ new: Float) -> Bool { old.bitPattern != new.bitPattern }
    /// Whether an optional `Double` changed, bit for bit.
    @inlinable
    public static func isChange(_ old: Double?, _ new: Double?) -> Bool { old?.bitPattern != new?.bitPattern }
    /// Whether an optional `Float` changed, bit for bit.
    @inlinable
    public static func isChange(_ old: Float?, _ new: Float?) -> Bool { old?.bitPattern != new?.bitPattern }
    /// Whether a `String` changed, byte for byte: canonically equivalent
    /// spellings are different values to the store.
    ///
    /// ```swift
    /// AttributeCoding.isChange("\u{E9}", "e\u{301}")   // true, though == says equal
    /// ```
    @inlinable
    public static func isChange(_ old: String, _ new: String) -> Bool {
        old != new || !old.utf8.elementsEqual(new.utf8)
    }
    /// Whether an optional `String` changed, byte for byte.
    @inlinable
    public static func isChange(_ old: String?, _ new: String?) -> Bool {
        switch (old, new) {
        case (nil, nil): false
        case (let old?, let new?): isChange(old, new)
        default: true
        }
    }
}
