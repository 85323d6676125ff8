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
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        guard left.kind.isOrderable else {
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
        // SQLite may evaluate the terms of an AND in any order; when the right
        // side can raise an error, CASE keeps Swift's short-circuit order.
        if right.mayFail {
            return .bool(["(CASE WHEN ", .sql(left), " THEN ", .sql(right), " ELSE 0 END)"])
        }
        return .bool(["(", .sql(left), " AND ", .sql(right), ")"])
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        if right.mayFail {
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
        let then = try translator.translate(trueBranch)
        let otherwise = try translator.translate(falseBranch)
        let kind = then.isNullLiteral ? otherwise.kind : then.kind
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
            return .bool(["(", .sql(left), " \(symbol) ", .sql(right), ")"])
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

    /// `==` / `!=`: `=`/`<>` for values that cannot be nil, `IS`/`IS NOT` when
    /// either side can (in Swift `nil == nil` and `nil != 3` are both true).
    func equality(_ lhs: Any, _ rhs: Any, negated: Bool, expression: Any) throws(LiteRecordError) -> SQLFragment {
        let left = try translate(lhs)
        let right = try translate(rhs)
        // `x == nil` needs no comparison of values, so it also works on the
        // kinds that cannot be compared (an optional stored collection).
        if left.isNullLiteral || right.isNullLiteral {
            let other = left.isNullLiteral ? right : left
            return .bool(["(", .sql(other), negated ? " IS NOT NULL)" : " IS NULL)"])
        }
        let kind = left.kind
        guard kind.isSupported else {
            throw unsupported(expression, "\(kind) values cannot be compared in SQL")
        }
        // Record ids of two different entities are never equal, whatever their
        // row ids; two nils still are.
        if case .recordID(let a?) = left.kind, case .recordID(let b?) = right.kind, a != b {
            let bothNil: SQLFragment = .bool(["(", .sql(left), " IS NULL AND ", .sql(right), " IS NULL)"])
            return negated ? .bool(["(NOT ", .sql(bothNil), ")"]) : bothNil
        }
        let op =
            left.isOptional || right.isOptional
            ? (negated ? "IS NOT" : "IS")
            : (negated ? "<>" : "=")
        return .bool(["(", .sql(left), "\(kind.collation) \(op) ", .sql(right), ")"])
    }
}
