import Foundation

/// What `@Entity` generates for a stored property whose spelling does not
/// say whether it is a column or a relationship: `Author?`, `[Book]`,
/// `Priority?`, `[Point]` — an optional or an array of a type that is not a
/// built-in attribute type. The macro cannot see conformances; the compiler
/// can, so the generated code calls these overloads and the compiler picks:
///
/// - `D?` and `[D]` where `D` is an ``Entity``: a to-one and a to-many
///   relationship. These overloads are preferred, so a type that is an entity
///   and also `Codable` (or an ``AttributeValue``, or `RawRepresentable`) is
///   a relationship: LiteRecord never stores an entity as a value.
/// - any other type: a column, stored as ``AttributeCoding`` stores it (a
///   built-in value, a `RawRepresentable`'s raw value, else JSON). These
///   overloads are `@_disfavoredOverload`. (The descriptions also require
///   `SendableMetatype`, as a default value's encoder runs anywhere.)
///
/// Every set has the same two sides, so all of a property's generated code
/// makes the same choice. Attribute and relationship indexes of such
/// properties follow those of the properties the spelling settles; the
/// macro writes them as sums of `attributeCount(_:)` and
/// `relationshipCount(_:)`, constants once optimized.
///
/// ```swift
/// // what `@Entity` writes for `var author: Author?`, the first such property
/// LiteRecord.EntityMember.relationship("author", Author?.self)   // in `relationships`
/// _author = try LiteRecord.EntityMember.decode(Author?.self, from: row, at: 2)   // in `init(row:)`
/// ```
///
/// Not meant to be called by hand: a hand-written entity knows which of its
/// properties are relationships.
public enum EntityMember {
    // MARK: The decision

    /// 1: a property of this type is a column.
    @_disfavoredOverload @inlinable
    public static func attributeCount<T>(_: T.Type) -> Int { 1 }
    /// 0: a property of this type is a to-one relationship.
    @inlinable
    public static func attributeCount<D: Entity>(_: D?.Type) -> Int { 0 }
    /// 0: a property of this type is a to-many relationship.
    @inlinable
    public static func attributeCount<D: Entity>(_: [D].Type) -> Int { 0 }

    /// 0: a property of this type is a column.
    @_disfavoredOverload @inlinable
    public static func relationshipCount<T>(_: T.Type) -> Int { 0 }
    /// 1: a property of this type is a to-one relationship.
    @inlinable
    public static func relationshipCount<D: Entity>(_: D?.Type) -> Int { 1 }
    /// 1: a property of this type is a to-many relationship.
    @inlinable
    public static func relationshipCount<D: Entity>(_: [D].Type) -> Int { 1 }

    // MARK: Descriptions

    /// What every `attribute` overload below returns. The overloads exist
    /// only so that the compiler picks the family's `AttributeCoding.type(of:)`
    /// and encoder for `encode`.
    static func column<V>(
        _ name: String, _ type: AttributeType, isOptional: Bool, _ defaultValue: (@Sendable () -> V)?,
        encode: @escaping @Sendable (V) throws -> SQLValue
    ) -> AttributeDescription? {
        guard let defaultValue else { return AttributeDescription(name, type: type, isOptional: isOptional) }
        return AttributeDescription(name, type: type, isOptional: isOptional, defaultValue: { try encode(defaultValue()) })
    }

