import Foundation

/// What a Swift value in a predicate is, as far as SQL is concerned: it decides
/// which operators have an exact SQL counterpart and how a captured value is
/// bound.
indirect enum ValueKind: Equatable, Sendable, CustomStringConvertible {
    case bool
    /// A fixed-width integer; the bounds are the Swift type's, so that checked
    /// arithmetic fails where Swift would trap.
    case integer(IntegerBounds)
    case double
    /// Stored as a `Double`, so comparisons are exact, but arithmetic in SQL
    /// would run at double precision where Swift rounds to `Float`.
    case float
    case string
    case date
    case uuid
    case data
    /// A `Decimal`, stored as its exact text: compared and ordered through
    /// the ``SwiftComparison/decimalCollation`` collation, which reads the text
    /// back and runs `Decimal`'s own `==` and `<`.
    case decimal
    /// A value SQL cannot compare but Swift can, once its stored form is read
    /// back (a `URL`, a `Codable` value stored as JSON, a ``RecordID`` kept in
    /// an ordinary attribute): compared by ``SwiftComparison``' functions, never
    /// ordered.
    case swiftValue(SwiftType)
    /// A `RawRepresentable` stored as its raw value: equal exactly when the raw
    /// values are. Its own `<` (if any) is not the raw value's, so it is not
    /// orderable in SQL.
    case rawRepresentable(ValueKind, typeName: String)
    /// An array or set stored as a JSON array whose elements are of the given
    /// kind. Only its elements (through `json_each`), its count and its
    /// emptiness are queried: the collection itself is never compared.
    case jsonCollection(element: ValueKind, typeName: String)
    /// An entity object reached through a relationship (or the predicate's own
    /// object), represented in SQL by its row id. Objects are equal when they
    /// are the same record (one context holds one object per record).
    case object(entityName: String)
    /// The objects of a to-many relationship, represented in SQL by the row id
    /// of the relationship's owner. Only `contains`, `allSatisfy`, `count` and
    /// `isEmpty` are translated.
    case objects(entityName: String)
    /// A ``RecordID``, represented in SQL by its row id; the entity name (when
    /// known) tells which table the row id belongs to.
    case recordID(entityName: String?)
    /// A type with no exact SQL meaning.
    case unsupported(typeName: String)

    /// A type registered with ``SwiftComparison``: its number there, and its name.
    struct SwiftType: Equatable, Sendable {
        let token: Int
        let typeName: String
    }

    struct IntegerBounds: Equatable, Sendable {
        let min: Int64
        let max: Int64
        let typeName: String
    }

    var description: String {
        switch self {
        case .bool: "Bool"
        case .integer(let bounds): bounds.typeName
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .date: "Date"
        case .uuid: "UUID"
        case .data: "Data"
        case .decimal: "Decimal"
        case .swiftValue(let type): type.typeName
        case .rawRepresentable(_, let name), .jsonCollection(_, let name), .unsupported(let name): name
        case .object(let name): name
        case .objects(let name): "[\(name)]"
        case .recordID: "RecordID"
        }
    }

    /// Whether values of this kind can be compared (`==`, `IN`) in SQL. A
    /// stored collection cannot: only what ``PredicateTranslator`` asks of its
    /// elements is translated.
    var isSupported: Bool {
        switch self {
        case .unsupported, .jsonCollection, .objects: false
        default: true
        }
    }

    /// Kinds whose SQL order (through ``SQLFunctions/stringLess`` for text) is
    /// Swift's `<`. Stored UUIDs are uppercase hex, whose byte order is the
    /// order of UUID's bytes, which is how `UUID` compares.
    var isOrderable: Bool {
        switch self {
        case .integer, .double, .float, .string, .date, .uuid, .decimal: true
        default: false
        }
    }

    /// ` COLLATE …` making SQL's `=`, `IN` and (but for text, see
    /// ``PredicateTranslator/compare(_:_:_:)``) `<` compare like Swift.
    var collation: String {
        switch self {
        // A String-backed RawRepresentable is equal when its raw values are,
        // and raw Strings are equal by canonical equivalence.
        case .string, .rawRepresentable(.string, _): " COLLATE \(SQLFunctions.swiftCollation)"
        case .decimal: " COLLATE \(SwiftComparison.decimalCollation)"
        default: ""
        }
    }

    /// ` COLLATE …` making `ORDER BY`, `MIN`, `MAX` and `GROUP BY` order and
    /// group like Swift.
    var orderCollation: String {
        switch self {
        case .string, .rawRepresentable(.string, _): " COLLATE \(SQLFunctions.swiftOrderCollation)"
        case .decimal: " COLLATE \(SwiftComparison.decimalCollation)"
        default: ""
        }
    }

    /// Whether values of this kind are compared by Swift (``SwiftComparison``).
    var isSwiftValue: Bool {
        if case .swiftValue = self { true } else { false }
    }

    /// How values of this kind are held in SQL, for messages.
    var storageDescription: String {
        switch self {
        case .recordID, .object: "a row id"
        case .objects: "their owner's row id"
        case .swiftValue: "stored text read back in Swift (JSON, or a URL's string)"
        case .jsonCollection: "a JSON array"
        case .rawRepresentable(let raw, _): "its raw value (\(raw))"
        default: "\(self)"
        }
    }

    /// The kind of values stored as an attribute of `storage` whose Swift type
    /// has the kind `self`: the one classifier of what a column holds. `nil`
    /// when the two disagree (a custom ``AttributeValue``, a hand-written
    /// description naming another type), and then nothing about the column
    /// can be translated exactly.
    ///
    /// - Parameter swiftType: the attribute's Swift type (not optional).
    func stored(as storage: AttributeType, swiftType: Any.Type) -> ValueKind? {
        let stored = if case .rawRepresentable(let raw, _) = self { raw } else { self }
        switch storage {
        case .json:
            // Any Codable value the encoder chose to store as JSON text (a
            // RecordID included, whose kind elsewhere is a row id).
            return SwiftComparison.json(swiftType)
        case .url: return if case .swiftValue = self, swiftType == URL.self { self } else { nil }
        case .decimal: return stored == .decimal ? self : nil
        case .bool: return stored == .bool ? self : nil
        case .double: return stored == .double ? self : nil
        case .float: return stored == .float ? self : nil
        case .string: return stored == .string ? self : nil
        case .data: return stored == .data ? self : nil
        case .date: return stored == .date ? self : nil
        case .uuid: return stored == .uuid ? self : nil
        default:
            guard storage.isInteger, case .integer = stored else { return nil }
            return self
        }
    }

    /// The kind of a value that is either of two kinds (the branches of
    /// `?:`, the two sides of `??` or `==`), or `nil` when they are stored
    /// differently and SQL cannot hold both as one. Row ids of two entities
    /// merge into a row id of no known entity, which nothing compares.
    func merged(with other: ValueKind) -> ValueKind? {
        if self == other { return self }
        if case .recordID = self, case .recordID = other { return .recordID(entityName: nil) }
        return nil
    }
}

