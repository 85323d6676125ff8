import Foundation

// Membership in captured sequences and ranges, and the String searches.

extension PredicateExpressions.SequenceContains: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        if let captured = (sequence as? any ConstantExpression)?.constantValue,
            let elements = Self.elements(of: captured)
        {
            return try translator.membership(element, in: elements, type: RHS.Output.self, expression: self)
        }
        let collection = try translator.translate(sequence)
        if case .objects = collection.kind {
            return try translator.relatedMembership(collection, value: element)
        }
        guard case .jsonCollection(let elementKind, _) = collection.kind else {
            throw translator.unsupported(
                self, "only captured sequences and arrays or sets stored as JSON are searched in SQL (not \(collection.kind))")
        }
        return try translator.storedMembership(collection, element: elementKind, value: element)
    }

    private static func elements(of value: Any) -> [Any]? {
        guard let sequence = value as? any Sequence else { return nil }
        return array(sequence)
    }

    private static func array<S: Sequence>(_ sequence: S) -> [Any] {
        sequence.map { $0 as Any }
    }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let value = try translator.translate(element)
        guard value.kind.isOrderable else {
            throw translator.unsupported(self, "\(value.kind) values are not ordered the same way in SQL")
        }
        let bounds = try translator.rangeBounds(range, type: Element.Output.self, expression: self)
        // `lower <= x && x <= upper` (or `x < upper`), as the range types test it.
        var tests: [SQLFragment] = []
        if let lower = bounds.lower { tests.append(translator.compare(value, .greaterThanOrEqual, lower)) }
        if let upper = bounds.upper {
            tests.append(translator.compare(value, bounds.includesUpper ? .lessThanOrEqual : .lessThan, upper))
        }
        let test: SQLFragment =
            switch tests.count {
            case 0: SQLFragment("1", kind: .bool, mayFail: value.mayFail)
            case 1: tests[0]
            default: .bool(["(", .sql(tests[0]), " AND ", .sql(tests[1]), ")"])
            }
        guard let built = range as? any RangeBuilder, let lower = bounds.lower, let upper = bounds.upper else {
            return test
        }
        return try translator.checkedRange(test, lower: lower, upper: upper, built: built, expression: self)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.stringFunction(SQLFunctions.startsWith, base, prefix, expression: self)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.stringFunction(SQLFunctions.contains, base, other, expression: self)
    }
}

#if canImport(Darwin)
// These expressions exist only in Apple's Foundation (swift-foundation has not
// ported them); their SQL functions call the same String methods.

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.stringFunction(SQLFunctions.localizedStandardContains, root, other, expression: self)
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.stringFunction(
            SQLFunctions.caseInsensitiveCompare, root, other, resultType: ComparisonResult.self, expression: self)
    }
}

extension PredicateExpressions.StringLocalizedCompare: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.stringFunction(
            SQLFunctions.localizedCompare, root, other, resultType: ComparisonResult.self, expression: self)
    }
}
#endif

