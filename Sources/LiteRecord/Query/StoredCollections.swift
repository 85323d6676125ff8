import Foundation

// Arrays and sets stored as JSON text: `tags.contains("x")`,
// `tags.contains { … }`, `tags.allSatisfy { … }`, `tags.count`,
// `tags.isEmpty`, through SQLite's built-in `json_each` and
// `json_array_length` (https://sqlite.org/json1.html#jeach).
//
// Elements are compared as the values the entity's JSONEncoder wrote, never
// as JSON text, so `"a"` never matches inside `"ab"` and `1` never inside `10`.

/// The collection types a `Codable` attribute stores as a JSON array.
protocol JSONCollection {
    static var elementType: Any.Type { get }
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: JSONCollection {
    static var elementType: Any.Type { Element.self }
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension Set: JSONCollection {
    static var elementType: Any.Type { Element.self }
    static var countKeyPath: AnyKeyPath { \Self.count }
    static var isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.elementTest(sequence, variable: variable.key, test: test, allSatisfy: false, expression: self)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.elementTest(sequence, variable: variable.key, test: test, allSatisfy: true, expression: self)
    }
}

extension PredicateTranslator {
    /// The kind of a stored or captured collection of `type` (its `Optional`
    /// already unwrapped), or the reason it cannot be queried.
    static func collectionKind(of type: Any.Type) -> Result<ValueKind, CollectionRefusal> {
        // Only arrays and sets conform: the common scalar types are answered
        // without the protocol cast's search of the conformance tables.
        if type == Int.self || type == String.self || type == Double.self || type == Bool.self || type == Int64.self
            || type == UUID.self || type == Date.self
        {
            return .failure(.notACollection)
        }
        guard let collection = type as? any JSONCollection.Type else { return .failure(.notACollection) }
        let element = ValueType(collection.elementType)
        guard !element.isOptional else {
            return .failure(.element("optional elements are stored as JSON null, which LiteRecord does not query"))
        }
        switch element.kind {
        case .bool, .integer, .double, .string, .uuid:
            break
        case .rawRepresentable(.bool, _), .rawRepresentable(.integer, _), .rawRepresentable(.double, _),
            .rawRepresentable(.string, _), .rawRepresentable(.uuid, _):
            guard encodesAsRawValue(collection.elementType) else {
                return .failure(
                    .element(
                        "LiteRecord cannot check that \(element.kind) is stored in JSON as its raw value (make it CaseIterable, and keep the default Codable conformance)"))
            }
        case .float:
            return .failure(.element("Float elements are written in JSON at single precision, which SQL reads as a different Double"))
        default:
            return .failure(.element("only String, integer, Double, Bool, UUID and RawRepresentable elements of those are queried"))
        }
        return .success(.jsonCollection(element: element.kind, typeName: "\(type)"))
    }

    enum CollectionRefusal: Error {
        case notACollection
        case element(String)
    }

    /// `collection.count` and `collection.isEmpty`, or `nil` for another key path.
    func collectionProperty(_ keyPath: AnyKeyPath, of base: SQLFragment, rootType: Any.Type, type: Any.Type) -> SQLFragment? {
        guard let collection = rootType as? any JSONCollection.Type else { return nil }
        let length: SQLFragment = .combine(["json_array_length(", .sql(base), ")"], kind: ValueType(type).kind, isOptional: false)
        if keyPath == collection.countKeyPath { return length }
        if keyPath == collection.isEmptyKeyPath { return .bool(["(", .sql(length), " = 0)"]) }
        return nil
    }

    /// `stored.contains(value)`: whether an element equals the value, compared
    /// the way `==` on the element type compares (Swift's String `==` for
    /// text, by value for numbers).
    func storedMembership(_ collection: SQLFragment, element elementKind: ValueKind, value: Any) throws(LiteRecordError) -> SQLFragment {
        let needle = try translate(value)
        let alias = nextEachAlias()
        let element = elementValue(of: collection, kind: elementKind, alias: alias)
        let found = each(
            collection, alias: alias, negated: false,
            where: .bool(["(", .sql(element), "\(elementKind.collation) = ", .sql(needle), ")"]))
        // Swift evaluates the value before looking at the elements, so a value
        // whose computation fails (checked arithmetic) must fail even for an
        // empty collection; `IS NULL` forces it (it is never NULL).
        guard needle.mayFail else { return found }
        return .bool(["(CASE WHEN ", .sql(needle), " IS NULL THEN 0 ELSE ", .sql(found), " END)"])
    }

