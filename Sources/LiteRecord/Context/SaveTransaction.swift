/// One save's work inside its write transaction: runs a ``RecordContext/SavePlan``
/// on the writer's connection and returns what the context applies after the
/// commit (``SaveOutcome``).
///
/// It holds the working state the statements share — the row ids of the
/// objects inserted so far, the foreign keys that named an object not inserted
/// yet, the rows that conflicted and how the merge policy resolved them — so
/// that no step passes it to another by hand. ``run()`` orders the steps:
/// the rows the deletions left to the store (``PendingCascade``), then the
/// plan's deletions (they may free unique values), updates, conflicts,
/// inserts, and last the foreign keys deferred by any of these and the
/// many-to-many links, which need every new row id. The updates, and the
/// inserts with what follows them, each run inside a
/// ``DeferredSearchIndexing``, which indexes their searchable text in bulk.
struct SaveTransaction {
    typealias PlannedRow = RecordContext.PlannedRow

    let context: RecordContext
    let connection: Connection
    let plan: RecordContext.SavePlan
    /// Whether the model has relationships: only then are new row ids kept
    /// by object and foreign keys written.
    private let relationships: Bool

    /// Each inserted object with its row id, in the plan's order.
    var inserted: [(object: any Entity, rowID: Int64)] = []
    /// For models with relationships: the row ids of the inserted objects by
    /// object, so that foreign keys can name them.
    var newRowIDs: [ObjectIdentifier: Int64] = [:]
    /// To-one columns that named an object not inserted yet when their row
    /// was written: set once every insert ran.
    var deferredForeignKeys: [(object: any Entity, entity: EntityDescription, column: Int)] = []
    /// Rows the update and delete statements left alone.
    var conflicts = SaveConflicts()
    /// Objects whose conflict the merge policy resolved, by object.
    var resolved: [ObjectIdentifier: (object: any Entity, resolution: ConflictResolution)] = [:]
    /// What the store-side cascade deleted; nil when the plan had none.
    var cascaded: CascadeOutcome?
    /// The statements of the deletions by row-id list.
    var rowIDLists = RowIDListDeletes()
    /// Rows the save meant to delete that another writer had deleted
    /// already: the context forgets their objects, but this transaction did
    /// not delete them, so its published change set and history leave them out.
    var goneBefore: [RecordID] = []
    /// Rows whose deletion `.storeTrumps` took back (``ConflictResolution/keep``),
    /// a store-side cascade's included: once every statement of the save ran,
    /// each is detached from a one-to-one partner that no longer names it
    /// (``detachKeptFromFormerPartners()``).
    var kept: [(entity: EntityDescription, rowID: Int64)] = []
    /// Objects on either side of a one-to-one whose stored value won under
    /// `.storeTrumps`: the resolved object, the partner it named here and
    /// the one the store names (``detachUnpairedSides()``).
    var pairedSides: [any Entity] = []
    /// The owners in counted lists that conflicting rows named in the store
    /// when the merge policy met them, by entity name
    /// (``checkCountsInStore()``).
    var conflictOwners: [String: Set<Int64>] = [:]

    init(_ context: RecordContext, _ plan: RecordContext.SavePlan, on connection: Connection) {
        self.context = context
        self.connection = connection
        self.plan = plan
        relationships = context.store.model.hasRelationships
    }

    /// Runs the plan's statements, and returns what they did. Statements are
    /// looked up once per entity (or per set of changed columns), not once
    /// per object.
    ///
    /// - Throws: whatever a statement throws, or `.conflict` under the
    ///   `.error` merge policy; the transaction then rolls back.
    consuming func run() throws -> SaveOutcome {
        // First, whatever the merge policy: no statement of the plan writes
        // one of these rows (see ``PendingCascade``), and deleting the rows
        // holding foreign keys before the rows they name leaves SQLite no
        // deferred violation to count.
        try deleteStoreCascade()
        try executeDeletes()
        // The deletions' conflicts are resolved before any update runs: a row
        // the merge policy deletes must be gone before an update takes one of
        // its unique values, and under `.error` the conflict is what the save
        // reports, not the unique index an update then meets.
        if !conflicts.deletes.isEmpty || !conflicts.cascade.isEmpty {
            try resolve()
            conflicts.deletes.removeAll()
            conflicts.cascade.removeAll()
        }
        try DeferredSearchIndexing(updates: plan.updates, in: context, on: connection).run {
            try executeUpdates()
            return []
        }
        if !conflicts.isEmpty { try resolve() }
        var relinked: (relinked: [(id: RecordID, table: JoinTable)], versioned: [any Entity]) = ([], [])
        try DeferredSearchIndexing(inserts: plan.inserts, in: context, on: connection).run {
            try executeInserts()
            if relationships {
                try writeDeferredForeignKeys()
                try detachKeptFromFormerPartners()
                try detachUnpairedSides()
                relinked = try writeJoins()
            }
            return inserted
        }
        try checkCountsInStore()
        return SaveOutcome(
            inserted: inserted, relinked: relinked.relinked, relinkVersioned: relinked.versioned, resolved: resolved,
            cascaded: cascaded, goneBefore: goneBefore)
    }
}

