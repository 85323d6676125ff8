import Foundation

// Optionals: `??`, optional chaining and `if let` (both are `flatMap`).

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        // `a ?? b` where `b` is itself optional means `a` is a double optional,
        // whose `.some(nil)` SQL's single NULL cannot represent.
        guard !ValueType(RHS.Output.self).isOptional else {
            throw translator.unsupported(self, "`??` on a nested optional cannot be represented with SQL's single NULL")
        }
        // Both sides must be stored alike (see `unified`): the result is one
        // or the other, and SQL must know which kind it holds.
        let (value, fallback, kind) = try translator.unified(
            translator.translate(lhs), translator.translate(rhs), expression: self)
        // COALESCE evaluates its second argument only when the first is NULL,
        // as Swift's `??` does.
        return .combine(["COALESCE(", .sql(value), ", ", .sql(fallback), ")"], kind: kind, isOptional: false)
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
        // A value read by the optional's row id (`$0.author?.name`), or the row
        // id itself (`$0.author?.recordID`), is already NULL when it is: no
        // CASE, which would repeat the subqueries of a chain at every level.
        if result.readsRow == optional.sql || (result.sql == optional.sql && result.arguments == optional.arguments) {
            var chained = result
            chained.isOptional = true
            if case .object(let type, _)? = result.reference { chained.reference = .object(type, alias: nil) }
            return chained
        }
        // The transform only runs for a non-nil value, so it never sees NULL.
        var chained: SQLFragment = .combine(
            ["(CASE WHEN ", .sql(optional), " IS NULL THEN NULL ELSE ", .sql(result), " END)"],
            kind: result.kind, isOptional: true)
        // An object or a to-many reached through the chain is still one, known
        // by its row id alone (the CASE hides any row in scope).
        switch result.reference {
        case .object(let type, _)?: chained.reference = .object(type, alias: nil)
        case .objects?: chained.reference = result.reference
        case nil: break
        }
        return chained
    }
}
