import Foundation

// Values, variables and key paths: the leaves of a predicate.

extension PredicateExpressions.Value: SQLTranslatable, ConstantExpression {
    var constantValue: Any? { value }

    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        try translator.constant(value, type: Output.self, expression: self)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        let type = ValueType(Output.self)
        return SQLFragment("NULL", kind: type.kind, isOptional: true)
    }
}

extension PredicateExpressions.Variable: SQLTranslatable, VariableExpression {
    var variableID: PredicateExpressions.VariableID { key }

    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        switch translator.binding(of: key) {
        case .value(let fragment)?:
            return fragment
        case .entity?:
            // The object itself is its row id, which is how objects are compared.
            return translator.rootObject()
        case nil:
            throw translator.unsupported(self, "the variable is not bound by this predicate")
        }
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable, ConstantExpression {
    var constantValue: Any? {
        // The root's kept translator says whether it is constant: the cast
        // alone would search the runtime's conformance tables the first time
        // a process meets the root's type (a variable, usually: not constant).
        guard PredicateTranslator.nodeTranslator(for: root)?.isConstant == true,
            let root = (root as? any ConstantExpression)?.constantValue as? Root.Output
        else { return nil }
        return root[keyPath: keyPath]
    }

    func sqlFragment(_ translator: PredicateTranslator) throws(LiteRecordError) -> SQLFragment {
        if let value = constantValue {
            return try translator.constant(value, type: Output.self, expression: self)
        }
        let base = try translator.translate(root)
        if case .object(let type, let alias)? = base.reference {
            return try translator.member(keyPath, of: base, type: type, alias: alias, valueType: Output.self)
        }
        return try translator.property(keyPath, of: base, rootType: Root.Output.self, type: Output.self)
    }
}

extension PredicateTranslator {
    /// A captured value, bound as an argument (or the literal `NULL`).
    func constant(_ value: Any, type: Any.Type, expression: Any) throws(LiteRecordError) -> SQLFragment {
        var valueType = ValueType(type)
        if case .recordID = valueType.kind, let entityName = Self.recordIDEntity(of: value) {
            // Which entity's row id is bound decides what it can equal.
            valueType = ValueType(kind: .recordID(entityName: entityName), isOptional: valueType.isOptional)
        }
        if case .success(let collection) = Self.collectionKind(of: Self.unwrapped(type)) {
            // A captured array or set, bound as the JSON text the entity's encoder
            // would store (`($0.tags ?? ["x"]).contains(y)`).
            valueType = ValueType(kind: collection, isOptional: valueType.isOptional)
        } else if !valueType.kind.isSupported {
            throw unsupported(expression, "a captured \(valueType.kind) has no stored form to compare with")
        }
        guard let encoded = valueType.kind.encode(value) else {
            throw unsupported(
                expression, "the captured \(valueType.kind) value cannot be stored exactly (NaN or out of range)")
        }
        var bound = encoded
        if var recorded = recordedConstants {
            // Kept translations bind a placeholder naming the value (see PredicateCache).
            recorded.append(.init(kind: valueType.kind, encoded: encoded))
            if !encoded.isNull { bound = PredicateCache.placeholder(recorded.count - 1) }
            recordedConstants = recorded
        }
        if encoded.isNull { return SQLFragment("NULL", kind: valueType.kind, isOptional: true) }
        var fragment = SQLFragment("?", [bound], kind: valueType.kind, isOptional: valueType.isOptional)
        fragment.constant = value
        return fragment
    }

    /// The entity of a captured ``RecordID`` (or of an optional one that is
    /// not nil), which decides what it can equal.
    static func recordIDEntity(of value: Any) -> String? {
        ((value as? RecordID) ?? ((value as? any OptionalValue)?.wrappedValue as? RecordID))?.entityName
    }

    /// An attribute's column (`sql`, qualified by its table's name or alias:
    /// inside a `json_each` subquery a bare `"value"` or `"key"` would name the
    /// subquery's own column instead), typed as the key path's value.
    func column(
        _ attribute: AttributeDescription, sql: String, of entityName: String, keyPath: AnyKeyPath, type: Any.Type
    ) throws(LiteRecordError) -> SQLFragment {
        let valueType = ValueType(type)
        if attribute.type == .json {
            switch Self.collectionKind(of: Self.unwrapped(type)) {
            case .success(let collection):
                return SQLFragment(sql, kind: collection, isOptional: valueType.isOptional)
            case .failure(.element(let reason)):
                throw unsupported(
                    keyPath, "\(entityName).\(attribute.name) is a \(Self.unwrapped(type)) stored as JSON: \(reason)")
            case .failure(.notACollection):
                break
            }
        }
        // What the column holds is what the entity's encoder chose for it (the
        // model's attribute type), not what the Swift type looks like: a
        // RecordID in an ordinary attribute is JSON text, not a row id.
        guard let kind = valueType.kind.stored(as: attribute.type, swiftType: Self.unwrapped(type)), kind.isSupported
        else {
            throw unsupported(
                keyPath,
                "\(entityName).\(attribute.name) is stored as \(attribute.type) and its Swift type is \(valueType.kind), which SQL cannot compare the way Swift does")
        }
        return SQLFragment(sql, kind: kind, isOptional: valueType.isOptional)
    }

