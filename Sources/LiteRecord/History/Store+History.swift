import Foundation

/// Where a store's history lives, and the state of its recording.
///
/// History is one row per committed transaction in ``HistoryLog/table``,
/// its changes packed in one blob (``HistoryCoding``), written by the
/// committing transaction itself (``Store/recordHistory(_:)``, called from
/// ``Store/writePassingCallerErrors(_:_:)`` before `COMMIT`): no commit without its
/// history, no history without its commit, whatever process commits.
enum HistoryLog {
    static let table = "literecord_history"
    /// The connection's own table of the preserved values of rows deleted in
    /// the open transaction, filled by one `TEMP` trigger per entity with
    /// `.preserveValueOnDeletion` attributes and emptied at each commit.
    static let tombstoneTable = "literecord_tombstones"
    static let storeIDKey = "history_store_id"
    /// The highest token ``Store/deleteHistory(before:)`` or the retention deleted.
    static let purgedThroughKey = "history_purged_through"
    /// The author of a migration step's transaction.
    static let migrationAuthor = "literecord.migration"

    static var createSQL: String {
        """
        CREATE TABLE IF NOT EXISTS \(SQLIdentifier(table)) (
            token INTEGER PRIMARY KEY,
            date REAL NOT NULL,
            author TEXT,
            context TEXT,
            entities TEXT NOT NULL,
            changes BLOB NOT NULL)
        """
    }

    static var insertSQL: String {
        let columns = ["date", "author", "context", "entities", "changes"].map(SQLIdentifier.init(bare:))
        return InsertStatement(into: SQLIdentifier(table), columns: columns).sql
    }

    /// A new store history identifier: 16 hexadecimal digits.
    static func newStoreID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%016llx", generator.next() as UInt64)
    }

    /// Appends one transaction of `changes` on `connection`, inside its open
    /// write transaction; returns its token number.
    @discardableResult
    static func append(
        _ batch: HistoryBatch, author: String?, contextName: String?, on connection: Connection
    ) throws -> Int64 {
        let statement = try connection.cachedStatement(insertSQL)
        let (blob, entities) = HistoryCoding.encode(batch)
        try statement.bind(.real(Date().timeIntervalSince1970), at: 1)
        try statement.bind(author.map { .text($0) } ?? .null, at: 2)
        try statement.bind(contextName.map { .text($0) } ?? .null, at: 3)
        try statement.bind(.text("," + entities.sorted().joined(separator: ",") + ","), at: 4)
        try statement.bind(.blob(blob), at: 5)
        try statement.run()
        return connection.lastInsertedRowID
    }

    /// The `TEMP` trigger keeping the preserved values of `entity`'s deleted
    /// rows — its attributes named in `preserving` (those of its columns in
    /// `columns`, when given) — or `nil` when none is there.
    static func tombstoneTriggerSQL(
        _ entity: EntityDescription, preserving: Set<String>, name: String? = nil, columns: Set<String>? = nil
    ) -> String? {
        let preserved = entity.attributes.filter {
            preserving.contains($0.name) && (columns?.contains($0.name) ?? true)
        }
        guard !preserved.isEmpty else { return nil }
        let entityName = SQLValue.text(entity.name).sqlLiteral
        let rows = preserved.map { attribute in
            "(\(entityName), OLD.\(SQLIdentifier.rowID), \(SQLValue.text(attribute.name).sqlLiteral), OLD.\(SQLIdentifier(attribute.name)))"
        }
        return """
            CREATE TEMP TRIGGER IF NOT EXISTS \(SQLIdentifier(name ?? "literecord_tombstone:" + entity.name))
            AFTER DELETE ON main.\(entity.quotedTable) BEGIN
            INSERT INTO \(SQLIdentifier(tombstoneTable)) (entity, row, name, value) VALUES \(rows.joined(separator: ", "));
            END
            """
    }

    /// Creates the connection's table of tombstone values, when missing.
    static func createTombstoneTable(on connection: Connection) throws {
        try connection.execute(
            "CREATE TEMP TABLE IF NOT EXISTS \(SQLIdentifier(tombstoneTable)) (entity TEXT, row INTEGER, name TEXT, value)")
    }
}

/// What one write noted for history inside the open transaction
/// (``Store/noteCommitted(_:by:updatedNames:)``).
struct HistoryNote {
    let changes: ChangeSet
    let updatedNames: UpdatedNames
    let author: String?
    let contextName: String?
}

