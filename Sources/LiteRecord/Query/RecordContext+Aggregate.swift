import Foundation

extension RecordContext {
    /// One aggregate over the stored records `predicate` accepts.
    func aggregate<T: Entity, V, R>(
        _ aggregate: Aggregate<V, R>, of keyPath: PartialKeyPath<T>, matching predicate: Predicate<T>?
    ) throws(LiteRecordError) -> R {
        let entity = try entity(for: T.self)
        let column = try aggregateColumn(keyPath, for: aggregate.function)
        let translated = try PredicateTranslator.condition(predicate, model: store.model)
        let condition = excludingPendingDeletions(T.self, entity, where: translated.sql, translated.arguments)
        let sql = SelectStatement(
            [aggregate.function.sql(column.sql, kind: column.kind)], from: entity.quotedTable, where: condition.sql.map(WhereClause.init(sql:))
        ).sql
        let value = try reading("computing the \(aggregate.function) of \(T.entityName).\(column.name)") { connection in
            try connection.scalar(sql, condition.arguments) ?? .null
        }
        return try aggregate.decode(value)
    }

    /// The aggregate per distinct value of `group`. Groups are formed with
    /// Swift's equality (canonically equivalent strings are one group), and
    /// each key is read from a stored object of its group, so it is exactly the
    /// value Swift would see.
    func aggregate<T: Entity, V, R, G: Hashable>(
        _ aggregate: Aggregate<V, R>, of keyPath: PartialKeyPath<T>, groupedBy group: KeyPath<T, G>,
        matching predicate: Predicate<T>?
    ) throws(LiteRecordError) -> [G: R] {
        let entity = try entity(for: T.self)
        let column = try aggregateColumn(keyPath, for: aggregate.function)
        let groupColumn = try aggregateColumn(group, for: .count)
        // Groups are formed by SQL's equality of stored forms; for a value
        // compared in Swift (a URL, JSON) that is not Swift's `==`.
        guard groupColumn.kind.isSupported, !groupColumn.kind.isSwiftValue else {
            throw LiteRecordError(
                .unsupportedPredicate,
                "cannot group \(T.entityName) by \(groupColumn.name): \(groupColumn.kind) values cannot be compared in SQL")
        }
        let translated = try PredicateTranslator.condition(predicate, model: store.model)
        let condition = excludingPendingDeletions(T.self, entity, where: translated.sql, translated.arguments)
        let key = SQLIdentifier.rowID
        let orderCollation = groupColumn.kind.orderCollation
        var grouped = "FROM \(entity.quotedTable)"
        if let whereSQL = condition.sql { grouped += " WHERE \(whereSQL)" }
        grouped += " GROUP BY \(groupColumn.sql)\(orderCollation)"
        let aggregateSQL = "SELECT MIN(\(key)), \(aggregate.function.sql(column.sql, kind: column.kind)) \(grouped)"
        let keysSQL = SelectStatement(select: entity.selectSQL, where: .column(key, in: "SELECT MIN(\(key)) \(grouped)")).sql

        let operation = "computing the \(aggregate.function) of \(T.entityName).\(column.name) by \(groupColumn.name)"
        // One lock for both statements, so no write of this store lands between them.
        let (values, keys) = try reading(operation) { connection -> ([(Int64, SQLValue)], [Int64: G]) in
            let values = try connection.rows(aggregateSQL, condition.arguments).compactMap { row -> (Int64, SQLValue)? in
                guard row.count == 2, case .integer(let representative) = row[0] else { return nil }
                return (representative, row[1])
            }
            let statement = try connection.cachedStatement(keysSQL)
            defer { statement.reset() }
            try statement.bind(condition.arguments)
            var keys: [Int64: G] = [:]
            while try statement.step() {
                // Read, not registered: the context's objects are left alone.
                let object = try T(row: Row(statement: statement, offset: 1, entityName: T.entityName))
                keys[statement.int64(at: 0)] = object[keyPath: group]
            }
            return (values, keys)
        }
        var result: [G: R] = [:]
        for (representative, value) in values {
            guard let groupKey = keys[representative] else { continue }
            result[groupKey] = try aggregate.decode(value)
        }
        return result
    }

    /// The column an aggregate reads, checked against the function.
    private func aggregateColumn<T: Entity>(
        _ keyPath: PartialKeyPath<T>, for function: AggregateFunction
    ) throws(LiteRecordError) -> (sql: String, name: String, kind: ValueKind) {
        guard let index = T.attributeIndex(for: keyPath), T.attributes.indices.contains(index) else {
            throw LiteRecordError(
                .unknownAttribute,
                "\(keyPath) is not a stored attribute of \(T.entityName) (a @Transient or computed property cannot be aggregated in SQL)")
        }
        let attribute = T.attributes[index]
        let kind = ValueType(type(of: keyPath).valueType).kind
        if function == .min || function == .max, !kind.isOrderable {
            throw LiteRecordError(
                .unsupportedPredicate,
                "cannot compute the \(function) of \(T.entityName).\(attribute.name): \(kind) values are not ordered the same way in SQL")
        }
        return (SQLIdentifier(attribute.name).quoted, attribute.name, kind)
    }
}
