/// One coder per stored type, for the properties whose type `@Entity` cannot
/// tell from its spelling (an enum, a struct, `[String]`). The generated code
/// asks for the coder once, in a `static let`, and encodes and decodes through
/// it. The overloads are ``AttributeCoding``'s families; a type that fits none
/// of them fails in that one place, with what to do, instead of in every
/// generated call that touches the property ("no exact matches in call to
/// static method 'encode'", five to nine times).
///
/// ```swift
/// enum Mood: String { case calm, busy }
/// nonisolated static let _coder_mood: some AttributeCoding.AttributeCoder<Mood> = AttributeCoding.coder(for: Mood.self)
/// // _coder_mood.encode(.calm) == .text("calm")
/// ```
extension AttributeCoding {
    /// How one stored type is encoded and decoded: what `coder(for:)`
    /// returns. Generated code declares its coder as `some AttributeCoder<T>`,
    /// so that the compiler knows the property's declaration without first
    /// choosing the overload (which, under `-default-isolation MainActor`,
    /// would ask for the conformances of the type being declared: a cycle).
    public protocol AttributeCoder<Value>: Sendable {
        /// The property's type, without its optional.
        associatedtype Value
        /// The column's type.
        var attributeType: AttributeType { get }
        /// The SQLite value of `value`.
        ///
        /// - Throws: `.validationFailed` for a value the store cannot hold.
        func encode(_ value: Value) throws -> SQLValue
        /// The SQLite value of `value`, ``SQLValue/null`` for `nil`.
        ///
        /// - Throws: `.validationFailed` for a value the store cannot hold.
        func encodeOptional(_ value: Value?) throws -> SQLValue
        /// The value in column `index` of `row`.
        ///
        /// - Throws: `.decodingFailed` for `NULL` or a stored value that is not a `Value`.
        func decode(from row: Row, at index: Int) throws -> Value
        /// The value in column `index` of `row`, `nil` for `NULL`.
        ///
        /// - Throws: `.decodingFailed` for a stored value that is not a `Value`.
        func decodeOptional(from row: Row, at index: Int) throws -> Value?
    }

    /// The coder of a built-in attribute value: the value itself.
    @inlinable
    public static func coder<T: AttributeValue>(for _: T.Type) -> ValueCoder<T> { ValueCoder() }
    /// The coder of a `RawRepresentable`: its raw value.
    @inlinable
    public static func coder<T: RawRepresentable>(for _: T.Type) -> RawValueCoder<T> where T.RawValue: AttributeValue {
        RawValueCoder()
    }
    /// The coder of any other `Codable` value: JSON text.
    @inlinable
    public static func coder<T: Codable>(for _: T.Type) -> JSONCoder<T> { JSONCoder() }
    /// The coder of a built-in attribute value that is also `Codable`: the
    /// value itself, not JSON.
    @inlinable
    public static func coder<T: AttributeValue & Codable>(for _: T.Type) -> ValueCoder<T> { ValueCoder() }
    /// The coder of a `Codable` `RawRepresentable`: its raw value, not JSON.
    @inlinable
    public static func coder<T: RawRepresentable & Codable>(for _: T.Type) -> RawValueCoder<T>
    where T.RawValue: AttributeValue { RawValueCoder() }

    /// A type that fits no family above: the compiler's one error says what to do.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func coder<T>(for _: T.Type) -> UnstorableType<T> { UnstorableType() }
    /// An entity is never a column: as `type(of:)` says.
    @available(*, unavailable, message: "a property whose type is an entity is a to-one relationship, which must be optional: declare it 'Destination?' (and without '@Attribute')")
    public static func coder<T: Entity>(for _: T.Type) -> UnstorableType<T> { UnstorableType() }
    /// A list of entities is never a column: as `type(of:)` says.
    @available(*, unavailable, message: "a property whose type is a list of entities is a to-many relationship, not a column: declare it '[Destination]' without '@Attribute'")
    public static func coder<T: Entity>(for _: [T].Type) -> UnstorableType<[T]> { UnstorableType() }

    /// Stores a built-in ``AttributeValue`` as itself (`coder(for:)`).
    public struct ValueCoder<Value: AttributeValue>: AttributeCoder {
        @inlinable init() {}

        /// The column's type: the value's own ``AttributeValue/attributeType``.
        @inlinable public var attributeType: AttributeType { Value.attributeType }
        /// The SQLite value.
        ///
        /// - Throws: `.validationFailed` for a value SQLite cannot hold.
        @inlinable public func encode(_ value: Value) throws -> SQLValue { try value.sqlValue() }
        /// The SQLite value, ``SQLValue/null`` for `nil`.
        ///
        /// - Throws: `.validationFailed` for a value SQLite cannot hold.
        @inlinable public func encodeOptional(_ value: Value?) throws -> SQLValue {
            try value.map { try $0.sqlValue() } ?? .null
        }
        /// The value in column `index` of `row`.
        ///
        /// - Throws: `.decodingFailed` for `NULL` or a value that does not fit.
        @inlinable public func decode(from row: Row, at index: Int) throws -> Value { try row.decode(Value.self, at: index) }
        /// The value in column `index` of `row`, `nil` for `NULL`.
        ///
        /// - Throws: `.decodingFailed` for a value that does not fit.
        @inlinable public func decodeOptional(from row: Row, at index: Int) throws -> Value? {
            try row.decodeOptional(Value.self, at: index)
        }
    }

