import Foundation

/// Values whose stored form SQL cannot compare the way Swift does, compared
/// by Swift itself: a `URL` (stored as its text), any other `Codable` value
/// stored as JSON (a struct, a ``RecordID`` kept in an ordinary attribute),
/// and the properties of those and of `RawRepresentable`s
/// (`$0.size.width`, `$0.priority.rawValue`).
///
/// A translated predicate names the type (or the key path) by a number
/// registered here; the SQL functions installed on every connection read the
/// stored form back exactly as the entity reads it and run the very `==` or
/// key path `Predicate.evaluate` runs. Types and key paths come from an app's
/// predicates, a bounded set, so the registry stops growing once each query
/// has been made.
enum SwiftComparison {
    /// `literecord_swift_equal(type, a, b)`: 1 when Swift's `==` says the two
    /// stored forms are equal (or both are NULL), else 0.
    static let equalFunction = "literecord_swift_equal"
    /// `literecord_swift_in(type, value, list)`: whether the JSON array of
    /// stored forms (strings, or null for `nil`) contains the value, by `==`.
    static let containsFunction = "literecord_swift_in"
    /// `literecord_swift_read(path, value)`: the stored form of a key path's
    /// value, read from a stored value (NULL for NULL).
    static let readFunction = "literecord_swift_read"
    /// Orders `Decimal` text by `Decimal`'s own `<`.
    static let decimalCollation = "literecord_decimal"

    /// How one Swift type is stored, read back and compared.
    struct Operations {
        let typeName: String
        /// The stored form of a captured value, or `nil` when it has none that
        /// reads back as an equal value.
        let encode: (Any) -> SQLValue?
        /// Swift's `==` on two stored forms; `nil` when one does not read back.
        let equal: (SQLValue, SQLValue) -> Bool?
        /// A key path's value on the value a stored form reads back as; `nil`
        /// when it does not read back (or the key path is not the type's).
        let project: (SQLValue, AnyKeyPath) -> Any?
    }

    /// A key path applied to a value read back from its stored form.
    struct Reader {
        let description: String
        let read: (SQLValue) throws(FunctionError) -> SQLValue
    }

    // The closures are made once and never change; they capture only
    // metatypes, key paths and other immutable values, so any thread may call them.
    private enum Entry: @unchecked Sendable {
        case type(Operations)
        case reader(Reader)
    }

    // Only metatype identities, strings and key paths (immutable objects) go in.
    private struct Key: Hashable, @unchecked Sendable {
        let parts: [AnyHashable]
    }

    private static let registry = Locked<(tokens: [Key: Int], entries: [Entry])>(([:], []))

    private static func register(_ key: Key, _ make: () -> Entry) -> Int {
        registry.withLock { state in
            if let token = state.tokens[key] { return token }
            state.entries.append(make())
            state.tokens[key] = state.entries.count - 1
            return state.entries.count - 1
        }
    }

    private static func entry(_ token: Int64) -> Entry? {
        registry.withLock { state in
            state.entries.indices.contains(Int(token)) ? state.entries[Int(token)] : nil
        }
    }

    /// The operations of a ``ValueKind/swiftValue(_:)`` kind.
    static func operations(_ type: ValueKind.SwiftType) -> Operations? {
        if case .type(let operations)? = entry(Int64(type.token)) { return operations }
        return nil
    }

    // MARK: Kinds

    /// The kind of `URL`, stored as its absolute string.
    static var url: ValueKind {
        let token = register(Key(parts: ["url"])) {
            .type(
                Operations(
                    typeName: "URL",
                    encode: { value in
                        // Only a URL that reads back as itself (no base URL) has a
                        // stored form equal to it.
                        guard let url = value as? URL, let text = try? url.sqlValue(),
                            (try? URL(sqlValue: text)) == url
                        else { return nil }
                        return text
                    },
                    equal: { a, b in
                        guard let a = try? URL(sqlValue: a), let b = try? URL(sqlValue: b) else { return nil }
                        return a == b
                    },
                    project: { stored, keyPath in project(try? URL(sqlValue: stored), keyPath) }))
        }
        return .swiftValue(ValueKind.SwiftType(token: token, typeName: "URL"))
    }

    /// The kind of a `Codable & Equatable` type stored as JSON, or `nil` for
    /// another type.
    static func json(_ type: Any.Type) -> ValueKind? {
        guard let codable = type as? any (Codable & Equatable).Type else { return nil }
        return jsonKind(codable)
    }

    private static func jsonKind<T: Codable & Equatable>(_ type: T.Type) -> ValueKind {
        let token = register(Key(parts: ["json", ObjectIdentifier(T.self)])) {
            .type(
                Operations(
                    typeName: "\(T.self)",
                    encode: { value in
                        // The stored form of a captured value must read back as
                        // that value, or comparing forms would not be comparing values.
                        guard let value = value as? T, let text = try? AttributeCoding.encodeJSON(value),
                            decodeJSON(T.self, text) == value
                        else { return nil }
                        return text
                    },
                    equal: { a, b in
                        guard let a = decodeJSON(T.self, a), let b = decodeJSON(T.self, b) else { return nil }
                        return a == b
                    },
                    project: { stored, keyPath in project(decodeJSON(T.self, stored), keyPath) }))
        }
        return .swiftValue(ValueKind.SwiftType(token: token, typeName: "\(T.self)"))
    }