/// What a save's transaction did, which the context applies after the
/// commit. Nothing changes it once ``SaveTransaction/run()`` returns it.
struct SaveOutcome {
    /// Each inserted object with its new row id, in the plan's order.
    let inserted: [(object: any Entity, rowID: Int64)]
    /// Records whose many-to-many links changed, reported as updated, each
    /// with the join table seen from its side.
    let relinked: [(id: RecordID, table: JoinTable)]
    /// Saved objects whose rows only their links moved to a new version.
    let relinkVersioned: [any Entity]
    /// Objects whose conflict the merge policy resolved, by object: what
    /// the context does with each after the commit.
    let resolved: [ObjectIdentifier: (object: any Entity, resolution: ConflictResolution)]
    /// What the store-side cascades deleted and cleared; nil when the plan
    /// had none.
    let cascaded: CascadeOutcome?
    /// Rows planned for deletion that were gone already (``SaveTransaction/goneBefore``).
    let goneBefore: [RecordID]
}

// MARK: Statements

extension SaveTransaction {
    /// How many rows one `DELETE … WHERE "Z_PK" IN (…)` of a save removes at
    /// most: a conflict makes every row of its batch a suspect to read again.
    static let deleteBatchSize = 500

    /// Deletes rows by primary key and version: one statement per object for
    /// one, one per batch of ``deleteBatchSize`` rows at one version for
    /// more (one per object, the plain path, under the store's
    /// `deletesRowByRow`). The plan's deletions are in table order, so each
    /// batch is one entity's. Rows a statement did not delete are conflicts.
    private mutating func executeDeletes() throws {
        let deletes = plan.deletes
        var start = 0
        while start < deletes.count {
            let entityID = deletes[start].entity
            var end = start + 1
            while end < deletes.count, end - start < Self.deleteBatchSize, deletes[end].entity == entityID { end += 1 }
            let entity = try context.entity(for: type(of: deletes[start].object))
            if end - start == 1 || context.store.deletesRowByRow {
                try deleteOneByOne(deletes[start..<end], entity)
            } else {
                let batch = deletes[start..<end]
                // Rows read together are usually at one version (1, never updated).
                let version = batch[start].version
                if batch.allSatisfy({ $0.version == version }) {
                    try deleteRows(batch, at: version, entity)
                } else {
                    for (version, rows) in Dictionary(grouping: batch, by: \.version).sorted(by: { $0.key < $1.key }) {
                        try deleteRows(rows, at: version, entity)
                    }
                }
            }
            start = end
        }
    }

    /// Deletes `rows`, all read at `version`, by row-id list
    /// (``RowIDListDeletes``) inside a savepoint. When fewer are deleted,
    /// that is undone and the rows are deleted one by one, so that exactly
    /// the rows left are conflicts (a row another writer deleted already is
    /// then told from one this save deleted).
    private mutating func deleteRows(
        _ rows: some Collection<PlannedRow>, at version: Int64, _ entity: EntityDescription
    ) throws {
        try connection.cachedStatement(Self.batchSavepointSQL).run()
        let deleted = try rowIDLists.delete(rows.map(\.rowID), at: version, of: entity, on: connection)
        if deleted < rows.count {
            try connection.cachedStatement(Self.batchRollbackSQL).run()
            try deleteOneByOne(rows, entity)
        }
        try connection.cachedStatement(Self.batchReleaseSQL).run()
    }

    /// Deletes `rows` one statement each — the plain path, which the
    /// batches fall back to — noting each row left as a conflict.
    private mutating func deleteOneByOne(_ rows: some Collection<PlannedRow>, _ entity: EntityDescription) throws {
        let single = try connection.cachedStatement(entity.deleteSQL)
        for row in rows {
            single.rewind()
            try single.bind(.integer(row.rowID), at: 1)
            try single.bind(.integer(row.version), at: 2)
            try single.run()
            if connection.changes == 0 { conflicts.deletes.append(row) }
        }
    }

    static let batchSavepointSQL = "SAVEPOINT literecord_batch"
    static let batchRollbackSQL = "ROLLBACK TO literecord_batch"
    static let batchReleaseSQL = "RELEASE literecord_batch"

