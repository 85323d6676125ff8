/// Reads leave out the records a context is deleting inside their SQL, so
/// that `LIMIT`, `OFFSET`, `COUNT`, `EXISTS` and aggregates count exactly
/// the objects a fetch returns: filtering them after a `LIMIT 1` would
/// answer `nil` while an undeleted match exists, and a count would include
/// the deletion.
extension RecordContext {
    /// The row ids of `T`'s records that this context or an ancestor has
    /// marked for deletion and not saved, rows doomed by a pending
    /// store-side cascade included.
    func pendingDeletionRowIDs<T: Entity>(_ type: T.Type) -> [Int64] {
        var rowIDs: [Int64] = []
        var context: RecordContext? = self
        while let current = context {
            if !current.storeCascade.pending.isEmpty { current.loadStoreCascade(reaching: T.self) }
            for object in current.pendingDeletions where object is T {
                if let rowID = object.stateRowID { rowIDs.append(rowID) }
            }
            context = current.parent
        }
        return rowIDs
    }

    /// `condition` with `AND <table>."Z_PK" NOT IN (<rows being deleted>)`
    /// added when `T` has pending deletions; unchanged (and so the same
    /// statement text) otherwise. The row id is qualified by the table, so
    /// the condition holds beside a join.
    func excludingPendingDeletions<T: Entity>(
        _ type: T.Type, _ entity: EntityDescription, where condition: String?, _ arguments: [SQLValue]
    ) -> (sql: String?, arguments: [SQLValue]) {
        let rowIDs = pendingDeletionRowIDs(T.self)
        guard !rowIDs.isEmpty else { return (condition, arguments) }
        let rowID = "\(entity.quotedTable).\(SQLIdentifier.rowID.quoted)"
        let excluded = "\(rowID) NOT IN (\(WhereClause.jsonArrayValues))"
        let sql = condition.map { "(\($0)) AND \(excluded)" } ?? excluded
        return (sql, arguments + [Self.jsonArray(rowIDs)])
    }

    /// `query` leaving out `T`'s pending deletions
    /// (``excludingPendingDeletions(_:_:where:_:)``).
    func excludingPendingDeletions<T: Entity>(_ type: T.Type, _ entity: EntityDescription, _ query: SQLQuery) -> SQLQuery {
        var narrowed = query
        (narrowed.whereSQL, narrowed.arguments) = excludingPendingDeletions(
            T.self, entity, where: query.whereSQL, query.arguments)
        return narrowed
    }
}
