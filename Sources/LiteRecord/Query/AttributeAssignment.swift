import Foundation

/// One attribute and the value a set-based update gives it:
/// `.set(\.archived, to: true)`.
///
/// ```swift
/// let quiet = try Note.updateAll(matching: #Predicate { $0.stars < 2 },
///                                .set(\.archived, to: true), .set(\.stars, to: 0), in: context)
/// ```
///
/// The value is encoded when the assignment is made, as a save encodes the
/// attribute (`@Entity`'s `AttributeCoding` calls: the type's own stored
/// form, a `RawRepresentable`'s raw value, or JSON), so the assignment holds
/// no Swift value and is `Sendable`. A value a save would refuse (a NaN
/// `Double`), or a key path that is not a stored attribute, is reported when
/// the update runs.
public struct AttributeAssignment<Root: Entity>: Sendable {
    /// The attribute's index in `Root.attributes`, or why there is none.
    let target: Result<Int, LiteRecordError>
    /// The value's stored form, before text is made canonical; or the
    /// encoding error a save would throw.
    let value: Result<SQLValue, LiteRecordError>
    /// How to tell a row that already holds the value (``ChangeTest``).
    let test: ChangeTest

    /// Sets the attribute `keyPath` names to `value`.
    ///
    /// ```swift
    /// .set(\.title, to: "Untitled")
    /// .set(\.deadline, to: nil)          // an optional attribute
    /// ```
    public static func set<Value>(_ keyPath: KeyPath<Root, Value>, to value: Value) -> Self {
        switch Self.attribute(keyPath) {
        case .failure(let error):
            return Self(target: .failure(error), value: .success(.null), test: .always)
        case .success(let index):
            let attribute = Root.attributes[index]
            let encoded = Self.encoded(value, attribute)
            let test = (try? encoded.get()).map { ChangeTest.of(Value.self, stored: $0, attribute, tracked: Root.tracksChanges) }
            return Self(target: .success(index), value: encoded, test: test ?? .always)
        }
    }

    /// `value`'s stored form for `attribute`, or the error named as a save names it.
    private static func encoded(_ value: Any, _ attribute: AttributeDescription) -> Result<SQLValue, LiteRecordError> {
        do {
            return .success(try storedForm(value, attribute))
        } catch {
            return .failure(LiteRecordError(error.kind, "\(Root.entityName).\(attribute.name): \(error.message)"))
        }
    }

    /// The index of the stored attribute `keyPath` names.
    private static func attribute(_ keyPath: AnyKeyPath) -> Result<Int, LiteRecordError> {
        if let partial = keyPath as? PartialKeyPath<Root>, let index = Root.attributeIndex(for: partial),
            Root.attributes.indices.contains(index)
        {
            return .success(index)
        }
        if let partial = keyPath as? PartialKeyPath<Root>, let index = Root.relationshipIndex(for: partial),
            Root.relationships.indices.contains(index)
        {
            let name = Root.relationships[index].name
            return .failure(
                LiteRecordError(
                    .unknownAttribute,
                    "\\\(Root.self).\(name) is the relationship \(name) of \(Root.entityName), not an attribute: updateAll sets stored attributes only; change the relationship on the objects and save"
                ))
        }
        return .failure(
            LiteRecordError(
                .unknownAttribute,
                "\(spelled(keyPath)) is not a stored attribute of \(Root.entityName) (a @Transient or computed property, or a value inside an attribute): updateAll sets stored attributes only"
            ))
    }

    /// The key path as written (`\Note.scratch`) where the runtime can
    /// say; else (through a computed property) its root and value types.
    private static func spelled(_ keyPath: AnyKeyPath) -> String {
        let written = "\(keyPath)"
        guard written.contains("<computed") else { return written }
        return "a key path from \(Root.entityName) to \(type(of: keyPath).valueType)"
    }

