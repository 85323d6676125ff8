/// The full-text index of an entity with `.searchable` attributes: an FTS5
/// table whose content is the entity's own table (external content,
/// https://sqlite.org/fts5.html#external_content_tables), kept exact by three
/// triggers on that table. Triggers rather than statements in the save: they
/// run in the same transaction as every write that reaches the table — a
/// save, a set-based delete and its cascades, `truncateAll`, an import, a
/// migration step, another process — so no write path can forget the index.
///
/// One exception, for speed: a save's inserts and updates
/// (``DeferredSearchIndexing``). FTS5 writes its pending words to disk at
/// every statement savepoint, and a trigger makes each `INSERT` one, so the
/// insert trigger indexed rows one by one, each as a tiny index segment
/// (14–27× a plain insert for 66 words a row). A save therefore sets the
/// one-row flag table ``Model/searchDeferralTable`` inside its transaction,
/// which the insert and update triggers' `WHEN` reads, inserts its rows,
/// indexes them with one `INSERT … SELECT` per entity after its last row
/// statement, and clears the flag before the commit. Updates of searchable
/// text are done the same way: one `'delete'` of the rows' stored words per
/// entity before the `UPDATE`s, one `INSERT … SELECT` of their new words
/// after them. The flag is never committed: a failed or killed save rolls it
/// back with the rows, and every other writer — another connection included
/// — only ever sees it unset.
extension EntityDescription {
    /// The attributes in the full-text index, in declaration order.
    var searchableAttributes: [AttributeDescription] { attributes.filter(\.isSearchable) }

    /// Whether the entity has a full-text index.
    var isSearchable: Bool { !searchColumns.isEmpty }

    /// The FTS5 table's name: `literecord_search:<Entity>`.
    var searchTableName: String { Self.searchTableName(table: tableName) }

    static func searchTableName(table: String) -> String { "literecord_search:\(table)" }

    /// The names of the three triggers that keep the index exact.
    var searchTriggerNames: [String] { Self.searchTriggerNames(table: tableName) }

    static func searchTriggerNames(table: String) -> [String] {
        ["insert", "delete", "update"].map { "\(searchTableName(table: table)):\($0)" }
    }

    /// The insert trigger of `table`'s index over `columns`: it indexes each
    /// new row unless a save set the deferral flag, in which case the save
    /// indexes its rows itself (``DeferredSearchIndexing``). Also used to bring the
    /// trigger of an index created before the flag existed up to date.
    static func searchInsertTriggerSQL(table: String, columns: [String]) -> String {
        let fts = SQLIdentifier.quote(searchTableName(table: table))
        let key = SQLIdentifier.rowID.quoted
        let quoted = columns.map { SQLIdentifier.quote($0) }
        let insert = "INSERT INTO \(fts)(rowid, \(joinedText(quoted))) VALUES (new.\(key), \(joinedText(quoted.map { "new.\($0)" })));"
        let deferred = "NOT EXISTS (SELECT 1 FROM \(SQLIdentifier(Model.searchDeferralTable)))"
        return "CREATE TRIGGER \(SQLIdentifier(searchTriggerNames(table: table)[0])) AFTER INSERT ON \(SQLIdentifier(table)) WHEN \(deferred) BEGIN \(insert) END"
    }

    /// The delete trigger of `table`'s index over `columns`: it removes a
    /// deleted row's words. Every writable open restores it when it is
    /// missing or differs (``Connection/upgradeSearchTriggers()``).
    static func searchDeleteTriggerSQL(table: String, columns: [String]) -> String {
        let fts = SQLIdentifier.quote(searchTableName(table: table))
        let key = SQLIdentifier.rowID.quoted
        let quoted = columns.map { SQLIdentifier.quote($0) }
        let delete = "INSERT INTO \(fts)(\(fts), rowid, \(joinedText(quoted))) VALUES ('delete', old.\(key), \(joinedText(quoted.map { "old.\($0)" })));"
        return "CREATE TRIGGER \(SQLIdentifier(searchTriggerNames(table: table)[1])) AFTER DELETE ON \(SQLIdentifier(table)) BEGIN \(delete) END"
    }