    /// An update statement's cache key: the entity and the columns it sets.
    private struct UpdateKey: Hashable {
        let entity: ObjectIdentifier
        let changes: AttributeMask
    }

    /// A statement, the columns it sets (in parameter order), which of them
    /// store canonical text (as parameter offsets; nil for none), and the
    /// first column that is a to-one's foreign key (`Int.max` for none).
    private typealias UpdateStatement = (statement: Statement, indexes: [Int], canonicalText: [Int]?, attributeCount: Int)

    /// One `UPDATE` per object, writing only its changed columns. Objects that
    /// changed the same columns of the same entity share a statement. A row
    /// the statement leaves alone was changed or deleted since it was read: a
    /// conflict.
    private mutating func executeUpdates() throws {
        var statements: [UpdateKey: UpdateStatement] = [:]
        let arena = BindingArena()
        defer { arena.finish(statements.values.map(\.statement)) }
        let updates = plan.updates
        // Updates that met a unique index, with the error each met.
        var postponed: [(update: PlannedRow, error: SQLiteError)] = []
        var start = updates.startIndex
        // Run by run of rows that share a statement (the plan keeps an
        // entity's rows together, and their changes are mostly alike): the
        // statement and its columns are looked up once per run, where
        // copying them per row retained its arrays each time.
        while start < updates.endIndex {
            var end = start + 1
            while end < updates.endIndex, updates[end].changesTheSameColumns(as: updates[start]) { end += 1 }
            let update = try cachedUpdateStatement(for: updates[start], in: &statements)
            for index in start..<end {
                // A fresh statement is reset already; rewinding it does nothing.
                update.statement.rewind()
                arena.beginRow()
                // The row's fields, not the row: passing it copied its mask.
                try bind(
                    updates[index].object, updates[index].rowID, updates[index].version, to: update.statement,
                    update.indexes, update.canonicalText, update.attributeCount, arena)
                do {
                    try update.statement.run()
                } catch let error as SQLiteError where error.isConstraintViolation {
                    postponed.append((updates[index], error))
                    continue
                }
                if connection.changes == 0 { conflicts.updates.append(updates[index]) }
            }
            start = end
        }
        if !postponed.isEmpty { try runPostponedUpdates(postponed, &statements, arena) }
    }

    /// An update may take a unique value that a row later in the plan gives
    /// up (Docs/Concurrency.md): those that met an index run again, in
    /// rounds, while a round writes one. What is left is refused — an
    /// exchange of values, or a value another record keeps.
    private mutating func runPostponedUpdates(
        _ first: [(update: PlannedRow, error: SQLiteError)], _ statements: inout [UpdateKey: UpdateStatement], _ arena: BindingArena
    ) throws {
        var postponed = first
        while !postponed.isEmpty {
            var left: [(update: PlannedRow, error: SQLiteError)] = []
            for (update, _) in postponed {
                let found = try cachedUpdateStatement(for: update, in: &statements)
                found.statement.rewind()
                arena.beginRow()
                try bind(
                    update.object, update.rowID, update.version, to: found.statement, found.indexes, found.canonicalText,
                    found.attributeCount, arena)
                do {
                    try found.statement.run()
                } catch let error as SQLiteError where error.isConstraintViolation {
                    left.append((update, error))
                    continue
                }
                if connection.changes == 0 { conflicts.updates.append(update) }
            }
            if left.count == postponed.count {
                guard !conflicts.updates.isEmpty else { throw left[0].error }
                // Every update ran: their conflicts are resolved now, as the
                // deletions' are before any update — `.error` reports the
                // conflict, not the index (Docs/Concurrency.md); the others
                // may write a record's new value, freeing the one it held —
                // and the updates left run once more.
                try resolve()
                conflicts.updates.removeAll()
            }
            postponed = left
        }
    }

    /// The statement for `update`'s entity and columns, prepared once.
    private func cachedUpdateStatement(for update: PlannedRow, in statements: inout [UpdateKey: UpdateStatement]) throws -> UpdateStatement {
        let key = UpdateKey(entity: update.entity, changes: update.changes)
        if let cached = statements[key] { return cached }
        let prepared = try updateStatement(for: update)
        statements[key] = prepared
        return prepared
    }