    /// A column of a built-in type, optional.
    @_disfavoredOverload
    public static func attribute<V: AttributeValue & SendableMetatype>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? {
        column(name, AttributeCoding.type(of: V.self), isOptional: true, defaultValue) {
            try AttributeCoding.encodeOptional($0)
        }
    }
    /// A column of a `RawRepresentable` type, optional, stored as its raw value.
    @_disfavoredOverload
    public static func attribute<V: RawRepresentable & SendableMetatype>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? where V.RawValue: AttributeValue {
        column(name, AttributeCoding.type(of: V.self), isOptional: true, defaultValue) {
            try AttributeCoding.encodeOptional($0)
        }
    }
    /// A column of any other `Codable` type, optional, stored as JSON.
    @_disfavoredOverload
    public static func attribute<V: Codable & SendableMetatype>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? {
        column(name, AttributeCoding.type(of: V.self), isOptional: true, defaultValue) {
            try AttributeCoding.encodeOptional($0)
        }
    }
    /// A column of a built-in, `Codable` type, optional (not JSON).
    @_disfavoredOverload
    public static func attribute<V: AttributeValue & Codable & SendableMetatype>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? {
        column(name, AttributeCoding.type(of: V.self), isOptional: true, defaultValue) {
            try AttributeCoding.encodeOptional($0)
        }
    }
    /// A column of a `Codable` `RawRepresentable` type, optional, stored as
    /// its raw value (not JSON).
    @_disfavoredOverload
    public static func attribute<V: RawRepresentable & Codable & SendableMetatype>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? where V.RawValue: AttributeValue {
        column(name, AttributeCoding.type(of: V.self), isOptional: true, defaultValue) {
            try AttributeCoding.encodeOptional($0)
        }
    }
    /// A column holding a list (`[Point]`), stored as JSON.
    @_disfavoredOverload
    public static func attribute<V: Codable & SendableMetatype>(
        _ name: String, _: [V].Type, defaultValue: (@Sendable () -> [V])? = nil
    ) -> AttributeDescription? {
        guard let defaultValue else {
            return AttributeDescription(name, type: AttributeCoding.type(of: [V].self))
        }
        return AttributeDescription(
            name, type: AttributeCoding.type(of: [V].self),
            defaultValue: { try AttributeCoding.encode(defaultValue()) })
    }
    /// No column: a to-one relationship.
    public static func attribute<D: Entity>(
        _ name: String, _: D?.Type, defaultValue: (@Sendable () -> D?)? = nil
    ) -> AttributeDescription? { nil }
    /// No column: a to-many relationship.
    public static func attribute<D: Entity>(
        _ name: String, _: [D].Type, defaultValue: (@Sendable () -> [D])? = nil
    ) -> AttributeDescription? { nil }
    /// Neither a column nor a relationship: the compiler's error says what
    /// to do, instead of asking for `Entity`.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func attribute<V>(
        _ name: String, _: V?.Type, defaultValue: (@Sendable () -> V?)? = nil
    ) -> AttributeDescription? { nil }
    /// Neither a list column nor a to-many relationship: as above.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func attribute<V>(
        _ name: String, _: [V].Type, defaultValue: (@Sendable () -> [V])? = nil
    ) -> AttributeDescription? { nil }

    /// No relationship: a column.
    @_disfavoredOverload
    public static func relationship<T>(_ name: String, _: T.Type) -> RelationshipDescription? { nil }
    /// A to-one relationship to `D`, with the default options (an inverse
    /// inferred at setup, `.nullify`).
    public static func relationship<D: Entity>(_ name: String, _: D?.Type) -> RelationshipDescription? {
        RelationshipDescription(name, toOne: D.self)
    }
    /// A to-many relationship to `D`, with the default options.
    public static func relationship<D: Entity>(_ name: String, _: [D].Type) -> RelationshipDescription? {
        RelationshipDescription(name, toMany: D.self)
    }

    // MARK: Reading and writing columns

    /// An optional built-in value from `row`.
    ///
    /// - Throws: `.decodingFailed` when the stored value is not of the type.
    @_disfavoredOverload @inlinable
    public static func decode<V: AttributeValue>(_: V?.Type, from row: Row, at index: Int) throws -> V? {
        try row.decodeOptional(V.self, at: index)
    }
    /// An optional `RawRepresentable` from its raw value in `row`.
    ///
    /// - Throws: `.decodingFailed` when the stored value is no raw value of the type.
    @_disfavoredOverload
    public static func decode<V: RawRepresentable>(_: V?.Type, from row: Row, at index: Int) throws -> V?
    where V.RawValue: AttributeValue { try row.decodeOptional(V.self, at: index) }
    /// An optional `Codable` value from the JSON in `row`.
    ///
    /// - Throws: `.decodingFailed` when the JSON does not decode as the type.
    @_disfavoredOverload
    public static func decode<V: Codable>(_: V?.Type, from row: Row, at index: Int) throws -> V? {
        try row.decodeOptional(V.self, at: index)
    }
    /// An optional built-in, `Codable` value from `row` (not JSON).
    ///
    /// - Throws: `.decodingFailed` when the stored value is not of the type.
    @_disfavoredOverload @inlinable
    public static func decode<V: AttributeValue & Codable>(_: V?.Type, from row: Row, at index: Int) throws -> V? {
        try row.decodeOptional(V.self, at: index)
    }
    /// An optional `Codable` `RawRepresentable` from its raw value in `row`.
    ///
    /// - Throws: `.decodingFailed` when the stored value is no raw value of the type.
    @_disfavoredOverload
    public static func decode<V: RawRepresentable & Codable>(_: V?.Type, from row: Row, at index: Int) throws -> V?
    where V.RawValue: AttributeValue { try row.decodeOptional(V.self, at: index) }
    /// A list from the JSON in `row`.
    ///
    /// - Throws: `.decodingFailed` when the JSON does not decode as the type.
    @_disfavoredOverload
    public static func decode<V: Codable>(_: [V].Type, from row: Row, at index: Int) throws -> [V] {
        try row.decode([V].self, at: index)
    }
    /// A to-one relationship is not in the row: its storage starts without a
    /// pending value.
    @inlinable
    public static func decode<D: Entity>(_: D?.Type, from row: Row, at index: Int) throws -> D? { nil }
    /// A to-many relationship is not in the row: its storage starts without
    /// pending values.
    @inlinable
    public static func decode<D: Entity>(_: [D].Type, from row: Row, at index: Int) throws -> [D] { [] }
    /// Neither a column nor a relationship: as `attribute(_:_:defaultValue:)`.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func decode<V>(_: V?.Type, from row: Row, at index: Int) throws -> V? { nil }
    /// Neither a list column nor a to-many relationship: as above.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func decode<V>(_: [V].Type, from row: Row, at index: Int) throws -> [V] { [] }

    /// The SQLite value of an optional built-in value.
    ///
    /// - Throws: `.validationFailed` for a value SQLite cannot hold.
    @_disfavoredOverload @inlinable
    public static func encode<V: AttributeValue>(_ value: V?) throws -> SQLValue {
        try AttributeCoding.encodeOptional(value)
    }
    /// The SQLite value of an optional `RawRepresentable`: its raw value's.
    ///
    /// - Throws: what encoding the raw value throws.
    @_disfavoredOverload
    public static func encode<V: RawRepresentable>(_ value: V?) throws -> SQLValue where V.RawValue: AttributeValue {
        try AttributeCoding.encodeOptional(value)
    }
    /// An optional `Codable` value as JSON text.
    ///
    /// - Throws: `.validationFailed` when the value cannot be encoded as JSON.
    @_disfavoredOverload
    public static func encode<V: Codable>(_ value: V?) throws -> SQLValue { try AttributeCoding.encodeOptional(value) }
    /// The SQLite value of an optional built-in, `Codable` value (not JSON).
    ///
    /// - Throws: `.validationFailed` for a value SQLite cannot hold.
    @_disfavoredOverload @inlinable
    public static func encode<V: AttributeValue & Codable>(_ value: V?) throws -> SQLValue {
        try AttributeCoding.encodeOptional(value)
    }
    /// The SQLite value of an optional `Codable` `RawRepresentable`: its raw
    /// value's (not JSON).
    ///
    /// - Throws: what encoding the raw value throws.
    @_disfavoredOverload
    public static func encode<V: RawRepresentable & Codable>(_ value: V?) throws -> SQLValue
    where V.RawValue: AttributeValue { try AttributeCoding.encodeOptional(value) }
    /// A list as JSON text.
    ///
    /// - Throws: `.validationFailed` when the list cannot be encoded as JSON.
    @_disfavoredOverload
    public static func encode<V: Codable>(_ value: [V]) throws -> SQLValue { try AttributeCoding.encode(value) }
    /// A to-one relationship has no column: never called for one.
    @inlinable
    public static func encode<D: Entity>(_ value: D?) throws -> SQLValue { .null }
    /// A to-many relationship has no column: never called for one.
    @inlinable
    public static func encode<D: Entity>(_ value: [D]) throws -> SQLValue { .null }
    /// Neither a column nor a relationship: as `attribute(_:_:defaultValue:)`.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func encode<V>(_ value: V?) throws -> SQLValue { .null }
    /// Neither a list column nor a to-many relationship: as above.
    @available(
        *, unavailable,
        message:
            "LiteRecord cannot store a property of this type: make the type Codable, or RawRepresentable with a raw value LiteRecord stores (String, Int, Double, ...), or mark the property @Transient"
    )
    public static func encode<V>(_ value: [V]) throws -> SQLValue { .null }

    // MARK: Values an initializer assigned

    /// A column's storage holds its value: nothing is pending.
    @_disfavoredOverload @inlinable
    public static func takePending<T>(_ storage: inout T) -> T? { nil }
    /// The object an initializer assigned to a to-one relationship before the
    /// object was fully initialized, taken out of `storage`; `nil` when none.
    @inlinable
    public static func takePending<D: Entity>(_ storage: inout D?) -> D?? {
        guard let pending = storage else { return nil }
        storage = nil
        return .some(pending)
    }
    /// The objects an initializer assigned to a to-many relationship, taken
    /// out of `storage`; `nil` when none.
    @inlinable
    public static func takePending<D: Entity>(_ storage: inout [D]) -> [D]? {
        guard !storage.isEmpty else { return nil }
        let pending = storage
        storage = []
        return pending
    }
}