/// One row change, in the order it happened, before the changes of a
/// transaction are netted.
struct HistoryEvent {
    let id: RecordID
    let kind: HistoryChange.Kind
    let names: Set<String>

    /// The net change of each record over `events`, in the order of first
    /// change: an insert then an update is an insert, an insert then a delete
    /// nothing, updates add up their names, a delete then an insert (a row id
    /// used again) an update of every name the insert could not list.
    static func net(_ events: [HistoryEvent]) -> HistoryBatch {
        var netted: [(kind: HistoryChange.Kind, names: Set<String>)?] = []
        var ids: [RecordID] = []
        var positions: [RecordID: Int] = [:]
        for event in events {
            guard let position = positions[event.id] else {
                positions[event.id] = netted.count
                netted.append((event.kind, event.names))
                ids.append(event.id)
                continue
            }
            switch (netted[position]?.kind, event.kind) {
            case (nil, _):
                netted[position] = (event.kind, event.names)
            case (.insert, .delete):
                netted[position] = nil
            case (.insert, _):
                break
            case (.update, .update):
                netted[position]?.names.formUnion(event.names)
            case (.update, .delete):
                netted[position] = (.delete, [])
            case (.delete, .insert):
                netted[position] = (.update, [])
            default:
                break
            }
        }
        var names = UpdatedNames()
        var batch = HistoryBatch()
        for (id, change) in zip(ids, netted) {
            guard let change else { continue }
            batch.changes.append(
                HistoryCoding.Change(
                    id: id, kind: change.kind, names: change.kind == .update ? names.list(of: change.names) : 0))
        }
        batch.lists = names.lists
        return batch
    }
}

/// One transaction's net changes, as ``HistoryCoding/encode(_:)`` writes them.
struct HistoryBatch {
    var changes: [HistoryCoding.Change] = []
    /// The updates' lists of names (``UpdatedNames/lists``).
    var lists: [[String]] = [[]]
    /// The deletes' preserved values, each delete's a range
    /// (``HistoryCoding/Change/tombstone``), one value per name.
    var tombstones: [(name: String, value: SQLValue)] = []

    var isEmpty: Bool { changes.isEmpty }

    /// Gives the delete at `position` the preserved `values`, besides those
    /// it has (a later value of a name wins).
    mutating func attach(_ values: [(name: String, value: SQLValue)], at position: Int) {
        if changes[position].tombstone.isEmpty, values.count < 2 {
            changes[position].tombstone = tombstones.count..<(tombstones.count + values.count)
            tombstones += values
            return
        }
        var merged = Array(tombstones[changes[position].tombstone]) + values
        if merged.count > 1 {
            // One value per name, the last one kept, in the order first named.
            var seen: Set<String> = []
            merged = merged.reversed().filter { seen.insert($0.name).inserted }.reversed()
        }
        changes[position].tombstone = tombstones.count..<(tombstones.count + merged.count)
        tombstones += merged
    }
}

/// Finds the delete of a record among a batch's changes: at the delete after
/// the one found last when the records come in the batch's order, by its
/// row id otherwise.
struct DeleteFinder {
    private var next = 0
    private var byEntity: [String: [Int64: Int]]?

    mutating func position(of entity: String, _ rowID: Int64, in changes: [HistoryCoding.Change]) -> Int? {
        while next < changes.count, changes[next].kind != .delete { next += 1 }
        if next < changes.count, changes[next].id.rowID == rowID, changes[next].id.entityName == entity {
            next += 1
            return next - 1
        }
        if byEntity == nil {
            var positions: [String: [Int64: Int]] = [:]
            for (position, change) in changes.enumerated() where change.kind == .delete {
                positions[change.id.entityName, default: [:]][change.id.rowID] = position
            }
            byEntity = positions
        }
        return byEntity?[entity]?[rowID]
    }
}

/// A store's history recording: part of the store's ``WriterState``, touched
/// only by the holder of its writer gate. A participant of the open
/// transaction for the notes its writes took.
struct HistoryState: TransactionParticipant {
    /// What the stack asked for at open.
    var options = HistoryOptions.asStored
    /// The store's history identifier while this store records history; `nil` when it does not.
    var storeID: String?
    /// The entities whose deletions keep tombstones, by name.
    var preservingEntities: Set<String> = []
    /// `PRAGMA schema_version` when the recording was last decided: another
    /// connection enabling or disabling history changes it.
    var schemaVersion: Int64?
    /// When the retention last deleted old transactions.
    var lastPurge: ContinuousClock.Instant?
    /// What the writes of the open transaction noted, in order.
    var pending: [HistoryNote] = []

