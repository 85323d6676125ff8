extension RecordContext {
    /// The objects a fetch request selects, in its order. Objects this context
    /// already holds are reused (and refreshed, keeping unsaved edits);
    /// objects marked for deletion are left out.
    ///
    /// ```swift
    /// let adults = try context.fetch(FetchRequest<Person>(
    ///     predicate: #Predicate { $0.age >= 18 },
    ///     sortBy: [SortDescriptor(\.name)]))
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` when the
    ///   predicate or a sort descriptor has no exact SQL translation (the
    ///   message names the part), `.unknownAttribute` when a key path to
    ///   prefetch is not a relationship, or when the store cannot be read.
    public func fetch<T: Entity>(_ request: FetchRequest<T>) throws -> [T] {
        let query = try request.sqlQuery(model: store.model)
        let objects = try fetch(T.self, query)
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            let wholeTable = query.whereSQL == nil && query.limit == nil && query.offset == nil
            try prefetch(request.relationshipKeyPathsForPrefetching, of: objects, wholeTable: wholeTable)
        }
        return objects
    }

    /// The number of objects ``fetch(_:)`` would return (the request's limit and
    /// offset apply), counted by SQLite without reading the objects.
    ///
    /// ```swift
    /// let n = try context.count(FetchRequest<Person>(predicate: #Predicate { $0.age >= 18 }))
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`, or when the
    ///   store cannot be read.
    public func count<T: Entity>(_ request: FetchRequest<T>) throws -> Int {
        let query = try request.sqlQuery(model: store.model)
        guard query.limit != nil || query.offset != nil else {
            return try count(T.self, whereSQL: query.whereSQL, arguments: query.arguments)
        }
        let entity = try entity(for: T.self)
        let narrowed = excludingPendingDeletions(T.self, entity, query)
        let sql = "SELECT COUNT(*) FROM (\(slice(narrowed, of: entity)))"
        return try reading("counting \(T.entityName)") { connection in
            guard case .integer(let count)? = try connection.scalar(sql, narrowed.arguments) else { return 0 }
            return Int(count)
        }
    }

    /// Whether any stored record matches the request's predicate.
    ///
    /// ```swift
    /// if try context.exists(FetchRequest<Person>(predicate: #Predicate { $0.name == "Ann" })) { … }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate`, or when the
    ///   store cannot be read.
    public func exists<T: Entity>(_ request: FetchRequest<T>) throws -> Bool {
        let entity = try entity(for: T.self)
        let query = excludingPendingDeletions(T.self, entity, try request.sqlQuery(model: store.model))
        let sql = "SELECT EXISTS (\(slice(query, of: entity)))"
        return try reading("checking for \(T.entityName)") { connection in
            guard case .integer(let found)? = try connection.scalar(sql, query.arguments) else { return false }
            return found != 0
        }
    }

    /// `SELECT 1 FROM <table> WHERE … LIMIT … OFFSET …` (no ORDER BY unless a
    /// slice needs one to be well defined).
    private func slice(_ query: SQLQuery, of entity: EntityDescription) -> String {
        let condition = query.whereSQL.map(WhereClause.init(sql:))
        guard query.limit != nil || query.offset != nil else { return SelectStatement(["1"], from: entity.quotedTable, where: condition).sql }
        let limit = "\(query.limit ?? -1)" + (query.offset.map { " OFFSET \($0)" } ?? "")
        return SelectStatement(
            ["1"], from: entity.quotedTable, where: condition, orderBy: query.orderBy ?? SQLIdentifier.rowID.quoted, limit: limit
        ).sql
    }
}