extension PredicateTranslator {
    /// `captured.contains(value)` as `value IN (…)`, with Swift's `==` for text.
    func membership(_ element: Any, in elements: [Any], type: Any.Type, expression: Any) throws(LiteRecordError) -> SQLFragment {
        let value = try translate(element)
        let valueType = ValueType(type)
        if case .swiftValue(let swiftType) = value.kind {
            // Elements are encoded as the value is stored (a RecordID kept in an
            // attribute is JSON text), and compared by Swift's `==`.
            return try swiftMembership(value, in: elements, type: swiftType, expression: expression)
        }
        guard valueType.kind.isSupported else {
            throw unsupported(expression, "\(valueType.kind) values cannot be compared in SQL")
        }
        if case .recordID(nil) = value.kind {
            throw unsupported(
                expression, "the record id searched for may belong to any of several entities, so its row id alone cannot be looked up")
        }
        var arguments: [SQLValue] = []
        var containsNil = false
        for element in elements {
            // A RecordID of another entity never equals this one's.
            if case .recordID(let name?) = value.kind, let id = element as? RecordID, id.entityName != name { continue }
            guard let encoded = valueType.kind.encode(element) else {
                throw unsupported(expression, "a captured \(valueType.kind) element cannot be stored exactly (NaN or out of range)")
            }
            if encoded.isNull { containsNil = true } else { arguments.append(encoded) }
        }
        let isNull: SQLFragment = .bool(["(", .sql(value), " IS NULL)"])
        guard let last = arguments.last else {
            if containsNil { return isNull }
            // Swift computes the value before it finds the list empty, so a
            // computation that fails must fail here too: `IS NULL` forces it.
            return value.mayFail ? .bool(["(CASE WHEN ", .sql(isNull), " THEN 0 ELSE 0 END)"]) : SQLFragment("0", kind: .bool)
        }
        // Lists are padded to a power of two by repeating an element, so that a
        // handful of statement texts serve every list length (prepared statements
        // are cached by text).
        var size = 1
        while size < arguments.count { size *= 2 }
        // Past a few thousand, padding could cross SQLite's limit of 32,766
        // bound values while the list itself fits.
        if size > 4_096 { size = arguments.count }
        arguments += Array(repeating: last, count: size - arguments.count)
        let list = SQLFragment(
            "(" + Array(repeating: "?", count: size).joined(separator: ", ") + ")", arguments, kind: valueType.kind)
        let test: SQLFragment = .bool(["(", .sql(value), "\(valueType.kind.collation) IN ", .sql(list), ")"])
        if containsNil { return .bool(["(", .sql(isNull), " OR ", .sql(test), ")"]) }
        // NULL IN (…) is NULL; Swift's contains(nil) is false.
        return value.isOptional ? .bool(["COALESCE(", .sql(test), ", 0)"]) : test
    }