    var isRecording: Bool { storeID != nil }

    var mark: Int { pending.count }

    mutating func rollback(to mark: Int) {
        pending.removeSubrange(mark...)
    }

    /// Forgets the notes, and the recording decided inside the transaction:
    /// it may have been rolled back with it.
    mutating func rollbackTransaction() {
        pending.removeAll()
        schemaVersion = nil
    }

    /// The transaction commits: the notes to write into it, and none pending after.
    mutating func commit() -> [HistoryNote] {
        defer { pending.removeAll() }
        return pending
    }
}

extension Store {
    /// Whether commits of this store record history now. Read holding the
    /// writer gate (``writer`` asserts it).
    var recordsHistory: Bool { writer.history.isRecording }

    // MARK: Open

    /// Applies the stack's ``HistoryOptions`` to a writable store just opened
    /// (and migrated): creates the history table for `.enabled`, drops it for
    /// `.disabled`, and starts recording when the store keeps history.
    func configureHistory(_ options: HistoryOptions, on connection: Connection) throws(LiteRecordError) {
        writer.history.options = options
        try attributingErrors("setting up the history of \(displayName)") {
            switch options.mode {
            case .enabled:
                try connection.transaction(.immediate) { try createHistory(on: connection) }
            case .disabled:
                try connection.transaction(.immediate) {
                    guard try connection.tableNames().contains(HistoryLog.table) else { return }
                    try connection.execute("DROP TABLE \(SQLIdentifier(HistoryLog.table))")
                    try connection.execute("DROP VIEW IF EXISTS \(SQLIdentifier(HistoryLog.preservedView))")
                    let keys = DeleteStatement(from: SQLIdentifier(Model.metadataTable), where: .column(SQLIdentifier(bare: "key"), in: "?, ?"))
                    try connection.execute(
                        keys.sql,
                        [.text(HistoryLog.storeIDKey), .text(HistoryLog.purgedThroughKey)])
                    logger.info("history disabled: the store's history was deleted", metadata: ["store": "\(displayName)"])
                }
            case .asStored:
                break
            }
            try refreshHistoryRecording(on: connection)
            if writer.history.isRecording, !isReadOnly {
                try HistoryLog.recordPreservedAttributes(of: model, on: connection)
            }
        }
    }

    /// Creates the history table and the store's history identifier, when missing.
    private func createHistory(on connection: Connection) throws {
        try connection.execute(HistoryLog.createSQL)
        if try connection.metadata(HistoryLog.storeIDKey) == nil {
            try connection.setMetadata(HistoryLog.storeIDKey, HistoryLog.newStoreID())
        }
    }

    /// Decides again whether commits record history, from what the store
    /// holds: called at open, and by every write transaction once the
    /// store's schema changed (another connection may have enabled or
    /// disabled history). A stack opened with `.enabled` puts the table back
    /// when another one disabled it.
    func refreshHistoryRecording(on connection: Connection) throws {
        let version = try connection.scalar("PRAGMA schema_version")?.integerValue
        var storeID: String?
        if try connection.tableNames().contains(HistoryLog.table) {
            storeID = try connection.metadata(HistoryLog.storeIDKey)
        } else if writer.history.options.mode == .enabled, connection.isInTransaction {
            try createHistory(on: connection)
            logger.warning("another connection disabled history; this stack enabled it again", metadata: ["store": "\(displayName)"])
            storeID = try connection.metadata(HistoryLog.storeIDKey)
        }
        // History is the file's: a stack opened `.disabled` turned it off at
        // open, but records like every other writer once another stack
        // enables it again, so no writer leaves a silent gap in it.
        writer.history.schemaVersion = version
        writer.history.storeID = storeID
        guard storeID != nil else { return }
        // Tombstones: one TEMP trigger per entity with preserved attributes
        // (made again whenever the schema changed: a rolled-back transaction
        // takes the ones it made with it).
        try HistoryLog.createTombstoneTable(on: connection)
        let preserved = try HistoryLog.preservedAttributes(of: model, on: connection)
        var preserving: Set<String> = []
        for entity in model.entities {
            guard let sql = HistoryLog.tombstoneTriggerSQL(entity, preserving: preserved[entity.name] ?? []) else { continue }
            try connection.execute(sql)
            preserving.insert(entity.name)
        }
        writer.history.preservingEntities = preserving
    }