    /// The type inside one level of `Optional`.
    static func unwrapped(_ type: Any.Type) -> Any.Type {
        // ``ValueType``, kept per type, knows whether `type` is an `Optional`:
        // the cast alone fails for `Int` only after a search of the runtime's
        // conformance tables (the first time a process meets the type).
        guard ValueType(type).isOptional else { return type }
        return (type as? any OptionalValue.Type)?.wrappedType ?? type
    }

    /// A property of a computed value: the few whose SQL meaning is exact.
    func property(_ keyPath: AnyKeyPath, of base: SQLFragment, rootType: Any.Type, type: Any.Type) throws(LiteRecordError) -> SQLFragment {
        let valueType = ValueType(type)
        if case .jsonCollection = base.kind,
            let fragment = collectionProperty(keyPath, of: base, rootType: rootType, type: type)
        {
            return fragment
        }
        if case .objects = base.kind {
            if let fragment = try relatedProperty(keyPath, of: base, rootType: rootType, type: type) { return fragment }
            throw unsupported(keyPath, "only count and isEmpty of a to-many relationship are translated (and contains, allSatisfy)")
        }
        switch base.kind {
        case .string where keyPath == \String.count:
            return .combine(["\(SQLFunctions.characterCount)(", .sql(base), ")"], kind: valueType.kind, isOptional: false)
        case .string where keyPath == \String.isEmpty:
            return .bool(["(", .sql(base), " = '')"])
        case .date where keyPath == \Date.timeIntervalSinceReferenceDate:
            return SQLFragment(base.sql, base.arguments, kind: .double, mayFail: base.mayFail)
        case .uuid where keyPath == \UUID.uuidString:
            return SQLFragment(base.sql, base.arguments, kind: .string, mayFail: base.mayFail)
        case .rawRepresentable(let rawKind, _) where Self.isRawValue(keyPath, of: rootType, kind: rawKind):
            return SQLFragment(base.sql, base.arguments, kind: rawKind, mayFail: base.mayFail)
        default:
            if let fragment = swiftRead(keyPath, of: base, rootType: rootType, type: type) { return fragment }
            throw unsupported(
                keyPath,
                "only stored attributes and relationships, a String's or a stored collection's count and isEmpty, a Date's timeIntervalSinceReferenceDate, a UUID's uuidString, and the properties of a RawRepresentable, a URL or a Codable value stored as JSON (of a kind SQL compares) are translated"
            )
        }
    }

    /// A property of a value read back in Swift from its stored form
    /// (`$0.size.width` of a struct stored as JSON, `$0.priority.rawValue`
    /// when LiteRecord cannot tell the key path is the raw value): the SQL
    /// function runs the key path itself, so the result is exactly Swift's.
    /// `nil` when the value cannot be read back or the property's type has no
    /// exact SQL form.
    private func swiftRead(_ keyPath: AnyKeyPath, of base: SQLFragment, rootType: Any.Type, type: Any.Type) -> SQLFragment? {
        let result = ValueType(type)
        switch result.kind {
        case .recordID, .object, .objects, .jsonCollection, .unsupported:
            // A row id alone would lose its entity; the others are not values.
            return nil
        default:
            break
        }
        guard let token = SwiftComparison.reader(keyPath, rootType: rootType, root: base.kind, result: result) else {
            return nil
        }
        var fragment: SQLFragment = .combine(
            ["\(SwiftComparison.readFunction)(\(token), ", .sql(base), ")"], kind: result.kind,
            isOptional: result.isOptional || base.isOptional)
        // The function fails for a value SQL cannot hold (NaN): only where Swift reads it.
        fragment.mayFail = true
        return fragment
    }

    /// Whether `keyPath` reads the raw value. A key path written in a predicate
    /// (`\Status.rawValue`) is not equal to the protocol's `\R.rawValue`, so
    /// for a `CaseIterable` type it is checked on every case instead.
    private static func isRawValue(_ keyPath: AnyKeyPath, of type: Any.Type, kind: ValueKind) -> Bool {
        if let enumerable = type as? any (RawRepresentable & CaseIterable).Type {
            return readsRawValue(keyPath, of: enumerable, kind: kind)
        }
        guard let raw = type as? any RawRepresentable.Type else { return false }
        return keyPath == rawValueKeyPath(of: raw)
    }

    private static func readsRawValue<R: RawRepresentable & CaseIterable>(
        _ keyPath: AnyKeyPath, of type: R.Type, kind: ValueKind
    ) -> Bool {
        guard !R.allCases.isEmpty else { return false }
        return R.allCases.allSatisfy { value in
            guard let read = value[keyPath: keyPath], let readValue = kind.encode(read) else { return false }
            return readValue == kind.encode(value.rawValue)
        }
    }

    private static func rawValueKeyPath<R: RawRepresentable>(of type: R.Type) -> AnyKeyPath {
        \R.rawValue
    }
}