    /// The update trigger of `table`'s index over `columns`: when a
    /// searchable column or the row id changed, it removes the row's old
    /// words and indexes the new ones — unless a save set the deferral
    /// flag, in which case the save removes and indexes its updated rows
    /// itself (``DeferredSearchIndexing``). The row id too: an `UPDATE … SET
    /// "Z_PK" = …` (a migration step, raw SQL) moves the row, and the index
    /// must follow it.
    static func searchUpdateTriggerSQL(table: String, columns: [String]) -> String {
        let fts = SQLIdentifier.quote(searchTableName(table: table))
        let key = SQLIdentifier.rowID.quoted
        let quoted = columns.map { SQLIdentifier.quote($0) }
        let list = joinedText(quoted)
        func values(_ row: String) -> String { joinedText(quoted.map { "\(row).\($0)" }) }
        let delete = "INSERT INTO \(fts)(\(fts), rowid, \(list)) VALUES ('delete', old.\(key), \(values("old")));"
        let insert = "INSERT INTO \(fts)(rowid, \(list)) VALUES (new.\(key), \(values("new")));"
        // `UPDATE OF` fires when a searchable column or the key is assigned;
        // a save assigns only changed columns, and the `WHEN` skips the rest.
        let changed = joinedText(([key] + quoted).map { "old.\($0) IS NOT new.\($0)" }, separator: " OR ")
        let deferred = "NOT EXISTS (SELECT 1 FROM \(SQLIdentifier(Model.searchDeferralTable)))"
        return
            "CREATE TRIGGER \(SQLIdentifier(searchTriggerNames(table: table)[2])) AFTER UPDATE OF \(key), \(list) ON \(SQLIdentifier(table)) WHEN \(deferred) AND (\(changed)) BEGIN \(delete) \(insert) END"
    }

    /// `INSERT INTO <index>(<index>, rowid, <columns>) SELECT 'delete', …
    /// FROM <table> WHERE "Z_PK" IN (SELECT value FROM json_each(?))`:
    /// removes the words of rows a save is about to update, as stored.
    var deferredSearchDeleteSQL: String {
        let fts = SQLIdentifier.quote(searchTableName)
        let key = SQLIdentifier.rowID.quoted
        let columns = searchableAttributes.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
        return "INSERT INTO \(fts)(\(fts), rowid, \(columns)) SELECT 'delete', \(key), \(columns) FROM \(quotedTable) WHERE \(key) IN (SELECT value FROM json_each(?))"
    }

    /// `INSERT INTO <index>(rowid, <columns>) SELECT … FROM <table> WHERE
    /// "Z_PK" BETWEEN ? AND ?` (or, with `range` false, `IN (SELECT value
    /// FROM json_each(?))`): indexes rows a save inserted while indexing was
    /// deferred, read back from the table in one statement.
    func deferredSearchInsertSQL(range: Bool) -> String {
        let key = SQLIdentifier.rowID.quoted
        let columns = searchableAttributes.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
        let rows = range ? "BETWEEN ? AND ?" : "IN (SELECT value FROM json_each(?))"
        return "INSERT INTO \(SQLIdentifier(searchTableName))(rowid, \(columns)) SELECT \(key), \(columns) FROM \(quotedTable) WHERE \(key) \(rows)"
    }

    /// `CREATE VIRTUAL TABLE` for the index and `CREATE TRIGGER` for its
    /// triggers; empty for an entity without `.searchable` attributes. The
    /// tokenizer folds case and removes diacritics (`cafe` finds "Café");
    /// the text is stored in NFC (``AttributeDescription/storesCanonicalText``),
    /// and queries are normalized the same way.
    var createSearchIndexSQL: [String] {
        let searchable = searchableAttributes
        guard !searchable.isEmpty else { return [] }
        let fts = SQLIdentifier.quote(searchTableName)
        let names = searchable.map(\.name)
        let list = names.map { SQLIdentifier.quote($0) }.joined(separator: ", ")
        return [
            "CREATE VIRTUAL TABLE \(fts) USING fts5(\(list), content=\(Connection.quoteLiteral(tableName)), content_rowid=\(Connection.quoteLiteral(Model.primaryKeyColumn)), tokenize='unicode61 remove_diacritics 2')",
            Self.searchInsertTriggerSQL(table: tableName, columns: names),
            Self.searchDeleteTriggerSQL(table: tableName, columns: names),
            Self.searchUpdateTriggerSQL(table: tableName, columns: names),
        ]
    }
}
