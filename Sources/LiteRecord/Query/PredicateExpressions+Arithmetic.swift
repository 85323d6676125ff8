import Foundation

// Arithmetic. Swift traps on integer overflow and division by zero, where
// SQLite silently switches to REAL or returns NULL; the checked SQL functions
// raise an error instead, so a fetch fails where Swift would have trapped and
// never returns a different answer.

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let symbol =
            switch op {
            case .add: "+"
            case .subtract: "-"
            case .multiply: "*"
            }
        return try translator.arithmetic(lhs, symbol, rhs, expression: self)
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.checkedInteger(SQLFunctions.integerDivide, lhs, rhs, expression: self)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.checkedInteger(SQLFunctions.integerRemainder, lhs, rhs, expression: self)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let left = try translator.translate(lhs)
        let right = try translator.translate(rhs)
        guard left.kind == .double else {
            throw translator.unsupported(self, translator.arithmeticRefusal(left.kind))
        }
        return .combine(
            ["\(SQLFunctions.realDivide)(", .sql(left), ", ", .sql(right), ")"], kind: .double, isOptional: false
        ).failing()
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let operand = try translator.translate(wrapped)
        switch operand.kind {
        case .integer(let bounds):
            return .combine(
                ["\(SQLFunctions.checkInteger)((- ", .sql(operand), "), \(bounds.min), \(bounds.max))"],
                kind: operand.kind, isOptional: false
            ).failing()
        case .double:
            // SQLite computes `- x` as `0 - x`, which is +0.0 for 0.0; Swift's
            // negation flips the sign, and `1 / -x` tells the two apart.
            return .combine(["(", .sql(operand), " * -1.0)"], kind: .double, isOptional: false)
        default:
            throw translator.unsupported(self, translator.arithmeticRefusal(operand.kind))
        }
    }
}

extension SQLFragment {
    func failing() -> SQLFragment {
        var copy = self
        copy.mayFail = true
        return copy
    }
}

extension PredicateTranslator {
    /// `+`, `-`, `*`: integers are range-checked against the Swift type's
    /// bounds; doubles follow IEEE 754 in both languages, except that SQLite
    /// turns NaN into NULL, which the check reports.
    func arithmetic(_ lhs: Any, _ symbol: String, _ rhs: Any, expression: Any) throws(LiteRecordError) -> SQLFragment {
        let left = try translate(lhs)
        let right = try translate(rhs)
        switch left.kind {
        case .integer(let bounds):
            return .combine(
                ["\(SQLFunctions.checkInteger)((", .sql(left), " \(symbol) ", .sql(right), "), \(bounds.min), \(bounds.max))"],
                kind: left.kind, isOptional: false
            ).failing()
        case .double:
            return .combine(
                ["\(SQLFunctions.checkReal)((", .sql(left), " \(symbol) ", .sql(right), "))"],
                kind: .double, isOptional: false
            ).failing()
        default:
            throw unsupported(expression, arithmeticRefusal(left.kind))
        }
    }

    /// Integer `/` and `%`, computed by Swift itself so that truncation,
    /// signs and overflow are Swift's.
    func checkedInteger(_ function: String, _ lhs: Any, _ rhs: Any, expression: Any) throws(LiteRecordError) -> SQLFragment {
        let left = try translate(lhs)
        let right = try translate(rhs)
        guard case .integer(let bounds) = left.kind else {
            throw unsupported(expression, arithmeticRefusal(left.kind))
        }
        return .combine(
            ["\(function)(", .sql(left), ", ", .sql(right), ", \(bounds.min), \(bounds.max))"],
            kind: left.kind, isOptional: false
        ).failing()
    }

    func arithmeticRefusal(_ kind: ValueKind) -> String {
        kind == .float
            ? "Float arithmetic rounds to single precision in Swift but would run in double precision in SQL"
            : "arithmetic on \(kind) values is not translated"
    }
}