/// A Swift type seen through ``ValueKind``: its kind, and whether it is an
/// `Optional` (whose `nil` is SQL `NULL`).
struct ValueType: Sendable {
    let kind: ValueKind
    let isOptional: Bool

    init(kind: ValueKind, isOptional: Bool) {
        self.kind = kind
        self.isOptional = isOptional
    }

    init(_ type: Any.Type) {
        // Telling a type's kind takes dynamic casts that fail (each a walk of
        // the conformance tables) and spells type names; a query translates
        // the same few types every time.
        self = Self.known.value(for: ObjectIdentifier(type)) { ValueType(uncached: type) }
    }

    /// The kinds of the types seen so far. Types are few (those of a model's
    /// attributes and of captured values), so the table stays small.
    private static let known = MemoTable<ObjectIdentifier, ValueType>()

    private init(uncached type: Any.Type) {
        // The common types first: none is an `Optional`, and the cast below
        // fails for them only after a search of the runtime's conformance
        // tables (the first time a process meets each type).
        if let common = Self.commonKind(of: type) {
            kind = common
            isOptional = false
        } else if let optional = type as? any OptionalValue.Type {
            let wrapped = ValueType(optional.wrappedType)
            // SQL has one NULL: `.some(nil)` and `nil` cannot be told apart.
            kind = wrapped.isOptional ? .unsupported(typeName: "\(type)") : wrapped.kind
            isOptional = true
        } else {
            kind = Self.kind(of: type)
            isOptional = false
        }
    }

    private static func kind(of type: Any.Type) -> ValueKind {
        if let common = commonKind(of: type) { return common }
        if let entity = type as? any Entity.Type { return .object(entityName: entity.entityName) }
        if let integer = type as? any FixedWidthInteger.Type { return .integer(bounds(of: integer)) }
        if let raw = type as? any RawRepresentable.Type {
            let rawKind = kind(of: rawValueType(of: raw))
            switch rawKind {
            case .bool, .integer, .double, .float, .string, .date, .uuid, .data, .decimal:
                return .rawRepresentable(rawKind, typeName: "\(type)")
            default:
                return .unsupported(typeName: "\(type)")
            }
        }
        // Another Codable value is stored as JSON (a collection's kind is
        // decided where one is met: see `collectionKind(of:)`).
        return SwiftComparison.json(type) ?? .unsupported(typeName: "\(type)")
    }

