import Foundation

/// A custom migration step's row changes in the store's history: a step runs
/// SQL of its own, so what it changed is caught by `TEMP` triggers on every
/// entity table for the length of the step, and written as one transaction
/// (by ``HistoryLog/migrationAuthor``) inside the migration's transaction.
/// A statement that fails takes its triggers' rows with it, so what is
/// recorded is what the step committed. Only a store that already keeps
/// history records its steps: one that a stack enables history on at the
/// same open starts its history after the migration.
struct MigrationStepCapture {
    static let table = "literecord_step_changes"
    static let triggerPrefix = "literecord_step_capture:"

    let connection: Connection
    let model: Model
    /// The triggers made, to drop after the step.
    private var triggers: [String] = []

    /// Starts capturing, when the store keeps history; `nil` otherwise.
    static func begin(on connection: Connection, model: Model) throws -> MigrationStepCapture? {
        guard try connection.tableNames().contains(HistoryLog.table), try connection.metadata(HistoryLog.storeIDKey) != nil
        else { return nil }
        var capture = MigrationStepCapture(connection: connection, model: model)
        try capture.install()
        return capture
    }

    private mutating func install() throws {
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \(SQLIdentifier.quote(Self.table)) (seq INTEGER PRIMARY KEY, entity TEXT, row INTEGER, kind INTEGER, names TEXT)")
        try HistoryLog.createTombstoneTable(on: connection)
        let preserved = try HistoryLog.preservedAttributes(of: model, on: connection)
        for entity in model.entities {
            let columns = Set(
                try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(entity.name)]).compactMap { row -> String? in
                    if case .text(let name) = row[0] { name } else { nil }
                })
            guard !columns.isEmpty else { continue }
            let names = (0..<entity.columnCount).map { entity.columnName($0) }.filter(columns.contains)
            let key = SQLIdentifier.quote(Model.primaryKeyColumn)
            let name = SQLValue.text(entity.name).sqlLiteral
            let changed =
                names.isEmpty
                ? "''"
                : names.map {
                    "CASE WHEN OLD.\(SQLIdentifier.quote($0)) IS NOT NEW.\(SQLIdentifier.quote($0)) THEN \(SQLValue.text($0 + ",").sqlLiteral) ELSE '' END"
                }.joined(separator: " || ")
            let into = "INSERT INTO \(SQLIdentifier.quote(Self.table)) (entity, row, kind, names)"
            let bodies = [
                ("insert", "AFTER INSERT", "\(into) VALUES (\(name), NEW.\(key), 0, '')"),
                ("update", "AFTER UPDATE", "\(into) VALUES (\(name), NEW.\(key), 1, \(changed))"),
                ("delete", "AFTER DELETE", "\(into) VALUES (\(name), OLD.\(key), 2, '')"),
            ]
            for (kind, timing, body) in bodies {
                let trigger = Self.triggerPrefix + kind + ":" + entity.name
                try connection.execute("CREATE TEMP TRIGGER \(SQLIdentifier.quote(trigger)) \(timing) ON main.\(entity.quotedTable) BEGIN \(body); END")
                triggers.append(trigger)
            }
            let trigger = Self.triggerPrefix + "tombstone:" + entity.name
            if let sql = HistoryLog.tombstoneTriggerSQL(
                entity, preserving: preserved[entity.name] ?? [], name: trigger, columns: columns)
            {
                try connection.execute(sql)
                triggers.append(trigger)
            }
        }
    }

    /// Stops capturing and appends the step's transaction when it changed rows.
    func finish(step name: String) throws {
        for trigger in triggers { try connection.execute("DROP TRIGGER IF EXISTS temp.\(SQLIdentifier.quote(trigger))") }
        var events: [HistoryEvent] = []
        let table = SQLIdentifier(Self.table, inSchema: "temp")
        let columns = ["entity", "row", "kind", "names"].map(SQLIdentifier.init(bare:))
        for row in try connection.rows(SelectStatement(columns, from: table, orderBy: "seq").sql) {
            guard case .text(let entity) = row[0], case .integer(let rowID) = row[1], case .integer(let code) = row[2],
                let kind = HistoryChange.Kind(code: UInt8(clamping: code))
            else { continue }
            let names = if case .text(let list) = row[3] { Set(list.split(separator: ",").map(String.init)) } else { Set<String>() }
            events.append(HistoryEvent(id: RecordID(entityName: entity, rowID: rowID), kind: kind, names: names))
        }
        try connection.execute(DeleteStatement(from: table).sql)
        var batch = HistoryEvent.net(events)
        try Store.attachTombstones(&batch, connection)
        guard !batch.isEmpty else { return }
        try HistoryLog.append(batch, author: HistoryLog.migrationAuthor, contextName: "migration step \(name)", on: connection)
    }
}

extension Migrator {
    /// Gives the store's history a new identifier, so that every token from
    /// before the migration throws `.historyExpired`: the migration deleted
    /// records or values, or wrote values (a default, a conversion) into
    /// stored records by itself, which no history transaction lists. A reader
    /// reads the store's state again instead of keeping the old values.
    func expireHistoryTokens(_ report: inout MigrationReport) throws {
        let renewed = try performing("expiring the history tokens") { try HistoryLog.renewStoreID(on: connection) }
        guard renewed else { return }
        log("expired every history token: the migration rewrote stored values, which the history does not list", &report)
    }

    /// Renames the entities of `renames` in every history transaction that
    /// names them, so that `.entity(_:)` filters and `merge(history:)` find
    /// their older changes under the new name. Attribute names in older
    /// transactions stay as they were recorded.
    func renameEntitiesInHistory(_ renames: [MigrationReport.TableRename]) throws {
        guard !renames.isEmpty else { return }
        let keeps = try performing("reading the history's identifier") {
            try connection.tableNames().contains(HistoryLog.table)
        }
        guard keeps else { return }
        let names = Dictionary(renames.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        try performing("renaming \(renames.map(\.description).joined(separator: ", ")) in the history") {
            let table = SQLIdentifier(HistoryLog.table)
            let named = names.keys.sorted().map { _ in "instr(entities, ?) > 0" }.joined(separator: " OR ")
            let rows = try connection.rows(
                "SELECT token, changes FROM \(table) WHERE \(named)", names.keys.sorted().map { .text("," + $0 + ",") })
            for row in rows {
                guard case .integer(let token) = row[0], case .blob(let blob) = row[1] else { continue }
                let (renamed, entities) = try HistoryCoding.renamingEntities(in: blob, names)
                try connection.execute(
                    "UPDATE \(table) SET changes = ?, entities = ? WHERE token = ?",
                    [.blob(renamed), .text("," + entities.sorted().joined(separator: ",") + ","), .integer(token)])
            }
        }
    }
}
