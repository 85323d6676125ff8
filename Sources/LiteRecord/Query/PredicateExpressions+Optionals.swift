import Foundation

// Optionals: `??`, optional chaining and `if let` (both are `flatMap`).

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        // `a ?? b` where `b` is itself optional means `a` is a double optional,
        // whose `.some(nil)` SQL's single NULL cannot represent.
        guard !ValueType(RHS.Output.self).isOptional else {
            throw translator.unsupported(self, "`??` on a nested optional cannot be represented with SQL's single NULL")
        }
        let value = try translator.translate(lhs)
        let fallback = try translator.translate(rhs)
        // COALESCE evaluates its second argument only when the first is NULL,
        // as Swift's `??` does.
        return .combine(["COALESCE(", .sql(value), ", ", .sql(fallback), ")"], kind: fallback.kind, isOptional: false)
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let optional = try translator.translate(wrapped)
        var unwrapped = optional
        unwrapped.isOptional = false
        let result = try translator.with(variable.key, boundTo: unwrapped) { () throws(LiteRecordError) in
            try translator.translate(transform)
        }
        if !optional.isOptional { return result }
        // The transform only runs for a non-nil value, so it never sees NULL.
        return .combine(
            ["(CASE WHEN ", .sql(optional), " IS NULL THEN NULL ELSE ", .sql(result), " END)"],
            kind: result.kind, isOptional: true)
    }
}