extension Entity {
    /// What the getter `@Entity` generates for a property routed through
    /// ``EntityMember`` reads when it is a column: `nil`, so the getter
    /// returns the stored value.
    ///
    /// ```swift
    /// get {
    ///     let value = relatedMember(LiteRecord.EntityMember.takePending(&_author), relationship: 0) ?? _author
    ///     observationAccess(\.author)
    ///     return value
    /// }
    /// ```
    @_disfavoredOverload @inlinable
    public func relatedMember<T>(_ pending: T?, relationship index: Int) -> T? { nil }

    /// The getter of a to-one relationship: ``relatedObject(at:as:)``, after
    /// applying the object an initializer assigned before the object was
    /// fully initialized (taken out of its storage by `EntityMember.takePending(_:)`).
    public func relatedMember<D: Entity>(_ pending: D??, relationship index: Int) -> D?? {
        settleMember(pending, relationship: index)
        return .some(relatedObject(at: index))
    }

    /// The getter of a to-many relationship: ``relatedObjects(at:as:)``,
    /// after applying the objects an initializer assigned.
    @inlinable
    public func relatedMember<D: Entity>(_ pending: [D]?, relationship index: Int) -> [D]? {
        if pending != nil { settleMember(pending, relationship: index) }
        return relatedObjects(at: index)
    }