    /// At the start of a write transaction: decides the recording again when
    /// another connection changed the schema since it was last decided.
    func checkHistorySchema(on connection: Connection) throws {
        let statement = try connection.cachedStatement("PRAGMA schema_version")
        defer { statement.reset() }
        guard try statement.step() else { return }
        let version = statement.int64(at: 0)
        statement.reset()
        if version != writer.history.schemaVersion { try refreshHistoryRecording(on: connection) }
    }

    // MARK: Recording

    /// Records what a write did inside the open write transaction: published
    /// to subscribers when the outermost transaction commits, and, when the
    /// store records history, written into it by that transaction. Must be
    /// called from inside a `write` body.
    ///
    /// - Parameters:
    ///   - context: the context that wrote, for the transaction's author and
    ///     context name.
    ///   - updatedNames: for each updated record, the attributes and
    ///     relationships written; asked only when history is recorded.
    func noteCommitted(
        _ changeSet: ChangeSet, by context: RecordContext? = nil,
        updatedNames: () -> UpdatedNames = { UpdatedNames() }
    ) {
        guard !changeSet.isEmpty else { return }
        let state = writer
        state.pendingChanges.append(changeSet)
        if state.history.isRecording {
            state.history.pending.append(
                HistoryNote(
                    changes: changeSet, updatedNames: updatedNames(), author: context?.transactionAuthor,
                    contextName: context?.name))
        }
    }

    /// Writes the open transaction's history, just before it commits; nothing
    /// when no write noted a change (or all of them cancelled out).
    func recordHistory(_ connection: Connection) throws {
        let state = writer
        let notes = state.history.commit()
        guard state.history.isRecording, !notes.isEmpty else { return }
        var batch = Self.netChanges(notes)
        let preserving = state.history.preservingEntities
        if !preserving.isEmpty, notes.contains(where: { note in note.changes.deleted.contains { preserving.contains($0.entityName) } }) {
            try Self.attachTombstones(&batch, connection)
        }
        if !batch.isEmpty {
            // Each taken from the first write that had one: an author set
            // partway through a `write {}` names the transaction too.
            let author = notes.lazy.compactMap(\.author).first
            let contextName = notes.lazy.compactMap(\.contextName).first
            try HistoryLog.append(batch, author: author, contextName: contextName, on: connection)
        }
        if let retention = state.history.options.retention {
            let now = ContinuousClock.now
            if state.history.lastPurge.map({ now - $0 >= .seconds(60) }) ?? true {
                state.history.lastPurge = now
                let seconds = Double(retention.components.seconds) + Double(retention.components.attoseconds) / 1e18
                try purgeHistory(where: "date < ?", [.real(Date().timeIntervalSince1970 - seconds)], on: connection)
            }
        }
    }

    /// The net change of each record over the notes (``HistoryEvent/net(_:)``).
    static func netChanges(_ notes: [HistoryNote]) -> HistoryBatch {
        if notes.count == 1, listsEachRecordOnce(notes[0].changes.updated) {
            // One write lists a record once (its inserts, updates and deletes
            // are distinct records): nothing to net. A write may list a record
            // twice among its updates (a set-based delete clearing two to-ones
            // of one row), which the check above sends to netting.
            let note = notes[0]
            var batch = HistoryBatch(lists: note.updatedNames.lists)
            batch.changes.reserveCapacity(note.changes.inserted.count + note.changes.updated.count + note.changes.deleted.count)
            for id in note.changes.inserted { batch.changes.append(HistoryCoding.Change(id: id, kind: .insert)) }
            for id in note.changes.updated {
                batch.changes.append(HistoryCoding.Change(id: id, kind: .update, names: note.updatedNames.list(for: id)))
            }
            for id in note.changes.deleted { batch.changes.append(HistoryCoding.Change(id: id, kind: .delete)) }
            return batch
        }
        var events: [HistoryEvent] = []
        for note in notes {
            for id in note.changes.inserted { events.append(HistoryEvent(id: id, kind: .insert, names: [])) }
            for id in note.changes.updated {
                events.append(HistoryEvent(id: id, kind: .update, names: Set(note.updatedNames.names(for: id))))
            }
            for id in note.changes.deleted { events.append(HistoryEvent(id: id, kind: .delete, names: [])) }
        }
        return HistoryEvent.net(events)
    }

