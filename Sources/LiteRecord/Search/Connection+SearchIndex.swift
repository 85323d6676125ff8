import Foundation

// Creating, upgrading and checking a store's full-text indexes; the SQL
// they are made of is in `EntityDescription+SearchIndex.swift`.
extension Connection {
    /// `'text'`, an SQL string literal.
    static func quoteLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The full-text indexes in the database: the name of each FTS5 table
    /// LiteRecord created, with its `CREATE` statement and those of the
    /// triggers on `table` that keep it, by table (the entity's table name).
    func searchIndexObjects() throws -> [(name: String, type: String, table: String, sql: String)] {
        try rows(
            "SELECT name, type, tbl_name, sql FROM sqlite_schema WHERE name LIKE 'literecord\\_search:%' ESCAPE '\\' AND (type = 'trigger' OR sql LIKE 'CREATE VIRTUAL TABLE%') ORDER BY name"
        ).map { row in (row[0].textValue, row[1].textValue, row[2].textValue, row[3].textValue) }
    }

    /// Creates `entity`'s full-text index and fills it from the stored rows:
    /// their searchable text is first brought to NFC (a store written before
    /// the attribute was searchable may hold other forms), then FTS5's
    /// `rebuild` indexes every row.
    func createSearchIndex(for entity: EntityDescription, fillingFromRows: Bool) throws {
        try createSearchDeferralTable()
        guard fillingFromRows else {
            for statement in entity.createSearchIndexSQL { try executeOnce(statement) }
            return
        }
        // Before the triggers exist: with them, an update would remove words
        // from an index that does not hold them yet.
        for attribute in entity.searchableAttributes {
            let column = SQLIdentifier(attribute.name)
            // Only rows with non-ASCII text can be outside NFC.
            let select = SelectStatement([.rowID, column], from: entity.table, where: WhereClause(sql: "\(column) GLOB ?"))
            let candidates = try rows(select.sql, [.text("*[^\u{01}-\u{7F}]*")])
            for row in candidates {
                guard row.count == 2, case .text(let text) = row[1] else { continue }
                let canonical = text.precomposedStringWithCanonicalMapping
                guard Array(canonical.utf8) != Array(text.utf8) else { continue }
                try executeOnce(UpdateStatement(entity.table, set: [.parameter(column)], where: .rowID).sql, [.text(canonical), row[0]])
            }
        }
        for statement in entity.createSearchIndexSQL { try executeOnce(statement) }
        let fts = SQLIdentifier.quote(entity.searchTableName)
        try executeOnce("INSERT INTO \(fts)(\(fts)) VALUES ('rebuild')")
    }

    /// Creates ``Model/searchDeferralTable``, which the insert triggers read,
    /// unless the store has it.
    func createSearchDeferralTable() throws {
        try executeOnce("CREATE TABLE IF NOT EXISTS \(SQLIdentifier(Model.searchDeferralTable)) (flag INTEGER PRIMARY KEY)")
    }

    /// Brings the insert and update triggers of every full-text index up to
    /// ``EntityDescription/searchInsertTriggerSQL(table:columns:)`` and
    /// ``EntityDescription/searchUpdateTriggerSQL(table:columns:)``: an index
    /// created before a save could defer its indexing has triggers that do
    /// not read the flag, which would index a save's rows a second time. The columns
    /// are the FTS5 table's own, so no model is needed. Call inside a write
    /// transaction. Returns the tables whose trigger changed.
    @discardableResult
    func upgradeSearchTriggers() throws -> [String] {
        let stale = try staleSearchTriggers()
        if !stale.isEmpty { try createSearchDeferralTable() }
        for trigger in stale {
            try executeOnce("DROP TRIGGER IF EXISTS \(SQLIdentifier(trigger.name))")
            try executeOnce(trigger.sql)
        }
        var upgraded: [String] = []
        for trigger in stale where upgraded.last != trigger.table { upgraded.append(trigger.table) }
        return upgraded
    }

    /// The full-text insert and update triggers that differ from this
    /// LiteRecord's (a store of format 2, or one an earlier LiteRecord
    /// migrated after a later one wrote it), with the SQL each should have,
    /// by table. Reads only.
    func staleSearchTriggers() throws -> [(table: String, name: String, sql: String)] {
        let objects = try searchIndexObjects()
        let prefix = EntityDescription.searchTableName(table: "")
        var stale: [(table: String, name: String, sql: String)] = []
        for index in objects where index.type != "trigger" {
            let table = String(index.name.dropFirst(prefix.count))
            let columns = try rows("SELECT name FROM pragma_table_info(?)", [.text(index.name)]).map { $0[0].textValue }
            let names = EntityDescription.searchTriggerNames(table: table)
            let wanted = [
                (names[0], EntityDescription.searchInsertTriggerSQL(table: table, columns: columns)),
                (names[1], EntityDescription.searchDeleteTriggerSQL(table: table, columns: columns)),
                (names[2], EntityDescription.searchUpdateTriggerSQL(table: table, columns: columns)),
            ]
            for (name, sql) in wanted where objects.first(where: { $0.name == name && $0.type == "trigger" })?.sql != sql {
                stale.append((table, name, sql))
            }
        }
        return stale
    }

    /// The columns of the FTS5 table `table`, in the order the table has
    /// them (which ``EntityDescription/searchableAttributes`` need not
    /// follow: reordering declarations changes no fingerprint). Read from a
    /// prepared, never-run `SELECT *`: no statement runs, none is traced.
    func searchColumns(of table: String) throws -> [String] {
        let statement = try makeStatement("SELECT * FROM \(SQLIdentifier(table))")
        defer { statement.finalize() }
        return (0..<Int32(statement.columnCount)).map { statement.columnName(at: $0) }
    }

    /// Runs FTS5's `integrity-check` on `table` (an FTS5 table with external
    /// content): whether the index matches the content table. Returns the
    /// problem, or `nil` when it matches. Needs a writable connection: the
    /// command is an `INSERT`, although it writes nothing.
    func searchIndexProblem(_ table: String) throws -> String? {
        let fts = SQLIdentifier.quote(table)
        do {
            try executeOnce("INSERT INTO \(fts)(\(fts), rank) VALUES ('integrity-check', 1)")
            return nil
        } catch let error as SQLiteError where error.isCorrupt {
            return "the full-text index \(table) does not match its table: \(error.message)"
        }
    }
}