    /// The setter of a property routed through ``EntityMember``, when it is a
    /// column: nothing here (the generated setter stores the value itself).
    ///
    /// ```swift
    /// set {
    ///     if LiteRecord.EntityMember.relationshipCount(Author?.self) == 1 {
    ///         _ = LiteRecord.EntityMember.takePending(&_author)
    ///         setRelatedMember(newValue, relationship: 0)
    ///         return
    ///     }
    ///     // the column's change tracking
    /// }
    /// ```
    @_disfavoredOverload @inlinable
    public func setRelatedMember<T>(_ newValue: T, relationship index: Int) {}

    /// The setter of a to-one relationship: ``setRelatedObject(_:at:)``.
    public func setRelatedMember<D: Entity>(_ newValue: D?, relationship index: Int) {
        setRelatedObject(newValue, at: index)
    }

    /// The setter of a to-many relationship: ``setRelatedObjects(_:at:)``.
    public func setRelatedMember<D: Entity>(_ newValue: [D], relationship index: Int) {
        setRelatedObjects(newValue, at: index)
    }

    /// What `settleRelationships()` does for a column routed through
    /// ``EntityMember``: nothing.
    ///
    /// ```swift
    /// func settleRelationships() {
    ///     settleMember(LiteRecord.EntityMember.takePending(&_author), relationship: 0)
    /// }
    /// ```
    @_disfavoredOverload @inlinable
    public func settleMember<T>(_ pending: T?, relationship index: Int) {}

    /// Points a to-one relationship at the object an initializer assigned
    /// before the object was fully initialized, if any.
    public func settleMember<D: Entity>(_ pending: D??, relationship index: Int) {
        if case .some(.some(let object)) = pending { setRelatedObject(object, at: index) }
    }

    /// Adds to a to-many relationship the objects an initializer assigned
    /// before the object was fully initialized, if any.
    public func settleMember<D: Entity>(_ pending: [D]?, relationship index: Int) {
        if let pending, !pending.isEmpty { setRelatedObjects(pending, at: index) }
    }
}