    /// `captured.contains(value)` for a value SQL cannot compare itself: the
    /// stored forms of the elements go in as one JSON array, and a function
    /// runs Swift's `==` on each.
    private func swiftMembership(
        _ value: SQLFragment, in elements: [Any], type: ValueKind.SwiftType, expression: Any
    ) throws(LiteRecordError) -> SQLFragment {
        let kind = ValueKind.swiftValue(type)
        var list: [String?] = []
        for element in elements {
            switch kind.encode(element) {
            case .null?: list.append(nil)
            case .text(let text)?: list.append(text)
            default:
                throw unsupported(expression, "a captured \(type.typeName) element has no stored form that reads back as itself")
            }
        }
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        } catch {
            throw unsupported(expression, "the captured \(type.typeName) elements cannot be listed as JSON: \(error)")
        }
        return .bool([
            "\(SwiftComparison.containsFunction)(\(type.token), ", .sql(value), ", ",
            .sql(SQLFragment("?", [.text(json)], kind: .string)), ")",
        ])
    }

    struct RangeBounds {
        var lower: SQLFragment?
        var upper: SQLFragment?
        var includesUpper: Bool
    }

    /// The bounds of a range built in the predicate (`a...b`, `a..<b`) or
    /// captured (any standard range type).
    func rangeBounds(_ range: Any, type: Any.Type, expression: Any) throws(LiteRecordError) -> RangeBounds {
        if let built = range as? any RangeBuilder {
            return RangeBounds(
                lower: try translate(built.lowerExpression), upper: try translate(built.upperExpression),
                includesUpper: built.includesUpper)
        }
        guard let captured = (range as? any ConstantExpression)?.constantValue,
            let bounds = captured as? any CapturedRange
        else {
            throw unsupported(expression, "only ranges written in the predicate or captured standard ranges are translated")
        }
        let lower = try bounds.capturedLower.map { value throws(LiteRecordError) in
            try constant(value, type: type, expression: expression)
        }
        let upper = try bounds.capturedUpper.map { value throws(LiteRecordError) in
            try constant(value, type: type, expression: expression)
        }
        return RangeBounds(lower: lower, upper: upper, includesUpper: bounds.capturedIncludesUpper)
    }

    /// `test` guarded as Swift builds `lower...upper` or `lower..<upper`: the
    /// range traps when `lower > upper`, so the fetch fails on every row
    /// where it would. Bounds both captured are compared here, once.
    func checkedRange(
        _ test: SQLFragment, lower: SQLFragment, upper: SQLFragment, built: any RangeBuilder, expression: Any
    ) throws(LiteRecordError) -> SQLFragment {
        let message = "Range requires lowerBound <= upperBound (Swift would trap)"
        if let low = (built.lowerExpression as? any ConstantExpression)?.constantValue,
            let high = (built.upperExpression as? any ConstantExpression)?.constantValue,
            let ordered = Self.isOrdered(low, high)
        {
            guard ordered else { throw LiteRecordError(.unsupportedPredicate, "\(expression): \(message)") }
            return test
        }
        let valid = compare(lower, .lessThanOrEqual, upper)
        return .bool([
            "(CASE WHEN ", .sql(valid), " THEN ", .sql(test), " ELSE \(SQLFunctions.fail)('\(message)') END)",
        ]).failing()
    }

    /// Whether `low <= high` for two captured values of one `Comparable`
    /// type; `nil` when they are not.
    private static func isOrdered(_ low: Any, _ high: Any) -> Bool? {
        guard let low = low as? any Comparable else { return nil }
        return lessOrEqual(low, high)
    }

    private static func lessOrEqual<T: Comparable>(_ low: T, _ high: Any) -> Bool? {
        guard let high = high as? T else { return nil }
        return low <= high
    }

    /// A String test or comparison computed by a SQL function that calls the
    /// same Swift code `Predicate.evaluate` runs.
    func stringFunction(
        _ function: String, _ lhs: Any, _ rhs: Any, resultType: Any.Type = Bool.self, expression: Any
    ) throws(LiteRecordError) -> SQLFragment {
        let left = try translate(lhs)
        let right = try translate(rhs)
        guard left.kind == .string, right.kind == .string else {
            throw unsupported(expression, "only String values are searched in SQL; other sequences are stored as JSON")
        }
        return .combine(
            ["\(function)(", .sql(left), ", ", .sql(right), ")"], kind: ValueType(resultType).kind, isOptional: false)
    }
}

/// `PredicateExpressions.ClosedRange` and `.Range`, whose bounds are
/// expressions of their own.
protocol RangeBuilder {
    var lowerExpression: Any { get }
    var upperExpression: Any { get }
    var includesUpper: Bool { get }
}

extension PredicateExpressions.ClosedRange: RangeBuilder {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var includesUpper: Bool { true }
}

extension PredicateExpressions.Range: RangeBuilder {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var includesUpper: Bool { false }
}

/// The standard range types, as captured values.
protocol CapturedRange {
    var capturedLower: Any? { get }
    var capturedUpper: Any? { get }
    var capturedIncludesUpper: Bool { get }
}

extension ClosedRange: CapturedRange {
    var capturedLower: Any? { lowerBound }
    var capturedUpper: Any? { upperBound }
    var capturedIncludesUpper: Bool { true }
}

extension Range: CapturedRange {
    var capturedLower: Any? { lowerBound }
    var capturedUpper: Any? { upperBound }
    var capturedIncludesUpper: Bool { false }
}

extension PartialRangeFrom: CapturedRange {
    var capturedLower: Any? { lowerBound }
    var capturedUpper: Any? { nil }
    var capturedIncludesUpper: Bool { false }
}

extension PartialRangeThrough: CapturedRange {
    var capturedLower: Any? { nil }
    var capturedUpper: Any? { upperBound }
    var capturedIncludesUpper: Bool { true }
}

extension PartialRangeUpTo: CapturedRange {
    var capturedLower: Any? { nil }
    var capturedUpper: Any? { upperBound }
    var capturedIncludesUpper: Bool { false }
}