    /// Reads JSON text as the entity does (``Row/decode(_:at:)``).
    private static func decodeJSON<T: Decodable>(_ type: T.Type, _ stored: SQLValue) -> T? {
        let json: Data
        switch stored {
        case .text(let text): json = Data(text.utf8)
        case .blob(let data): json = data
        default: return nil
        }
        return try? JSONDecoder().decode(T.self, from: json)
    }

    // MARK: Key paths

    /// A reader applying `keyPath` to values of `rootType` stored as `root`
    /// describes, giving the stored form of a `result` kind; `nil` when the
    /// root's stored form cannot be read back in Swift.
    static func reader(
        _ keyPath: AnyKeyPath, rootType: Any.Type, root: ValueKind, result: ValueType
    ) -> Int? {
        let project: (SQLValue, AnyKeyPath) -> Any?
        switch root {
        case .swiftValue(let type):
            guard let operations = operations(type) else { return nil }
            project = operations.project
        case .rawRepresentable:
            guard let raw = rawProjection(rootType) else { return nil }
            project = raw
        default:
            return nil
        }
        let description = "\(keyPath)"
        return register(Key(parts: ["read", ObjectIdentifier(rootType), keyPath])) {
            .reader(
                Reader(description: description) { stored throws(FunctionError) in
                    guard let property = project(stored, keyPath) else {
                        throw FunctionError("a stored \(stored) does not read back as \(rootType)")
                    }
                    guard let encoded = result.kind.encode(property) else {
                        throw FunctionError("\(description) of a stored \(rootType) has no exact SQL value (NaN or out of range)")
                    }
                    return encoded
                })
        }
    }

    /// A key path applied, in the type's own generic context, to a value read
    /// back; `nil` when there is none or the key path is not the type's.
    private static func project<T>(_ value: T?, _ keyPath: AnyKeyPath) -> Any? {
        guard let value, let path = keyPath as? PartialKeyPath<T> else { return nil }
        return value[keyPath: path]
    }

    /// Reads a `RawRepresentable` stored as its raw value, as the entity does,
    /// and applies a key path to it.
    private static func rawProjection(_ type: Any.Type) -> ((SQLValue, AnyKeyPath) -> Any?)? {
        guard let raw = type as? any RawRepresentable.Type else { return nil }
        return typedRawProjection(raw)
    }

    private static func typedRawProjection<R: RawRepresentable>(_ type: R.Type) -> ((SQLValue, AnyKeyPath) -> Any?)? {
        guard let rawType = R.RawValue.self as? any AttributeValue.Type else { return nil }
        return { stored, keyPath in
            let raw = (try? rawType.init(sqlValue: stored)) as? R.RawValue
            return project(raw.flatMap { R(rawValue: $0) }, keyPath)
        }
    }

    // MARK: SQL functions

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The `Decimal` a stored text spells, read as ``Decimal/init(sqlValue:)`` reads it.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Decimal? {
        Decimal(string: UTF8Text.string(bytes), locale: posix)
    }

    static func install(on connection: Connection) throws {
        try connection.createFunction(equalFunction, argumentCount: 3) { arguments throws(FunctionError) in
            let operations = try typeOperations(arguments.int64(0))
            let (a, b) = (arguments.sqlValue(1), arguments.sqlValue(2))
            if a.isNull || b.isNull { return .integer(a.isNull && b.isNull ? 1 : 0) }
            guard let same = operations.equal(a, b) else {
                throw FunctionError("a stored value does not read back as \(operations.typeName)")
            }
            return .integer(same ? 1 : 0)
        }
        try connection.createFunction(containsFunction, argumentCount: 3) { arguments throws(FunctionError) in
            let operations = try typeOperations(arguments.int64(0))
            let value = arguments.sqlValue(1)
            guard let list = try? JSONDecoder().decode([String?].self, from: Data(arguments.string(2).utf8)) else {
                throw FunctionError("the list of \(operations.typeName) values is not a JSON array of strings")
            }
            for element in list {
                guard let element else {
                    if value.isNull { return .integer(1) }
                    continue
                }
                if value.isNull { continue }
                guard let same = operations.equal(value, .text(element)) else {
                    throw FunctionError("a stored value does not read back as \(operations.typeName)")
                }
                if same { return .integer(1) }
            }
            return .integer(0)
        }
        try connection.createFunction(readFunction, argumentCount: 2) { arguments throws(FunctionError) in
            guard case .reader(let reader)? = entry(arguments.int64(0)) else {
                throw FunctionError("unknown key path \(arguments.int64(0)) in a predicate")
            }
            let value = arguments.sqlValue(1)
            return value.isNull ? .null : try reader.read(value)
        }
        try connection.createCollation(decimalCollation) { left, right in
            if UTF8Text.equal(left, right) { return 0 }
            switch (decimal(left), decimal(right)) {
            case let (a?, b?): return a < b ? -1 : (a == b ? 0 : 1)
            // Text that is no Decimal (not written by LiteRecord) sorts after
            // every number, by its bytes: the order stays total.
            case (nil, nil): return left.lexicographicallyPrecedes(right) ? -1 : 1
            case (nil, _?): return 1
            case (_?, nil): return -1
            }
        }
    }

    private static func typeOperations(_ token: Int64) throws(FunctionError) -> Operations {
        guard case .type(let operations)? = entry(token) else {
            throw FunctionError("unknown value type \(token) in a predicate")
        }
        return operations
    }
}