    /// Stores a `RawRepresentable` as its raw value (`coder(for:)`).
    public struct RawValueCoder<Value: RawRepresentable>: AttributeCoder where Value.RawValue: AttributeValue {
        @inlinable init() {}

        /// The column's type: the raw value's ``AttributeValue/attributeType``.
        @inlinable public var attributeType: AttributeType { Value.RawValue.attributeType }
        /// The SQLite value of the raw value.
        ///
        /// - Throws: what encoding the raw value throws.
        @inlinable public func encode(_ value: Value) throws -> SQLValue { try AttributeCoding.encode(value) }
        /// The SQLite value of the raw value, ``SQLValue/null`` for `nil`.
        ///
        /// - Throws: what encoding the raw value throws.
        @inlinable public func encodeOptional(_ value: Value?) throws -> SQLValue {
            try AttributeCoding.encodeOptional(value)
        }
        /// The value whose raw value is in column `index` of `row`.
        ///
        /// - Throws: `.decodingFailed` for `NULL` or a raw value that matches no case.
        @inlinable public func decode(from row: Row, at index: Int) throws -> Value { try row.decode(Value.self, at: index) }
        /// The value whose raw value is in column `index` of `row`, `nil` for `NULL`.
        ///
        /// - Throws: `.decodingFailed` for a raw value that matches no case.
        @inlinable public func decodeOptional(from row: Row, at index: Int) throws -> Value? {
            try row.decodeOptional(Value.self, at: index)
        }
    }

    /// Stores any other `Codable` value as JSON text (`coder(for:)`).
    public struct JSONCoder<Value: Codable>: AttributeCoder {
        @inlinable init() {}

        /// The column's type: ``AttributeType/json``.
        @inlinable public var attributeType: AttributeType { .json }
        /// The JSON text, with sorted keys.
        ///
        /// - Throws: `.validationFailed` when the value cannot be encoded as JSON.
        @inlinable public func encode(_ value: Value) throws -> SQLValue { try AttributeCoding.encode(value) }
        /// The JSON text, ``SQLValue/null`` for `nil`.
        ///
        /// - Throws: `.validationFailed` when the value cannot be encoded as JSON.
        @inlinable public func encodeOptional(_ value: Value?) throws -> SQLValue {
            try AttributeCoding.encodeOptional(value)
        }
        /// The value whose JSON is in column `index` of `row`.
        ///
        /// - Throws: `.decodingFailed` for `NULL` or JSON that is not a valid `Value`.
        @inlinable public func decode(from row: Row, at index: Int) throws -> Value { try row.decode(Value.self, at: index) }
        /// The value whose JSON is in column `index` of `row`, `nil` for `NULL`.
        ///
        /// - Throws: `.decodingFailed` for JSON that is not a valid `Value`.
        @inlinable public func decodeOptional(from row: Row, at index: Int) throws -> Value? {
            try row.decodeOptional(Value.self, at: index)
        }
    }

    /// The coder of a type LiteRecord cannot store. Only the unavailable
    /// `coder(for:)` overloads make one, so no program that compiles holds
    /// one; its members exist so that the generated code around that one
    /// error compiles and adds no errors of its own. Were one reached, it
    /// throws rather than trap.
    public struct UnstorableType<Value>: AttributeCoder {
        init() {}

        private var refusal: LiteRecordError {
            LiteRecordError(
                .invalidModel,
                "LiteRecord cannot store a value of type \(Value.self): make the type Codable, or RawRepresentable with a raw value LiteRecord stores, or mark the property @Transient"
            )
        }

        /// A placeholder: no column is ever made for this type.
        public var attributeType: AttributeType { .data }
        /// Refuses the value.
        ///
        /// - Throws: ``LiteRecordError`` of kind `.invalidModel`, always.
        public func encode(_ value: Value) throws -> SQLValue { throw refusal }
        /// Refuses the value.
        ///
        /// - Throws: ``LiteRecordError`` of kind `.invalidModel`, always.
        public func encodeOptional(_ value: Value?) throws -> SQLValue { throw refusal }
        /// Refuses to read a value.
        ///
        /// - Throws: ``LiteRecordError`` of kind `.invalidModel`, always.
        public func decode(from row: Row, at index: Int) throws -> Value { throw refusal }
        /// Refuses to read a value.
        ///
        /// - Throws: ``LiteRecordError`` of kind `.invalidModel`, always.
        public func decodeOptional(from row: Row, at index: Int) throws -> Value? { throw refusal }
    }
}