    /// `contains { test }` and `allSatisfy { test }` over a stored collection.
    func elementTest(
        _ sequence: Any, variable: PredicateExpressions.VariableID, test: Any, allSatisfy: Bool, expression: Any
    ) throws(LiteRecordError) -> SQLFragment {
        let collection = try translate(sequence)
        if case .objects = collection.kind {
            return try relatedElementTest(
                collection, variable: variable, test: test, allSatisfy: allSatisfy, expression: expression)
        }
        guard case .jsonCollection(let elementKind, _) = collection.kind else {
            throw unsupported(
                expression,
                "closures are only translated over arrays and sets stored as JSON (\(collection.kind) is not one); compute the value outside the predicate and capture it")
        }
        let alias = nextEachAlias()
        let element = elementValue(of: collection, kind: elementKind, alias: alias)
        let condition = try with(variable, boundTo: element) { () throws(LiteRecordError) in
            try translate(test)
        }
        guard condition.kind == .bool, !condition.isOptional else {
            throw unsupported(expression, "the closure does not produce a Bool")
        }
        // json_each yields the elements in order and EXISTS stops at the first
        // row, so the test runs on the elements Swift's loop would reach.
        return each(
            collection, alias: alias, negated: allSatisfy,
            where: allSatisfy ? .bool(["(NOT ", .sql(condition), ")"]) : condition)
    }

    /// `EXISTS (SELECT 1 FROM json_each(collection) AS alias WHERE test)`, or
    /// `NOT EXISTS` when `negated`.
    private func each(_ collection: SQLFragment, alias: String, negated: Bool, where test: SQLFragment) -> SQLFragment {
        .bool([
            negated ? "(NOT EXISTS (SELECT 1 FROM json_each(" : "(EXISTS (SELECT 1 FROM json_each(", .sql(collection),
            ") AS \(alias) WHERE ", .sql(test), "))",
        ])
    }

    /// The SQL of the current element of `json_each(collection) AS alias`,
    /// exactly the value Swift decodes.
    private func elementValue(of collection: SQLFragment, kind: ValueKind, alias: String) -> SQLFragment {
        switch kind {
        case .string, .rawRepresentable(.string, _):
            // SQLite 3.40's JSON functions end a string at an escaped NUL
            // (`\u0000`), so `"a\u0000b"` would read as "a". Where the stored
            // text holds that escape, the element's JSON text is decoded by
            // Swift's JSONDecoder instead (the fast path is never wrong either
            // way: without the escape there is nothing to cut).
            return .combine(
                [
                    "(CASE WHEN instr(", .sql(collection), ", '\\u0000') THEN \(SQLFunctions.jsonString)(",
                    .sql(collection), " -> \(alias).fullkey) ELSE \(alias).value END)",
                ], kind: kind, isOptional: false)
        case .double, .rawRepresentable(.double, _):
            // JSON writes integral Doubles without a fraction ("1"), which SQLite
            // reads as INTEGER; arithmetic on it must still be Double arithmetic.
            return SQLFragment("CAST(\(alias).value AS REAL)", kind: kind)
        default:
            return SQLFragment("\(alias).value", kind: kind)
        }
    }

    /// Whether `type` (a `RawRepresentable`) is written by JSONEncoder as its
    /// raw value, as the synthesized `Codable` conformance does: checked on
    /// every case of a `CaseIterable` type, otherwise on the value made from
    /// the raw type's zero (`""`, `0`, `false`), if there is one.
    static func encodesAsRawValue(_ type: Any.Type) -> Bool {
        guard let raw = type as? any (RawRepresentable & Encodable).Type else { return false }
        return samplesEncodeAsRawValue(raw)
    }

    private static func samplesEncodeAsRawValue<R: RawRepresentable & Encodable>(_ type: R.Type) -> Bool {
        var samples: [R] = []
        if let enumerable = type as? any CaseIterable.Type {
            samples = allCases(of: enumerable).compactMap { $0 as? R }
        }
        if samples.isEmpty {
            let zeros: [Any] =
                ["", false, 0.0, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
                + ((R.RawValue.self as? any FixedWidthInteger.Type).map { [zero(of: $0)] } ?? [])
            samples = zeros.compactMap { ($0 as? R.RawValue).flatMap(R.init(rawValue:)) }
        }
        guard !samples.isEmpty else { return false }
        return samples.allSatisfy { sample in
            guard let raw = sample.rawValue as? any Encodable,
                let written = try? AttributeCoding.encodeJSON([sample]),
                let expected = try? encodeArray(raw)
            else { return false }
            return written == expected
        }
    }

    private static func allCases<C: CaseIterable>(of type: C.Type) -> [Any] {
        C.allCases.map { $0 as Any }
    }

    private static func zero<I: FixedWidthInteger>(of type: I.Type) -> Any {
        I.zero
    }

    private static func encodeArray<T: Encodable>(_ value: T) throws -> SQLValue {
        try AttributeCoding.encodeJSON([value])
    }
}