    /// The kind of one of the common types, told by comparing metadata
    /// (no conformance lookup); `nil` for any other type.
    private static func commonKind(of type: Any.Type) -> ValueKind? {
        if type == Bool.self { return .bool }
        if type == String.self { return .string }
        if type == Double.self { return .double }
        if type == Float.self { return .float }
        if type == Date.self { return .date }
        if type == UUID.self { return .uuid }
        if type == Data.self { return .data }
        if type == RecordID.self { return .recordID(entityName: nil) }
        if type == Decimal.self { return .decimal }
        if type == URL.self { return SwiftComparison.url }
        // The common integers before the protocol casts of `kind(of:)`, which search
        // the conformance tables the first time a process meets each type
        // (see `ValueKind.encodeCommon`); the kind is the one they give.
        if type == Int.self { return .integer(bounds(of: Int.self)) }
        if type == Int64.self { return .integer(bounds(of: Int64.self)) }
        return nil
    }

    private static func bounds<I: FixedWidthInteger>(of type: I.Type) -> ValueKind.IntegerBounds {
        ValueKind.IntegerBounds(min: Int64(clamping: I.min), max: Int64(clamping: I.max), typeName: "\(I.self)")
    }

    private static func rawValueType<R: RawRepresentable>(of type: R.Type) -> Any.Type {
        R.RawValue.self
    }
}

/// Lets the translator look inside `Optional` without knowing `Wrapped`.
protocol OptionalValue {
    static var wrappedType: Any.Type { get }
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    var wrappedValue: Any? {
        switch self {
        case .some(let value): value
        case .none: nil
        }
    }
}

extension ValueKind {
    /// The stored form of a captured value of this kind, exactly as the
    /// entity's encoder would store it.
    ///
    /// - Returns: `nil` when the value has no stored form (NaN, a raw value that
    ///   is not a stored type).
    ///
    /// `commonTypesFirst: false` skips the shortcut of ``encodeCommon(_:)``,
    /// for the test that compares the two.
    func encode(_ value: Any, commonTypesFirst: Bool = true) -> SQLValue? {
        if commonTypesFirst, isConvertedDirectly, let common = Self.encodeCommon(value) { return common }
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .null }
            return encode(wrapped, commonTypesFirst: commonTypesFirst)
        }
        switch self {
        case .rawRepresentable(let rawKind, _):
            guard let raw = value as? any RawRepresentable else { return nil }
            return rawKind.encode(Self.rawValue(of: raw))
        case .recordID:
            guard let id = value as? RecordID else { return nil }
            return .integer(id.rowID)
        case .object, .objects:
            // Objects are never captured (they are not Sendable); nothing to bind.
            return nil
        case .jsonCollection:
            // The text the entity's encoder would store for the same collection.
            guard let encodable = value as? any Encodable else { return nil }
            return try? AttributeCoding.encodeJSON(encodable)
        case .swiftValue(let type):
            return SwiftComparison.operations(type)?.encode(value)
        case .unsupported:
            return nil
        default:
            guard let convertible = value as? any SQLValueConvertible else { return nil }
            // NaN (which SQLite would turn into NULL) and out-of-range unsigned
            // values throw: there is nothing exact to bind. -0.0 binds as 0.0,
            // which SQL and Swift both call equal.
            return try? convertible.comparisonValue()
        }
    }

    /// Whether ``encode(_:)`` converts a value of this kind with its
    /// `SQLValueConvertible` conformance (the `default` case there).
    private var isConvertedDirectly: Bool {
        switch self {
        case .rawRepresentable, .recordID, .object, .objects, .jsonCollection, .swiftValue, .unsupported: false
        default: true
        }
    }

    /// What ``encode(_:)`` gives for a value of the most common captured
    /// types, by the same conversion (`comparisonValue()`), found by casts to
    /// those concrete types instead of to `OptionalValue` and
    /// `SQLValueConvertible`: a cast to a protocol searches the conformance
    /// tables the first time a process meets each type, a quarter of a
    /// million instructions a cast, which was most of what translating a
    /// process's first predicate cost. A cast to a concrete type also
    /// unwraps a non-nil optional, as the `OptionalValue` branch does. `nil`
    /// when the value is none of them (a nil optional among them); `.some(nil)`
    /// when the conversion refuses it (NaN).
    private static func encodeCommon(_ value: Any) -> SQLValue?? {
        switch value {
        case let value as Int: .some(try? value.comparisonValue())
        case let value as String: .some(try? value.comparisonValue())
        case let value as Double: .some(try? value.comparisonValue())
        case let value as Int64: .some(try? value.comparisonValue())
        case let value as Bool: .some(try? value.comparisonValue())
        case let value as UUID: .some(try? value.comparisonValue())
        case let value as Date: .some(try? value.comparisonValue())
        default: nil
        }
    }

    private static func rawValue<R: RawRepresentable>(of value: R) -> Any {
        value.rawValue
    }
}