    /// Whether `ids` names no record twice, found without hashing a record:
    /// true when each entity's ids come in one run of increasing row ids,
    /// which a save's (in table order) and a set-based update's do.
    static func listsEachRecordOnce(_ ids: [RecordID]) -> Bool {
        guard ids.count > 1 else { return true }
        var finished: [String] = []
        var previous = ids[0]
        for id in ids.dropFirst() {
            if id.entityName == previous.entityName {
                guard id.rowID > previous.rowID else { return false }
            } else {
                guard !finished.contains(id.entityName) else { return false }
                finished.append(previous.entityName)
            }
            previous = id
        }
        return true
    }

    /// Puts the preserved values the tombstone triggers kept into the deletes,
    /// and empties their table for the next transaction.
    ///
    /// The triggers keep a deleted row's values as consecutive rows, in the
    /// order of the deletions, which is mostly the order of the batch's
    /// deletes: each record is first looked for at the next delete, and
    /// only where that is not it, by its row id.
    static func attachTombstones(_ batch: inout HistoryBatch, _ connection: Connection) throws {
        let table = SQLIdentifier(HistoryLog.tombstoneTable, inSchema: "temp")
        let columns = ["entity", "row", "name", "value"].map(SQLIdentifier.init(bare:))
        let statement = try connection.cachedStatement(SelectStatement(columns, from: table, orderBy: "rowid").sql)
        defer { statement.reset() }
        var finder = DeleteFinder()
        var record: (entity: String, rowID: Int64)?
        var values: [(name: String, value: SQLValue)] = []
        func attach() {
            guard let record, let position = finder.position(of: record.entity, record.rowID, in: batch.changes) else { return }
            batch.attach(values, at: position)
        }
        while try statement.step() {
            let entity = statement.string(at: 0)
            let rowID = statement.int64(at: 1)
            if record?.entity != entity || record?.rowID != rowID {
                attach()
                record = (entity, rowID)
                values.removeAll(keepingCapacity: true)
            }
            values.append((statement.string(at: 2), statement.value(at: 3)))
        }
        attach()
        statement.reset()
        try connection.execute(DeleteStatement(from: table).sql)
    }

    /// Deletes the transactions `whereSQL` selects, except the newest, and
    /// moves the purge point (the highest token deleted) on; returns how many
    /// went.
    ///
    /// The newest transaction stays: a new transaction's number is one past
    /// the highest in the table (an `INTEGER PRIMARY KEY` without
    /// `AUTOINCREMENT`, whose `sqlite_sequence` row would cost every commit
    /// another page), so an emptied table would hand out numbers again.
    @discardableResult
    func purgeHistory(where whereSQL: String, _ arguments: [SQLValue], on connection: Connection) throws -> Int {
        let table = SQLIdentifier(HistoryLog.table)
        let token = SQLIdentifier(bare: "token")
        let newest = SelectStatement(["max(token)"], from: table.quoted)
        let purge = DeleteStatement(
            from: table, where: WhereClause(sql: whereSQL).parenthesized && WhereClause(sql: "token < (\(newest))"), returning: [token])
        let rows = try connection.rows(purge.sql, arguments)
        guard let highest = rows.compactMap({ $0.first?.integerValue }).max() else { return 0 }
        let previous = try connection.metadata(HistoryLog.purgedThroughKey).flatMap { Int64($0) } ?? 0
        if highest > previous { try connection.setMetadata(HistoryLog.purgedThroughKey, String(highest)) }
        return rows.count
    }

    // MARK: Reading

    /// The store's history identifier.
    ///
    /// - Throws: `.storeUnavailable` when the store keeps no history.
    func historyStoreID(on connection: Connection) throws -> String {
        guard try connection.tableNames().contains(HistoryLog.table), let storeID = try connection.metadata(HistoryLog.storeIDKey)
        else {
            throw LiteRecordError(
                .storeUnavailable,
                "\(displayName) keeps no history: open it once with history: .enabled (RecordStack(storeAt:entities:history:)); history starts from then")
        }
        return storeID
    }

    /// The newest transaction's token number, 0 when there is none.
    func newestHistoryNumber(on connection: Connection) throws -> Int64 {
        try connection.scalar(SelectStatement(["max(token)"], from: SQLIdentifier(HistoryLog.table).quoted).sql)?.integerValue ?? 0
    }

