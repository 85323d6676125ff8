import Foundation

/// One record a full-text search found: the object, how well it matched, and
/// the matching passages of its searchable attributes.
///
/// ```swift
/// for hit in try Article.searchResults("swift", in: context) {
///     print(hit.object.title, hit.score, hit.snippet(of: \.body))   // "… with **Swift** 6 …"
/// }
/// ```
public struct SearchResult<T: Entity> {
    /// The record, as an object of the context searched.
    public let object: T
    /// How well the record matched: SQLite's BM25 relevance, negated so that
    /// higher is better (results come in decreasing score unless sort
    /// descriptors were given). Only comparable within one search.
    public let score: Double
    /// The snippets by attribute name, matches between `\u{1}` and `\u{2}`.
    let snippets: [String: String]

    /// The passage of the attribute at `keyPath` around the matches (about
    /// 16 words, `…` where text was cut), each matched word between `open`
    /// and `close`. Empty when the attribute is not `.searchable`, holds
    /// `nil`, or is empty.
    ///
    /// ```swift
    /// hit.snippet(of: \.body)                            // "… learn **Swift** concurrency …"
    /// hit.snippet(of: \.body, open: "<b>", close: "</b>")
    /// ```
    public func snippet(of keyPath: PartialKeyPath<T>, open: String = "**", close: String = "**") -> String {
        guard let index = T.attributeIndex(for: keyPath), T.attributes.indices.contains(index),
            let text = snippets[T.attributes[index].name]
        else { return "" }
        return Self.replacingMarkers(in: text, open: open, close: close)
    }

    /// `text` with each U+0001 replaced by `open` and each U+0002 by `close`,
    /// scalar by scalar. Not `replacingOccurrences`: it compares `Character`s,
    /// and a marker followed by a combining mark that ends no word for
    /// `unicode61` (U+20DD, U+FE0F, …) was left in the text.
    static func replacingMarkers(in text: String, open: String, close: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{1}": result.append(contentsOf: open.unicodeScalars)
            case "\u{2}": result.append(contentsOf: close.unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}

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
        let searchable = entity.searchableAttributes
        guard !searchable.isEmpty else {
            throw LiteRecordError(
                .unknownAttribute,
                "\(T.entityName) has no searchable attribute; mark the String attributes to search with @Attribute(.searchable)")
        }
        let condition = try PredicateTranslator.condition(predicate, model: store.model)
        let orderBy = try SortTranslator.orderBy(sortBy)
        guard let match = SearchQuery(text).fts5 else { return [] }

        var query = SQLQuery()
        let fts = Connection.quote(entity.searchTableName)
        let alias = Connection.quote("literecord_search")
        let weights = searchable.map { String($0.searchWeight ?? 1) }.joined(separator: ", ")
        var columns = ["rowid AS \"literecord_rowid\"", "-bm25(\(fts), \(weights)) AS \"literecord_score\""]
        if snippets {
            for position in searchable.indices {
                columns.append("snippet(\(fts), \(position), char(1), char(2), '…', 16) AS \"literecord_snippet\(position)\"")
            }
        }
        query.join = "JOIN (SELECT \(columns.joined(separator: ", ")) FROM \(fts) WHERE \(fts) MATCH ?) AS \(alias) ON \(entity.quotedTable).\(Connection.quote(Model.primaryKeyColumn)) = \(alias).\"literecord_rowid\""
        query.arguments = [.text(match)] + condition.arguments
        query.whereSQL = condition.sql
        query.orderBy = orderBy ?? "\(alias).\"literecord_score\" DESC, \(entity.quotedTable).\(Connection.quote(Model.primaryKeyColumn))"
        query.limit = limit.map { max(0, $0) }
        query.offset = offset.flatMap { $0 > 0 ? $0 : nil }
        var extra = ["\(alias).\"literecord_score\""]
        if snippets { extra += searchable.indices.map { "\(alias).\"literecord_snippet\($0)\"" } }
        let sql = "SELECT \(entity.qualifiedSelectList), \(extra.joined(separator: ", ")) FROM \(entity.quotedTable)" + query.clauses
        return try reading("searching \(T.entityName)") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            let table = identityMap.table(for: T.self)
            let attributeCount = entity.attributes.count
            let columns = (version: entity.versionColumn, kept: mergePolicy == .storeTrumps ? entity.columnCount : 0)
            let scoreColumn = entity.versionColumn + 1
            let mayHoldRows = table.count > 0
            var results: [SearchResult<T>] = []
            while try statement.step() {
                guard let object = try materialize(
                    T.self, statement: statement, attributeCount: attributeCount, columns: columns, table: table,
                    lookUp: mayHoldRows)
                else { continue }
                if !entity.toOneIndexes.isEmpty {
                    applyForeignKeys(object, Row(statement: statement, offset: 1, entityName: T.entityName), entity)
                }
                var texts: [String: String] = [:]
                if snippets {
                    for (position, attribute) in searchable.enumerated() {
                        if case .text(let text) = statement.value(at: scoreColumn + 1 + Int32(position)) {
                            texts[attribute.name] = text
                        }
                    }
                }
                let score: Double
                switch statement.value(at: scoreColumn) {
                case .real(let value): score = value
                case .integer(let value): score = Double(value)
                default: score = 0
                }
                results.append(SearchResult(object: object, score: score, snippets: texts))
            }
            return results
        }
    }
}