    /// Binds the columns of `object` an update writes (see
    /// ``UpdateStatement`` for the rest), then its row id and
    /// the version it was read at.
    @inline(__always)
    private mutating func bind(
        _ object: any Entity, _ rowID: Int64, _ version: Int64, to statement: Statement, _ indexes: [Int], _ canonicalText: [Int]?, _ attributeCount: Int,
        _ arena: BindingArena
    ) throws {
        var parameter: Int32 = 1
        for index in indexes {
            if index >= attributeCount {
                let entity = try context.entity(for: type(of: object))
                try statement.bind(foreignKeyValue(object, entity, index) ?? .null, at: parameter)
            } else {
                try statement.bind(try context.encode(object, index), at: parameter, in: arena)
            }
            parameter += 1
        }
        if let canonicalText {
            for offset in canonicalText {
                let value = try context.canonicalValue(object, indexes[offset])
                try statement.bind(value, at: Int32(offset + 1), in: arena)
            }
        }
        try statement.bind(.integer(rowID), at: parameter)
        try statement.bind(.integer(version), at: parameter + 1)
    }

    /// The versioned `UPDATE` for the columns `update` changes, and what
    /// ``executeUpdates()`` binds with it (see its `Update`).
    private func updateStatement(
        for update: PlannedRow
    ) throws -> (statement: Statement, indexes: [Int], canonicalText: [Int]?, attributeCount: Int) {
        let indexes = update.changes.indexes
        let entity = try context.entity(for: type(of: update.object))
        let canonical = entity.canonicalTextAttributes
        let offsets = indexes.indices.filter { canonical.contains(indexes[$0]) }
        let attributeCount = entity.toOneIndexes.isEmpty ? Int.max : entity.attributes.count
        let statement = try connection.cachedStatement(entity.versionedUpdateSQL(indexes))
        return (statement, indexes, offsets.isEmpty ? nil : offsets, attributeCount)
    }

    /// One `INSERT` per object, every column bound; objects of one entity
    /// share a statement (two: one names the record id, the other leaves it
    /// to SQLite where SQLite picks the same, see ``RecordIDAllocator``).
    /// Records each object's row id (and, with relationships, keeps it by
    /// object for the foreign keys naming it). The plan lists inserts in
    /// runs of one entity; each run looks its statements up once.
    private mutating func executeInserts() throws {
        var ids = RecordIDAllocator(namingEvery: context.store.namesEveryRecordID)
        var used: [Statement] = []
        inserted.reserveCapacity(plan.inserts.count)
        let arena = BindingArena()
        defer { arena.finish(used) }
        let inserts = plan.inserts
        var start = inserts.startIndex
        while start < inserts.endIndex {
            let type = Swift.type(of: inserts[start])
            var end = start + 1
            while end < inserts.endIndex, Swift.type(of: inserts[end]) == type { end += 1 }
            let entity = try context.entity(for: type)
            let statements = (
                picking: try connection.cachedStatement(entity.insertPickingIDSQL), naming: try connection.cachedStatement(entity.insertSQL)
            )
            used += [statements.picking, statements.naming]
            var cursor = try ids.open(entity, on: connection)
            try insertRun(inserts[start..<end], entity, statements, &cursor, arena)
            ids.close(cursor)
            start = end
        }
        try ids.record(on: connection)
    }

    /// Inserts a run of objects of one entity.
    private mutating func insertRun(
        _ objects: ArraySlice<any Entity>, _ entity: EntityDescription, _ statements: (picking: Statement, naming: Statement),
        _ cursor: inout RecordIDAllocator.Cursor, _ arena: BindingArena
    ) throws {
        let count = entity.attributes.count
        let canonical = entity.canonicalTextAttributes
        let hasToOnes = !entity.toOneIndexes.isEmpty
        let key = Int32(entity.columnCount + 1)
        for object in objects {
            let newID = cursor.next()
            let statement = newID == nil ? statements.picking : statements.naming
            statement.rewind()
            arena.beginRow()
            // Each attribute is encoded and bound once: canonical text in
            // its stored form (`canonical` is in ascending order).
            var nextCanonical = 0
            for index in 0..<count {
                let value: SQLValue
                if nextCanonical < canonical.count, canonical[nextCanonical] == index {
                    value = try context.canonicalValue(object, index)
                    nextCanonical += 1
                } else {
                    value = try context.encode(object, index)
                }
                try statement.bind(value, at: Int32(index + 1), in: arena)
            }
            if hasToOnes {
                for column in count..<entity.columnCount {
                    try statement.bind(foreignKeyValue(object, entity, column) ?? .null, at: Int32(column + 1))
                }
            }
            if let newID { try statement.bind(.integer(newID), at: key) }
            try statement.run()
            let rowID = newID ?? connection.lastInsertedRowID
            cursor.took(rowID)
            inserted.append((object, rowID))
            if relationships { newRowIDs[ObjectIdentifier(object)] = rowID }
        }
    }
}
