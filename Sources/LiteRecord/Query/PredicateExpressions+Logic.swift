import Foundation

// Equality, ordering, Boolean logic and the ternary operator.
//
// Every Boolean fragment built here is 0 or 1, never NULL: optionals are
// compared with `IS`/`IS NOT` (SQL's null-safe equality), so `NOT` and `OR`
// behave exactly like Swift's `!` and `||` on the results.

extension PredicateExpressions.Equal: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.equality(lhs, rhs, negated: false, expression: self)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.equality(lhs, rhs, negated: true, expression: self)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let (left, right, kind) = try translator.unified(
            translator.translate(lhs), translator.translate(rhs), expression: self)
        guard kind.isOrderable else {
            throw translator.unsupported(
                self, "\(left.kind) values are not ordered the same way in SQL (an enum's `<` is its own, not its raw value's)")
        }
        return translator.compare(left, op, right)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        // SQLite may evaluate the terms of an AND in any order, and skip one
        // (an index on the right side's column skips the rows it rules out).
        // When either side can raise an error, CASE keeps Swift's order:
        // the left side on every row, the right only where the left holds.
        if left.mayFail || right.mayFail {
            return .bool(["(CASE WHEN ", .sql(left), " THEN ", .sql(right), " ELSE 0 END)"])
        }
        return .bool(["(", .sql(left), " AND ", .sql(right), ")"])
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if left.mayFail || right.mayFail {
            return .bool(["(CASE WHEN ", .sql(left), " THEN 1 ELSE ", .sql(right), " END)"])
        }
        return .bool(["(", .sql(left), " OR ", .sql(right), ")"])
    }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        .bool(["(NOT ", .sql(try translator.translate(wrapped)), ")"])
    }
}

extension PredicateExpressions.Conditional: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let condition = try translator.translate(test)
        // The branches must be stored alike (a RecordID kept in an attribute is
        // JSON text, a related object's is a row id), or SQL could not tell
        // which the result is.
        let (then, otherwise, kind) = try translator.unified(
            translator.translate(trueBranch), translator.translate(falseBranch), expression: self)
        return .combine(
            ["(CASE WHEN ", .sql(condition), " THEN ", .sql(then), " ELSE ", .sql(otherwise), " END)"],
            kind: kind, isOptional: then.isOptional || otherwise.isOptional)
    }
}

extension PredicateTranslator {
    /// An ordering comparison of two translated values of one orderable kind.
    ///
    /// Text is compared by a function that runs Swift's own `<`, and the other
    /// operators are derived from it the way `Comparable` derives them
    /// (`a > b` is `b < a`, `a <= b` is `!(b < a)`). A collation would not do:
    /// Swift's `String` `<` is not a total order for some canonically
    /// equivalent prefixes (see ``SQLFunctions/swiftOrderCollation``), and
    /// SQLite may swap a comparison's operands, which is only sound for a
    /// consistent order.
    func compare(_ left: SQLFragment, _ op: PredicateExpressions.ComparisonOperator, _ right: SQLFragment) -> SQLFragment {
        guard left.kind == .string else {
            let symbol =
                switch op {
                case .lessThan: "<"
                case .lessThanOrEqual: "<="
                case .greaterThan: ">"
                case .greaterThanOrEqual: ">="
                }
            return .bool(["(", .sql(left), "\(left.kind.collation) \(symbol) ", .sql(right), ")"])
        }
        func less(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment {
            .bool(["\(SQLFunctions.stringLess)(", .sql(a), ", ", .sql(b), ")"])
        }
        return switch op {
        case .lessThan: less(left, right)
        case .greaterThan: less(right, left)
        case .lessThanOrEqual: .bool(["(NOT ", .sql(less(right, left)), ")"])
        case .greaterThanOrEqual: .bool(["(NOT ", .sql(less(left, right)), ")"])
        }
    }

    /// Two values that must be of one kind (the sides of `==`, `<`, `??`, the
    /// branches of `?:`), with that kind. A captured value is bound again as
    /// the other side is stored (a RecordID captured to compare with one kept
    /// in an attribute becomes its JSON text); values stored differently are
    /// refused rather than compared as they are.
    func unified(
        _ left: SQLFragment, _ right: SQLFragment, expression: Any
    ) throws(LiteRecordError) -> (SQLFragment, SQLFragment, ValueKind) {
        if left.isNullLiteral { return (left, right, right.kind) }
        if right.isNullLiteral { return (left, right, left.kind) }
        if let kind = left.kind.merged(with: right.kind) { return (left, right, kind) }
        if let recoded = right.recoded(as: left.kind) { return (left, recoded, left.kind) }
        if let recoded = left.recoded(as: right.kind) { return (recoded, right, right.kind) }
        throw unsupported(
            expression,
            "one side is \(left.kind) held in SQL as \(left.kind.storageDescription), the other \(right.kind) held as \(right.kind.storageDescription), so SQL cannot compare or combine them"
        )
    }

    /// `==` / `!=`: `=`/`<>` for values that cannot be nil, `IS`/`IS NOT` when
    /// either side can (in Swift `nil == nil` and `nil != 3` are both true).
    func equality(_ lhs: Any, _ rhs: Any, negated: Bool, expression: Any) throws(LiteRecordError) -> SQLFragment {
        let translatedLeft = try translate(lhs)
        let translatedRight = try translate(rhs)
        // `x == nil` needs no comparison of values, so it also works on the
        // kinds that cannot be compared (an optional stored collection).
        if translatedLeft.isNullLiteral || translatedRight.isNullLiteral {
            let other = translatedLeft.isNullLiteral ? translatedRight : translatedLeft
            return .bool(["(", .sql(other), negated ? " IS NOT NULL)" : " IS NULL)"])
        }
        // Record ids of two different entities are never equal, whatever their
        // row ids; two nils still are.
        if case .recordID(let a?) = translatedLeft.kind, case .recordID(let b?) = translatedRight.kind, a != b {
            let bothNil: SQLFragment = .bool(["(", .sql(translatedLeft), " IS NULL AND ", .sql(translatedRight), " IS NULL)"])
            return negated ? .bool(["(NOT ", .sql(bothNil), ")"]) : bothNil
        }
        let (left, right, kind) = try unified(translatedLeft, translatedRight, expression: expression)
        guard kind.isSupported else {
            throw unsupported(expression, "\(kind) values cannot be compared in SQL")
        }
        if case .recordID(nil) = kind {
            throw unsupported(
                expression, "the record ids compared may belong to different entities (a `?:` or `??` mixing them), so their row ids alone cannot say whether they are equal")
        }
        if case .swiftValue(let type) = kind {
            // NULL-safe: nil equals only nil, as in Swift.
            let equal: SQLFragment = .bool(["\(SwiftComparison.equalFunction)(\(type.token), ", .sql(left), ", ", .sql(right), ")"])
            return negated ? .bool(["(NOT ", .sql(equal), ")"]) : equal
        }
        let op =
            left.isOptional || right.isOptional
            ? (negated ? "IS NOT" : "IS")
            : (negated ? "<>" : "=")
        return .bool(["(", .sql(left), "\(kind.collation) \(op) ", .sql(right), ")"])
    }
}
