import Foundation

extension RecordContext {
    /// The records of `T` whose searchable attributes match `text`, in one
    /// statement: the FTS5 table is queried with the text (bound, never
    /// spliced), joined to the entity's table by row id, filtered by
    /// `predicate`'s translation, ordered by `sortBy` or by BM25.
    func search<T: Entity>(
        _ type: T.Type, _ text: String, predicate: Predicate<T>?, sortBy: [SortDescriptor<T>], limit: Int?, offset: Int?,
        snippets: Bool
    ) throws -> [SearchResult<T>] {
        let entity = try searchableEntity(T.self)
        let condition = try PredicateTranslator.condition(predicate, model: store.model)
        let orderBy = try SortTranslator.orderBy(sortBy)
        guard let match = SearchQuery(text).fts5 else { return [] }
        let markers = SnippetMarkers()
        return try reading("searching \(T.entityName)") { connection in
            // The index's own column order, not the declaration order: the
            // fingerprint sorts attributes by name, so reordering two
            // declarations runs no migration and the FTS5 table keeps the
            // order it was created in.
            let indexed = try connection.searchColumns(of: entity.searchTableName)
            var query = SQLQuery()
            query.whereSQL = condition.sql
            query.limit = limit.map { max(0, $0) }
            query.offset = offset.flatMap { $0 > 0 ? $0 : nil }
            let sql = Self.searchSQL(entity, indexed: indexed, snippets: snippets, orderBy: orderBy, query: &query)
            let markerArguments: [SQLValue] = snippets ? [.text(markers.open), .text(markers.close)] : []
            query.arguments = markerArguments + [.text(match)] + condition.arguments
            return try searchResults(
                T.self, sql, query.arguments, entity, snippetColumns: snippets ? indexed : [], markers, on: connection)
        }
    }

    /// The description of `T`, which must have a full-text index.
    ///
    /// - Throws: `.invalidObject` when `T` is not in the model,
    ///   `.unknownAttribute` when it has no `.searchable` attribute.
    private func searchableEntity<T: Entity>(_ type: T.Type) throws -> EntityDescription {
        let entity = try entity(for: T.self)
        // As a fetch does: the objects an unsaved deletion takes along are left out.
        if !storeCascade.pending.isEmpty { loadStoreCascade(reaching: T.self) }
        guard !entity.searchableAttributes.isEmpty else {
            throw LiteRecordError(
                .unknownAttribute,
                "\(T.entityName) has no searchable attribute; mark the String attributes to search with @Attribute(.searchable)")
        }
        return entity
    }

    /// The search statement: the entity's columns, then the score, then (with
    /// `snippets`) one snippet per column of the index, in `indexed` order.
    /// The snippet markers are parameters `?1` and `?2`, so the `?`s after
    /// them (the query text, the filter's values) are numbered from 3.
    private static func searchSQL(
        _ entity: EntityDescription, indexed: [String], snippets: Bool, orderBy: String?, query: inout SQLQuery
    ) -> String {
        let fts = SQLIdentifier(entity.searchTableName)
        let alias = SQLIdentifier("literecord_search")
        let weightByName = Dictionary(entity.searchableAttributes.map { ($0.name, $0.searchWeight ?? 1) }, uniquingKeysWith: { first, _ in first })
        let weights = indexed.map { String(weightByName[$0] ?? 1) }.joined(separator: ", ")
        var columns = ["rowid AS \"literecord_rowid\"", "-bm25(\(fts), \(weights)) AS \"literecord_score\""]
        if snippets {
            for position in indexed.indices {
                columns.append("snippet(\(fts), \(position), ?1, ?2, '…', 16) AS \"literecord_snippet\(position)\"")
            }
        }
        let key = SQLIdentifier.rowID.qualified(by: entity.quotedTable)
        query.join = "JOIN (SELECT \(columns.joined(separator: ", ")) FROM \(fts) WHERE \(fts) MATCH ?) AS \(alias) ON \(key) = \(alias).\"literecord_rowid\""
        query.orderBy = orderBy ?? "\(alias).\"literecord_score\" DESC, \(key)"
        var extra = ["\(alias).\"literecord_score\""]
        if snippets { extra += indexed.indices.map { "\(alias).\"literecord_snippet\($0)\"" } }
        return SelectStatement([entity.qualifiedSelectList] + extra, from: entity.quotedTable).sql + query.clauses
    }

    /// Runs the search statement `sql` (``searchSQL(_:indexed:snippets:orderBy:query:)``)
    /// and returns a result for each row whose object is returned: a fetch's
    /// row loop, each object with its score and the snippets of
    /// `snippetColumns`.
    private func searchResults<T: Entity>(
        _ type: T.Type, _ sql: String, _ arguments: [SQLValue], _ entity: EntityDescription, snippetColumns: [String],
        _ markers: SnippetMarkers, on connection: Connection
    ) throws -> [SearchResult<T>] {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var results: [SearchResult<T>] = []
        try forEachObject(T.self, in: statement, entity) { object in
            results.append(Self.searchResult(object, statement, entity, snippetColumns, markers))
        }
        return results
    }

    /// The result for `object`, read from the statement's current row: the
    /// score after the entity's columns, then the snippets of
    /// `snippetColumns`.
    private static func searchResult<T: Entity>(
        _ object: T, _ statement: Statement, _ entity: EntityDescription, _ snippetColumns: [String],
        _ markers: SnippetMarkers
    ) -> SearchResult<T> {
        let scoreColumn = entity.versionColumn + 1
        var texts: [String: String] = [:]
        for (position, name) in snippetColumns.enumerated() {
            if case .text(let text) = statement.value(at: scoreColumn + 1 + Int32(position)) { texts[name] = text }
        }
        let score: Double
        switch statement.value(at: scoreColumn) {
        case .real(let value): score = value
        case .integer(let value): score = Double(value)
        default: score = 0
        }
        return SearchResult(object: object, score: score, snippets: texts, markers: markers)
    }
}