    /// The stored form of `value` for `attribute`, found the way `@Entity`'s
    /// `AttributeCoding` overloads find it: the value's own
    /// ``AttributeValue/sqlValue()``, a `RawRepresentable`'s raw value's, or
    /// JSON text — whichever stores the attribute's declared type.
    ///
    /// - Throws: `.validationFailed` for a value that cannot be stored
    ///   exactly (NaN, -0.0, an unsigned integer above `Int64.max`), or that
    ///   is not stored as the attribute's type.
    static func storedForm(_ value: Any, _ attribute: AttributeDescription) throws(LiteRecordError) -> SQLValue {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .null }
            return try storedForm(wrapped, attribute)
        }
        do {
            if let direct = value as? any AttributeValue, type(of: direct).attributeType == attribute.type {
                return try direct.sqlValue()
            }
            if let raw = value as? any RawRepresentable, let rawValue = rawValue(of: raw) as? any AttributeValue,
                type(of: rawValue).attributeType == attribute.type
            {
                return try rawValue.sqlValue()
            }
            if attribute.type == .json, let encodable = value as? any Encodable {
                return try AttributeCoding.encodeJSON(encodable)
            }
        } catch {
            throw LiteRecordError.wrap(error, "encoding a \(type(of: value))")
        }
        throw LiteRecordError(
            .validationFailed,
            "a \(type(of: value)) is not stored as \(attribute.type), the attribute's type: check the entity's attributeIndex(for:)")
    }

    private static func rawValue<R: RawRepresentable>(of value: R) -> Any { value.rawValue }
}

/// How a set-based update tells a row that already holds the value it sets,
/// so that it leaves that row alone as a save leaves an unchanged object:
/// no write, no new version, not counted.
///
/// An `@Entity` object is changed when its setter's
/// `AttributeCoding.isChange` says so: text and floating-point numbers
/// byte for byte and bit for bit, other `Equatable` values by `==`, any
/// other value always. A hand-written entity that does not track its
/// changes is changed when the encoded value differs from the stored one as
/// ``SQLValue``s (text by `String`'s `==`).
enum ChangeTest: Sendable {
    /// Every row changes (a value that is not `Equatable`).
    case always
    /// `"column" IS NOT ?`, with a collation (`" COLLATE …"`, or empty for
    /// SQLite's own comparison of storage classes and bytes).
    case stored(collation: String)
    /// Swift's `==` on the values the stored forms read back as
    /// (``SwiftComparison/equalFunction``), for a type registered there.
    case swiftEqual(token: Int)

    static func of<Value>(_ type: Value.Type, stored: SQLValue, _ attribute: AttributeDescription, tracked: Bool) -> ChangeTest {
        guard tracked else {
            if case .text = stored { return .stored(collation: " COLLATE \(SQLFunctions.swiftCollation)") }
            return .stored(collation: "")
        }
        let wrapped = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
        if wrapped == String.self || wrapped == Double.self || wrapped == Float.self { return .stored(collation: "") }
        guard Value.self is any Equatable.Type else { return .always }
        if attribute.type == .decimal, wrapped == Decimal.self {
            return .stored(collation: " COLLATE \(SwiftComparison.decimalCollation)")
        }
        if attribute.type == .json {
            guard case .swiftValue(let registered)? = SwiftComparison.json(wrapped) else { return .always }
            return .swiftEqual(token: registered.token)
        }
        return .stored(collation: "")
    }

    /// The SQL that is true for a row whose `column` does not hold the value
    /// bound to its one `?`; `nil` for ``always``.
    func differs(_ column: String) -> String? {
        switch self {
        case .always: nil
        case .stored(let collation): "\(column) IS NOT ?\(collation)"
        case .swiftEqual(let token): "NOT \(SwiftComparison.equalFunction)(\(token), \(column), ?)"
        }
    }

    /// Whether a row that holds the value by this test holds its very bytes,
    /// so that writing the value again would change nothing.
    var isByteExact: Bool {
        if case .stored(let collation) = self { return collation.isEmpty }
        return false
    }
}
