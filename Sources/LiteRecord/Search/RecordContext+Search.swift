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
        let entity = try entity(for: T.self)
        // As a fetch does: the objects an unsaved deletion takes along are left out.
        if !storeCascade.pending.isEmpty { loadStoreCascade(reaching: T.self) }
        guard !entity.searchableAttributes.isEmpty else {
            throw LiteRecordError(
                .unknownAttribute,
                "\(T.entityName) has no searchable attribute; mark the String attributes to search with @Attribute(.searchable)")
        }
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
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            // A context that holds no object of T yet gets each row's object
            // new: the row ids are distinct, so none needs looking up.
            let lookUp = identityMap.table(for: T.self).count > 0
            var results: [SearchResult<T>] = []
            while try statement.step() {
                guard let result = try searchResult(T.self, statement, entity, snippets ? indexed : [], markers, lookUp: lookUp)
                else {
                    continue
                }
                results.append(result)
            }
            return results
        }
    }

    /// The search statement: the entity's columns, then the score, then (with
    /// `snippets`) one snippet per column of the index, in `indexed` order.
    /// The snippet markers are parameters `?1` and `?2`, so the `?`s after
    /// them (the query text, the filter's values) are numbered from 3.
    private static func searchSQL(
        _ entity: EntityDescription, indexed: [String], snippets: Bool, orderBy: String?, query: inout SQLQuery
    ) -> String {
        let fts = Connection.quote(entity.searchTableName)
        let alias = Connection.quote("literecord_search")
        let weightByName = Dictionary(entity.searchableAttributes.map { ($0.name, $0.searchWeight ?? 1) }, uniquingKeysWith: { first, _ in first })
        let weights = indexed.map { String(weightByName[$0] ?? 1) }.joined(separator: ", ")
        var columns = ["rowid AS \"literecord_rowid\"", "-bm25(\(fts), \(weights)) AS \"literecord_score\""]
        if snippets {
            for position in indexed.indices {
                columns.append("snippet(\(fts), \(position), ?1, ?2, '…', 16) AS \"literecord_snippet\(position)\"")
            }
        }
        let key = "\(entity.quotedTable).\(Connection.quote(Model.primaryKeyColumn))"
        query.join = "JOIN (SELECT \(columns.joined(separator: ", ")) FROM \(fts) WHERE \(fts) MATCH ?) AS \(alias) ON \(key) = \(alias).\"literecord_rowid\""
        query.orderBy = orderBy ?? "\(alias).\"literecord_score\" DESC, \(key)"
        var extra = ["\(alias).\"literecord_score\""]
        if snippets { extra += indexed.indices.map { "\(alias).\"literecord_snippet\($0)\"" } }
        return "SELECT \(entity.qualifiedSelectList), \(extra.joined(separator: ", ")) FROM \(entity.quotedTable)" + query.clauses
    }

    /// The result on the statement's current row, or `nil` when the row's
    /// object is not returned (deleted in this context); `snippetColumns`
    /// names the index columns whose snippets follow the score.
    private func searchResult<T: Entity>(
        _ type: T.Type, _ statement: Statement, _ entity: EntityDescription, _ snippetColumns: [String],
        _ markers: SnippetMarkers, lookUp: Bool
    ) throws -> SearchResult<T>? {
        let table = identityMap.table(for: T.self)
        let columns = (version: entity.versionColumn, kept: mergePolicy == .storeTrumps ? entity.columnCount : 0)
        guard let object = try materialize(
            T.self, statement: statement, attributeCount: entity.attributes.count, columns: columns, table: table,
            lookUp: lookUp)
        else { return nil }
        if !entity.toOneIndexes.isEmpty {
            applyForeignKeys(object, Row(statement: statement, offset: 1, entityName: T.entityName), entity)
        }
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
