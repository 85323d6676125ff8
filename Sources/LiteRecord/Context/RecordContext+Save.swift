extension RecordContext {
    /// Writes every insert, change and deletion in one transaction.
    ///
    /// Only changed columns are written; a context without changes runs no
    /// SQL at all. When the save fails, nothing reaches the store and the
    /// context keeps its changes, so you can fix them and save again.
    ///
    /// ```swift
    /// person.age += 1
    /// try context.save()
    /// ```
    ///
    /// Every `UPDATE` and `DELETE` checks the row's version: an object changed
    /// or deleted in the store since this context read it is a conflict,
    /// which ``mergePolicy`` resolves.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.conflict` (see ``mergePolicy``;
    ///   the context keeps its changes), `.validationFailed` (a
    ///   `validateForSave()` threw, or a value cannot be stored),
    ///   `.constraintViolation` (UNIQUE, NOT NULL), `.invalidObject` (misuse
    ///   found by `insert` or `delete`), `.storeUnavailable` or `.sqlite`.
    public func save() throws {
        if let error = pendingErrors.first {
            pendingErrors.removeAll()
            throw error
        }
        guard hasChanges else { return }
        if let parent {
            try pushToParent(parent)
            return
        }
        let plan = try prepareSave()
        let (outcome, changes) = try store.write("saving \(plan.summary)") { connection in
            let outcome = try execute(plan, on: connection)
            let changes = changeSet(plan, outcome)
            store.noteCommitted(changes)
            return (outcome, changes)
        }
        apply(plan, outcome: outcome, changes: changes)
    }

    /// The work of one save, collected before anything is written.
    struct SavePlan {
        var inserts: [any Entity]
        /// Saved objects to update and the attributes to write, by entity and
        /// then row id.
        var updates: [PlannedRow]
        /// Saved objects to delete, by entity and then row id.
        var deletes: [PlannedRow]

        var summary: String {
            "\(inserts.count) inserted, \(updates.count) updated and \(deletes.count) deleted objects"
        }
    }

    /// A saved object a plan updates or deletes.
    struct PlannedRow {
        let object: any Entity
        let entity: ObjectIdentifier
        let rowID: Int64
        /// The row's version the object was read at, which the statement checks.
        let version: Int64
        /// The attributes to write (empty for a deletion).
        let changes: AttributeMask

        init(_ object: any Entity, _ state: RecordState, rowID: Int64, changes: AttributeMask = AttributeMask()) {
            self.object = object
            entity = ObjectIdentifier(type(of: object))
            self.rowID = rowID
            version = state.version
            self.changes = changes
        }

        func precedes(_ other: PlannedRow) -> Bool {
            entity == other.entity ? rowID < other.rowID : entity < other.entity
        }

        /// Puts rows in table order. Writing in row id order keeps SQLite on
        /// neighbouring pages; in any other order a large save touches pages
        /// all over the table, and once they exceed the page cache each
        /// statement reads and spills pages again (three times slower at
        /// 100,000 rows). Rows usually come in order already (objects changed
        /// or deleted in the order they were fetched): checked in one pass.
        static func sortInTableOrder(_ rows: inout [PlannedRow]) {
            var index = rows.startIndex + 1
            while index < rows.endIndex, !rows[index].precedes(rows[index - 1]) { index += 1 }
            if index < rows.endIndex { rows.sort { $0.precedes($1) } }
        }
    }

    /// What the transaction produced: the row ids of the inserted objects.
    struct SaveOutcome {
        var insertedRowIDs: [Int64] = []
        /// For models with relationships: the row ids of the inserted objects
        /// by object, so that foreign keys can name them.
        var newRowIDs: [ObjectIdentifier: Int64] = [:]
        /// To-one columns that named an object not inserted yet when their row
        /// was written: set once every insert ran.
        var deferredForeignKeys: [(object: any Entity, entity: EntityDescription, column: Int)] = []
        /// Records whose many-to-many links changed, reported as updated.
        var relinked: [RecordID] = []
        /// Saved objects whose rows only their links moved to a new version.
        var relinkVersioned: [any Entity] = []
        /// Objects whose conflict the merge policy resolved, by object: what
        /// the context does with each after the commit.
        var resolved: [ObjectIdentifier: (object: any Entity, resolution: ConflictResolution)] = [:]
    }

    private func prepareSave() throws(LiteRecordError) -> SavePlan {
        let changed = try runWillSave()

        var updates: [PlannedRow] = []
        updates.reserveCapacity(changed.count)
        for object in changed {
            let state = object.recordState
            guard state.phase == .managed, let rowID = state.rowID else { continue }
            // An untracked object's listed changes (its to-ones) are written with
            // its attributes below: one UPDATE per row, as the version check needs.
            guard type(of: object).tracksChanges else { continue }
            updates.append(PlannedRow(object, state, rowID: rowID, changes: state.changes))
        }
        for object in untracked.values where object.recordState.phase == .managed {
            let state = object.recordState
            var changes = AttributeMask(changedIndexesUntracked(object))
            changes.formUnion(state.changes)
            guard !changes.isEmpty, let rowID = state.rowID else { continue }
            updates.append(PlannedRow(object, state, rowID: rowID, changes: changes))
        }
        var deletes: [PlannedRow] = []
        deletes.reserveCapacity(deletedList.count)
        for object in collectDeleted() {
            let state = object.recordState
            guard let rowID = state.rowID else { continue }
            deletes.append(PlannedRow(object, state, rowID: rowID))
        }
        PlannedRow.sortInTableOrder(&updates)
        sortForDeletion(&deletes)
        var inserts = inserted
        if store.model.hasRelationships {
            try checkRelationshipRules(inserts: inserts, updates: updates, deletes: deletes)
            inserts = insertionOrder(inserts)
        }
        let plan = SavePlan(inserts: inserts, updates: updates, deletes: deletes)
        for object in plan.inserts { try validate(object) }
        for update in plan.updates { try validate(update.object) }
        return plan
    }

    @inline(__always)
    func encode(_ object: any Entity, _ index: Int) throws -> SQLValue {
        do {
            return try object.encodeAttribute(at: index)
        } catch let error as LiteRecordError {
            throw encodingError(error, object, index)
        }
    }

    /// The stored form of an attribute kept as canonical (NFC) text. When that
    /// form differs from the object's value byte for byte (though not for
    /// Swift's `==`), the object is marked stale, so that the next fetch
    /// reads back what the store holds even though the row's version is the
    /// object's own.
    func canonicalValue(_ object: any Entity, _ index: Int) throws -> SQLValue {
        let value = try encode(object, index)
        let canonical = value.canonicalText
        if case .text(let stored) = canonical, case .text(let original) = value, !stored.utf8.elementsEqual(original.utf8) {
            object.recordState.isStale = true
        }
        return canonical
    }

    private func encodingError(_ error: LiteRecordError, _ object: any Entity, _ index: Int) -> LiteRecordError {
        let entity = type(of: object)
        return LiteRecordError(error.kind, "\(entity.entityName).\(entity.attributes[index].name): \(error.message)")
    }

    /// Runs the plan's statements: deletions first (they may free unique
    /// values), then updates, then inserts. Statements are looked up once per
    /// entity (or per set of changed columns), not once per object.
    private func execute(_ plan: SavePlan, on connection: Connection) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        let relationships = store.model.hasRelationships
        var conflicts = SaveConflicts()
        try executeDeletes(plan.deletes, on: connection, conflicts: &conflicts)
        try executeUpdates(plan.updates, on: connection, outcome: &outcome, conflicts: &conflicts)
        if !conflicts.isEmpty { try resolve(conflicts, on: connection, outcome: &outcome) }

        // The tuple is copied once per object, so it holds no more references
        // than it must: `toOnes` is a count, not the entity description, and
        // `canonicalText` is nil rather than empty.
        typealias Insert = (statement: Statement, count: Int, canonicalText: [Int]?, toOnes: Int)
        var insertStatements: [ObjectIdentifier: Insert] = [:]
        var current: (type: ObjectIdentifier, insert: Insert)?
        outcome.insertedRowIDs.reserveCapacity(plan.inserts.count)
        let arena = BindingArena()
        defer { arena.finish(insertStatements.values.map(\.statement)) }
        for object in plan.inserts {
            let typeID = ObjectIdentifier(type(of: object))
            let insert: Insert
            if let current, current.type == typeID {
                insert = current.insert
                insert.statement.rewind()
            } else if let cached = insertStatements[typeID] {
                insert = cached
                insert.statement.rewind()
            } else {
                let entity = try entity(for: type(of: object))
                let canonical = entity.canonicalTextAttributes
                insert = (
                    try connection.cachedStatement(entity.insertSQL), entity.attributes.count,
                    canonical.isEmpty ? nil : canonical, entity.toOneIndexes.count)
                insertStatements[typeID] = insert
            }
            current = (typeID, insert)
            arena.beginRow()
            for index in 0..<insert.count {
                try insert.statement.bind(try encode(object, index), at: Int32(index + 1), in: arena)
            }
            if let canonical = insert.canonicalText {
                for index in canonical {
                    try insert.statement.bind(try canonicalValue(object, index), at: Int32(index + 1), in: arena)
                }
            }
            if insert.toOnes > 0 {
                let entity = try entity(for: type(of: object))
                for column in insert.count..<entity.columnCount {
                    let value = foreignKeyValue(object, entity, column, &outcome)
                    try insert.statement.bind(value ?? .null, at: Int32(column + 1))
                }
            }
            try insert.statement.run()
            let rowID = connection.lastInsertedRowID
            outcome.insertedRowIDs.append(rowID)
            if relationships { outcome.newRowIDs[ObjectIdentifier(object)] = rowID }
        }
        if relationships {
            try writeDeferredForeignKeys(outcome, on: connection)
            (outcome.relinked, outcome.relinkVersioned) = try writeJoins(plan, outcome, on: connection)
        }
        return outcome
    }

    /// One `UPDATE` per object, writing only its changed columns. Objects that
    /// changed the same columns of the same entity share a statement. A row
    /// the statement leaves alone was changed or deleted since it was read: a
    /// conflict, collected in `conflicts`.
    private func executeUpdates(
        _ updates: [PlannedRow], on connection: Connection, outcome: inout SaveOutcome, conflicts: inout SaveConflicts
    ) throws {
        struct Key: Hashable {
            let entity: ObjectIdentifier
            let changes: AttributeMask
        }
        /// A statement, the columns it sets (in parameter order), which of them
        /// store canonical text (as parameter offsets; nil for none, so that
        /// copying the tuple per object costs no retain), and the first column
        /// that is a to-one's foreign key (`Int.max` for none).
        typealias Update = (statement: Statement, indexes: [Int], canonicalText: [Int]?, attributeCount: Int)
        var statements: [Key: Update] = [:]
        // The parts of the current statement's plan, kept apart: copying a
        // whole plan tuple per object would retain its arrays each time.
        var current: (key: Key, statement: Statement, indexes: [Int], canonicalText: [Int]?, attributeCount: Int)?
        let arena = BindingArena()
        defer { arena.finish(statements.values.map(\.statement)) }
        for update in updates {
            let key = Key(entity: update.entity, changes: update.changes)
            let statement: Statement
            let indexes: [Int]
            let canonicalText: [Int]?
            let attributeCount: Int
            if let current, current.key == key {
                (statement, indexes, canonicalText, attributeCount) =
                    (current.statement, current.indexes, current.canonicalText, current.attributeCount)
                statement.rewind()
            } else if let cached = statements[key] {
                (statement, indexes, canonicalText, attributeCount) = cached
                statement.rewind()
            } else {
                indexes = update.changes.indexes
                let entity = try entity(for: type(of: update.object))
                let canonical = entity.canonicalTextAttributes
                let offsets = indexes.indices.filter { canonical.contains(indexes[$0]) }
                canonicalText = offsets.isEmpty ? nil : offsets
                attributeCount = entity.toOneIndexes.isEmpty ? Int.max : entity.attributes.count
                statement = try connection.cachedStatement(entity.versionedUpdateSQL(indexes))
                statements[key] = (statement, indexes, canonicalText, attributeCount)
            }
            current = (key, statement, indexes, canonicalText, attributeCount)
            arena.beginRow()
            var parameter: Int32 = 1
            for index in indexes {
                if index >= attributeCount {
                    let entity = try entity(for: type(of: update.object))
                    try statement.bind(foreignKeyValue(update.object, entity, index, &outcome) ?? .null, at: parameter)
                } else {
                    try statement.bind(try encode(update.object, index), at: parameter, in: arena)
                }
                parameter += 1
            }
            if let canonicalText {
                for offset in canonicalText {
                    try statement.bind(try canonicalValue(update.object, indexes[offset]), at: Int32(offset + 1), in: arena)
                }
            }
            try statement.bind(.integer(update.rowID), at: parameter)
            try statement.bind(.integer(update.version), at: parameter + 1)
            try statement.run()
            if connection.changes == 0 { conflicts.updates.append(update) }
        }
    }

    /// Puts deletions in the order ``executeDeletes(_:on:conflicts:)`` runs
    /// them: entity by entity, each entity's rows in row-id order (see
    /// ``PlannedRow/sortInTableOrder(_:)``), and an entity whose foreign keys
    /// name another entity before that one. Deleting the rows that hold a
    /// foreign key first leaves SQLite no violation to count: deleting the
    /// row they name first, it counts one per row pointing at it and then
    /// looks that row up again for each of them as they go.
    private func sortForDeletion(_ rows: inout [PlannedRow]) {
        guard rows.count > 1 else { return }
        let first = rows[0].entity
        if !rows.contains(where: { $0.entity != first }) {
            PlannedRow.sortInTableOrder(&rows)
            return
        }
        let ranks = store.model.deletionRanks
        // Sorted as (rank, row id, position) triples, then gathered once:
        // moving the rows themselves (an existential each) costs far more.
        var keys: [(rank: Int, rowID: Int64, position: Int)] = []
        keys.reserveCapacity(rows.count)
        var current = (entity: first, rank: ranks[first] ?? Int.max)
        for position in rows.indices {
            let entity = rows[position].entity
            if entity != current.entity { current = (entity, ranks[entity] ?? Int.max) }
            keys.append((current.rank, rows[position].rowID, position))
        }
        keys.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.rowID < $1.rowID }
        var sorted: [PlannedRow] = []
        sorted.reserveCapacity(rows.count)
        for key in keys { sorted.append(rows[key.position]) }
        rows = sorted
    }

    /// How many rows one `DELETE … WHERE "Z_PK" IN (…)` of a save removes at
    /// most: a conflict makes every row of its batch a suspect to read again.
    static let deleteBatchSize = 500

    /// Deletes rows by primary key and version: one statement per object for
    /// a few, one per batch of ``deleteBatchSize`` rows at one version for
    /// many. `deletes` is in table order, so each batch is one entity's. Rows
    /// a statement did not delete are collected in `conflicts`.
    private func executeDeletes(_ deletes: [PlannedRow], on connection: Connection, conflicts: inout SaveConflicts) throws {
        var start = 0
        while start < deletes.count {
            let entityID = deletes[start].entity
            var end = start + 1
            while end < deletes.count, end - start < Self.deleteBatchSize, deletes[end].entity == entityID { end += 1 }
            let entity = try entity(for: type(of: deletes[start].object))
            if end - start == 1 {
                let statement = try connection.cachedStatement(entity.deleteSQL)
                try statement.bind(.integer(deletes[start].rowID), at: 1)
                try statement.bind(.integer(deletes[start].version), at: 2)
                try statement.run()
                if connection.changes == 0 { conflicts.deletes.append(deletes[start]) }
            } else {
                let batch = deletes[start..<end]
                // Rows read together are usually at one version (1, never updated).
                let version = batch[start].version
                if batch.allSatisfy({ $0.version == version }) {
                    try deleteRows(batch, at: version, entity, on: connection, conflicts: &conflicts)
                } else {
                    for (version, rows) in Dictionary(grouping: batch, by: \.version).sorted(by: { $0.key < $1.key }) {
                        try deleteRows(rows, at: version, entity, on: connection, conflicts: &conflicts)
                    }
                }
            }
            start = end
        }
    }

    /// One `DELETE` of `rows`, all read at `version`. When it deletes fewer,
    /// every one of them is a possible conflict: resolving reads them again.
    private func deleteRows(
        _ rows: some Collection<PlannedRow>, at version: Int64, _ entity: EntityDescription, on connection: Connection,
        conflicts: inout SaveConflicts
    ) throws {
        let statement = try connection.cachedStatement(entity.batchDeleteSQL)
        try statement.bind(.integer(version), at: 1)
        try statement.bind(Self.jsonArray(rows.map(\.rowID)), at: 2)
        try statement.run()
        if connection.changes < rows.count { conflicts.deletes.append(contentsOf: rows) }
    }

    /// The records a plan's statements wrote.
    private func changeSet(_ plan: SavePlan, _ outcome: SaveOutcome) -> ChangeSet {
        var changes = ChangeSet(
            inserted: Self.recordIDs(zip(plan.inserts, outcome.insertedRowIDs).lazy.map { ($0, $1) }),
            updated: Self.recordIDs(plan.updates.lazy.map { ($0.object, $0.rowID) }),
            deleted: Self.recordIDs(plan.deletes.lazy.map { ($0.object, $0.rowID) }))
        if !outcome.resolved.isEmpty {
            // A resolved conflict may have written nothing, or not deleted.
            let unwritten = Set(outcome.resolved.values.filter { !$0.resolution.wrote }.compactMap { $0.object.recordID })
            changes.updated.removeAll { unwritten.contains($0) }
            changes.deleted.removeAll { unwritten.contains($0) }
        }
        if !outcome.relinked.isEmpty {
            var listed = Set(changes.inserted + changes.updated + changes.deleted)
            for id in outcome.relinked where listed.insert(id).inserted { changes.updated.append(id) }
        }
        return changes
    }

    /// The ids of saved objects, asking each entity for its name once per run
    /// of objects of that entity.
    private static func recordIDs(_ rows: some Collection<(any Entity, Int64)>) -> [RecordID] {
        var ids: [RecordID] = []
        ids.reserveCapacity(rows.count)
        var current: (entity: ObjectIdentifier, name: String)?
        for (object, rowID) in rows {
            let entity = ObjectIdentifier(type(of: object))
            let name: String
            if let current, current.entity == entity {
                name = current.name
            } else {
                name = type(of: object).entityName
            }
            current = (entity, name)
            ids.append(RecordID(entityName: name, rowID: rowID))
        }
        return ids
    }

    /// After the commit: registers inserted objects, clears change marks and
    /// forgets deleted objects, then reports the change set.
    private func apply(_ plan: SavePlan, outcome: SaveOutcome, changes: ChangeSet) {
        if let first = plan.inserts.first, plan.inserts.count > 1 {
            // Room for all of them at once rather than growing step by step.
            identityMap.table(for: type(of: first)).reserve(plan.inserts.count)
        }
        let keepsStoredValues = mergePolicy == .storeTrumps
        for (object, rowID) in zip(plan.inserts, outcome.insertedRowIDs) {
            let snapshot = type(of: object).tracksChanges ? nil : encodedValues(object)
            registerInserted(object, rowID: rowID, snapshot: snapshot)
            if keepsStoredValues { object.recordState.storedValues = currentColumnValues(object) }
        }
        inserted.removeAll()
        pendingJoins.removeAll()
        let resolved = outcome.resolved
        for update in plan.updates {
            let state = update.object.recordState
            state.changes.removeAll()
            state.listings.remove(.updated)
            // A resolved conflict is read again below instead.
            if !resolved.isEmpty, resolved[ObjectIdentifier(update.object)] != nil { continue }
            state.version = update.version + 1
            if writtenColumns != nil, let id = update.object.recordID {
                writtenColumns?[id, default: WrittenColumns()].add(update.changes)
            }
            if !type(of: update.object).tracksChanges { state.snapshot = encodedValues(update.object) }
            if keepsStoredValues { state.storedValues = currentColumnValues(update.object) }
        }
        for object in outcome.relinkVersioned {
            object.recordState.version += 1
            if writtenColumns != nil, let id = object.recordID {
                writtenColumns?[id, default: WrittenColumns()].add(AttributeMask())
            }
        }
        for deletion in plan.deletes {
            if !resolved.isEmpty, resolved[ObjectIdentifier(deletion.object)] != nil { continue }
            unregister(deletion.object)
        }
        if !resolved.isEmpty { settle(resolved.values) }
        // Every entry of the lists that is still this context's was just
        // planned, so its flag is now clear: written updates above, deleted
        // objects by `unregister`.
        assert(updatedList.allSatisfy { !($0.recordState.belongs(to: self) && $0.recordState.listings.contains(.updated)) })
        assert(deletedList.allSatisfy { !($0.recordState.belongs(to: self) && $0.recordState.listings.contains(.deleted)) })
        updatedList.removeAll()
        deletedList.removeAll()
        listsMayRepeat = []
        if !changes.isEmpty {
            store.logger.debug("saved", metadata: ["changes": "\(changes)"])
            didSave?(changes)
        }
    }

    private func registerInserted(_ object: some Entity, rowID: Int64, snapshot: [SQLValue]?) {
        register(object, rowID: rowID, snapshot: snapshot)
    }

    /// Discards every unsaved change: inserted objects are dropped, deleted
    /// ones restored, and changed ones re-read from the store.
    ///
    /// ```swift
    /// person.name = "typo"
    /// context.rollback()      // person.name is what the store holds
    /// ```
    public func rollback() {
        pendingJoins.removeAll()
        for object in inserted { object.recordState.detach() }
        inserted.removeAll()
        for object in collectDeleted() { object.recordState.phase = .managed }
        // Every loaded to-many may hold unsaved links: read them again.
        if store.model.hasRelationships { forgetToManys(touching: Set(store.model.entities.map(\.name))) }
        let changed = collectUpdated() + untracked.values.filter { isChangedUntracked($0) }
        clearChangeLists()
        pendingErrors.removeAll()
        for object in changed {
            do {
                try refetch(object)
            } catch {
                store.logger.warning("rollback could not re-read an object", metadata: ["error": "\(error)"])
            }
        }
    }
}