    /// The transactions after `token` that `filter` keeps, oldest first, at
    /// most `limit`; read on `connection` (a reader, or the replica's).
    func readHistory(
        after token: HistoryToken?, through last: Int64? = nil, matching filter: HistoryFilter, limit: Int?,
        on connection: Connection
    ) throws -> [HistoryTransaction] {
        // One read transaction: the purge point checked is the one the rows
        // read are after, whatever deletes history meanwhile.
        if !connection.isInTransaction {
            return try connection.transaction(.deferred) {
                try readHistory(after: token, through: last, matching: filter, limit: limit, on: connection)
            }
        }
        let storeID = try historyStoreID(on: connection)
        if let token { try checkReadable(token, storeID: storeID, on: connection) }
        let (sql, arguments) = historyQuery(after: token, through: last, matching: filter)
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var result: [HistoryTransaction] = []
        while try statement.step() {
            let author = statement.isNull(at: 2) ? nil : statement.string(at: 2)
            guard filter.keeps(author: author) else { continue }
            let changes = try HistoryCoding.decode(statement.data(at: 4), entityNames: filter.entityNames)
            if filter.entityNames != nil, changes.isEmpty { continue }
            result.append(
                HistoryTransaction(
                    token: HistoryToken(transactionNumber: statement.int64(at: 0), storeID: storeID),
                    date: Date(timeIntervalSince1970: statement.double(at: 1)), author: author,
                    contextName: statement.isNull(at: 3) ? nil : statement.string(at: 3), changes: changes))
            if let limit, result.count >= limit { break }
        }
        return result
    }

    /// Refuses a token of another store, or one older than what the store keeps.
    private func checkReadable(_ token: HistoryToken, storeID: String, on connection: Connection) throws {
        guard token.storeID == storeID else {
            throw LiteRecordError(
                .historyExpired,
                "history token \(token) is not from \(displayName) (its history identifier is \(storeID)): the store was replaced, moved aside and created again, or the token is another store's. Read the store's state again, and continue from a new token"
            )
        }
        let purged = try connection.metadata(HistoryLog.purgedThroughKey).flatMap { Int64($0) } ?? 0
        guard token.transactionNumber >= purged else {
            throw LiteRecordError(
                .historyExpired,
                "history token \(token) is older than what \(displayName) keeps: transactions up to \(purged) were deleted (deleteHistory(before:) or the retention). Read the store's state again, and continue from a new token"
            )
        }
        // The newest transaction is never deleted, so a token past it names
        // one this file never recorded: the store was put back from an older
        // copy, whose next transactions would take the token's numbers again.
        // (A read replica may only be behind its primary: it waits instead.)
        guard replicaURL == nil else { return }
        let newest = try newestHistoryNumber(on: connection)
        guard token.transactionNumber <= newest else {
            throw LiteRecordError(
                .historyExpired,
                "history token \(token) is newer than what \(displayName) has recorded (its newest transaction is \(newest)): the store was restored from an older copy. Read the store's state again, and continue from a new token"
            )
        }
    }

    /// The history table's `SELECT` for `readHistory`, oldest first, and its
    /// arguments: the token range, the dates and a first cut on entity names
    /// (the author filter and the change blobs are decided in Swift).
    private func historyQuery(
        after token: HistoryToken?, through last: Int64?, matching filter: HistoryFilter
    ) -> (sql: String, arguments: [SQLValue]) {
        var conditions = [WhereClause(sql: "token > ?")]
        var arguments: [SQLValue] = [.integer(token?.transactionNumber ?? 0)]
        if let last {
            conditions.append(WhereClause(sql: "token <= ?"))
            arguments.append(.integer(last))
        }
        if let from = filter.from {
            conditions.append(WhereClause(sql: "date >= ?"))
            arguments.append(.real(from.timeIntervalSince1970))
        }
        if let until = filter.until {
            conditions.append(WhereClause(sql: "date < ?"))
            arguments.append(.real(until.timeIntervalSince1970))
        }
        if let names = filter.entityNames {
            // A cheap first cut on the names listed per transaction; the blob decides.
            let listed = names.isEmpty ? "0" : names.map { _ in "instr(entities, ?) > 0" }.joined(separator: " OR ")
            conditions.append(WhereClause(sql: listed).parenthesized)
            arguments += names.sorted().map { .text("," + $0 + ",") }
        }
        let columns = ["token", "date", "author", "context", "changes"].map(SQLIdentifier.init(bare:))
        let select = SelectStatement(columns, from: SQLIdentifier(HistoryLog.table), where: .all(conditions), orderBy: "token")
        return (select.sql, arguments)
    }
}
