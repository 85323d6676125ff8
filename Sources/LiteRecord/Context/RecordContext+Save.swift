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
            let outcome = try SaveTransaction(self, plan, on: connection).run()
            let changes = changeSet(plan, outcome)
            // Published and recorded: what the commit wrote. The context's own
            // merges also hear of the rows found gone, so that they forget them.
            var written = changes
            if !outcome.goneBefore.isEmpty {
                let gone = Set(outcome.goneBefore)
                written.deleted.removeAll { gone.contains($0) }
            }
            store.noteCommitted(written, by: self) { historyNames(plan, outcome) }
            return (outcome, changes)
        }
        apply(plan, outcome: outcome, changes: changes)
        if !plan.inserts.isEmpty { tellChildrenOfSavedPushes() }
    }

    /// The work of one save, collected before anything is written.
    struct SavePlan {
        var inserts: [any Entity]
        /// Saved objects to update and the attributes to write, by entity and
        /// then row id.
        var updates: [PlannedRow]
        /// Saved objects to delete, by entity and then row id.
        var deletes: [PlannedRow]
        /// The rows the deletions left to the store (``PendingCascade``).
        var storeCascade = StoreCascade()

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
            self.init(object, version: state.version, rowID: rowID, changes: changes)
        }

        /// The form for a save's hot loops, which read `version` in place
        /// (``Entity/withState(_:)``) rather than copy the whole state.
        init(_ object: any Entity, version: Int64, rowID: Int64, changes: AttributeMask = AttributeMask()) {
            self.object = object
            entity = ObjectIdentifier(type(of: object))
            self.rowID = rowID
            self.version = version
            self.changes = changes
        }

        /// Whether `other` is of the same entity and changes the same
        /// columns, so that one `UPDATE` writes both. A method, so that the
        /// rows are compared in place, without copying their masks out.
        @inline(__always)
        func changesTheSameColumns(as other: PlannedRow) -> Bool {
            entity == other.entity && changes == other.changes
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

    private func prepareSave() throws(LiteRecordError) -> SavePlan {
        let changed = try runWillSave()
        // Before the deletions are collected: reading the owners' lists
        // loads the doomed rows they hold as deleted objects.
        if store.model.hasRelationships, !storeCascade.isEmpty { try noteStoreCascadeCountedOwners() }

        var updates: [PlannedRow] = []
        updates.reserveCapacity(changed.count)
        for object in changed {
            // An untracked object's listed changes (its to-ones) are written with
            // its attributes below: one UPDATE per row, as the version check needs.
            guard type(of: object).tracksChanges,
                let row = object.withState({ state in
                    state.phase == .managed ? state.rowID.map { PlannedRow(object, version: state.version, rowID: $0, changes: state.changes) } : nil
                })
            else { continue }
            updates.append(row)
        }
        for object in untracked.values where object.statePhase == .managed {
            let state = object.recordState
            var changes = AttributeMask(changedIndexesUntracked(object))
            changes.formUnion(state.changes)
            guard !changes.isEmpty, let rowID = state.rowID else { continue }
            updates.append(PlannedRow(object, state, rowID: rowID, changes: changes))
        }
        var deletes = plannedDeletions()
        PlannedRow.sortInTableOrder(&updates)
        var inserts = inserted
        if store.model.hasRelationships {
            try checkForgottenReferences(inserts: inserts, updates: updates)
            while true {
                let listed = lists.deleted.count
                try checkRelationshipRules(inserts: inserts, updates: updates, deletes: deletes)
                if !storeCascade.isEmpty { try checkStoreCascadeDenyRules() }
                // A check that read a list holding rows of the store-side
                // cascade (a counted owner's) loaded them as deleted objects,
                // out of the cascade: they are this save's deletions now, and
                // their rules are checked with the others. Collected again
                // only then, not on every save.
                guard lists.deleted.count != listed else { break }
                deletes = plannedDeletions()
            }
            inserts = insertionOrder(inserts)
        }
        var plan = SavePlan(inserts: inserts, updates: updates, deletes: deletes)
        plan.storeCascade = storeCascade
        for object in plan.inserts { try validate(object) }
        for update in plan.updates { try validate(update.object) }
        return plan
    }

    /// The objects this save deletes, in deletion order.
    private func plannedDeletions() -> [PlannedRow] {
        var deletes: [PlannedRow] = []
        deletes.reserveCapacity(lists.deleted.count)
        for object in collectDeleted() {
            guard let row = object.withState({ state in state.rowID.map { PlannedRow(object, version: state.version, rowID: $0) } }) else {
                continue
            }
            deletes.append(row)
        }
        sortForDeletion(&deletes)
        return deletes
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
        guard case .text(let original) = value, let stored = SQLValue.normalized(original) else { return value }
        if !stored.utf8.elementsEqual(original.utf8) { object.recordState.isStale = true }
        return .text(stored)
    }

    private func encodingError(_ error: LiteRecordError, _ object: any Entity, _ index: Int) -> LiteRecordError {
        let entity = type(of: object)
        return LiteRecordError(error.kind, "\(entity.entityName).\(entity.attributes[index].name): \(error.message)")
    }

    /// Puts deletions in the order ``SaveTransaction/executeDeletes()`` runs
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

    /// The records a plan's statements wrote.
    private func changeSet(_ plan: SavePlan, _ outcome: SaveOutcome) -> ChangeSet {
        var changes = ChangeSet(
            inserted: Self.recordIDs(outcome.inserted.lazy.map { ($0.object, $0.rowID) }),
            updated: Self.recordIDs(plan.updates.lazy.map { ($0.object, $0.rowID) }),
            deleted: Self.recordIDs(plan.deletes.lazy.map { ($0.object, $0.rowID) }))
        if !outcome.resolved.isEmpty {
            // A resolved conflict may have written nothing, or not deleted.
            let unwritten = Set(outcome.resolved.values.filter { !$0.resolution.wrote }.compactMap { $0.object.recordID })
            changes.updated.removeAll { unwritten.contains($0) }
            changes.deleted.removeAll { unwritten.contains($0) }
        }
        // No row of the store-side cascade is one the plan writes.
        if let cascaded = outcome.cascaded {
            changes.deleted += cascaded.deleted
            let listed = Set(changes.updated + changes.inserted)
            changes.updated += Set(cascaded.detached.map(\.id)).subtracting(listed).sorted { $0.rowID < $1.rowID }
        }
        if !outcome.relinked.isEmpty {
            var listed = Set(changes.inserted + changes.updated + changes.deleted)
            for (id, _) in outcome.relinked where listed.insert(id).inserted { changes.updated.append(id) }
        }
        return changes
    }

    /// For the store's history: the attributes and relationships each update
    /// of the save wrote, by record.
    private func historyNames(_ plan: SavePlan, _ outcome: SaveOutcome) -> UpdatedNames {
        var names: UpdatedNames
        if outcome.relinked.isEmpty, outcome.resolved.isEmpty, let first = plan.updates.first,
            !plan.updates.contains(where: { $0.entity != first.entity || $0.changes != first.changes }),
            let entity = model.entity(named: type(of: first.object).entityName)
        {
            // Every update wrote the same attributes of one entity (the usual
            // save), and no other record was updated (a many-to-many link).
            names = UpdatedNames(everyRecordWrote: first.changes.indexes.map { entity.columnName($0) })
        } else {
            names = UpdatedNames(reservingCapacity: plan.updates.count)
            // Updates come by entity, mostly writing the same attributes: the
            // list is looked up again only when the entity or the attributes change.
            var current: (entity: ObjectIdentifier, changes: AttributeMask, name: String, list: Int)?
            for update in plan.updates {
                if !outcome.resolved.isEmpty, let resolution = outcome.resolved[ObjectIdentifier(update.object)]?.resolution {
                    // A resolved conflict wrote what its merge policy left.
                    guard case .reread(true, let columns) = resolution,
                        let entity = model.entity(named: type(of: update.object).entityName)
                    else { continue }
                    names.add(columns.map { entity.columnName($0) }, to: RecordID(entityName: entity.name, rowID: update.rowID))
                    continue
                }
                if current?.entity != update.entity || current?.changes != update.changes {
                    guard let entity = model.entity(named: type(of: update.object).entityName) else {
                        current = nil
                        continue
                    }
                    let list = names.list(of: update.changes.indexes.map { entity.columnName($0) })
                    current = (update.entity, update.changes, entity.name, list)
                }
                guard let current else { continue }
                names.add(list: current.list, to: RecordID(entityName: current.name, rowID: update.rowID))
            }
        }
        for (id, table) in outcome.relinked {
            if let name = model.relationshipName(joining: table, from: id.entityName) { names.add([name], to: id) }
        }
        for (id, relationship) in outcome.cascaded?.detached ?? [] { names.add([relationship], to: id) }
        return names
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
        for (object, rowID) in outcome.inserted {
            let snapshot = type(of: object).tracksChanges ? nil : encodedValues(object)
            registerInserted(object, rowID: rowID, snapshot: snapshot)
            if keepsStoredValues { object.recordState.storedValues = currentColumnValues(object) }
        }
        inserted.removeAll()
        pendingJoins.removeAll()
        countedOwners.removeAll()
        let resolved = outcome.resolved
        for update in plan.updates {
            update.object.recordState.clearChanges()
            update.object.recordState.listings.remove(.updated)
            // A resolved conflict is read again below instead.
            if !resolved.isEmpty, resolved[ObjectIdentifier(update.object)] != nil { continue }
            recordVersionBump(update.object, to: update.version + 1, columns: update.changes)
            if !type(of: update.object).tracksChanges { update.object.recordState.snapshot = encodedValues(update.object) }
            if keepsStoredValues { update.object.recordState.storedValues = currentColumnValues(update.object, readingUnread: true) }
        }
        for object in outcome.relinkVersioned {
            recordVersionBump(object, to: object.withState({ $0.version }) + 1, columns: AttributeMask())
        }
        for deletion in plan.deletes {
            if !resolved.isEmpty, resolved[ObjectIdentifier(deletion.object)] != nil { continue }
            unregister(deletion.object)
        }
        if !resolved.isEmpty { settle(resolved.values) }
        // No object stands for a row the store-side cascade deleted.
        storeCascade = StoreCascade()
        // The deletions are written (or taken back and read again).
        slotsChangedWhileDeleted.removeAll()
        versionsMergedWhileDeleted.removeAll()
        // Every entry of the lists that is still this context's was just
        // planned, so its flag is now clear: written updates above, deleted
        // objects by `unregister`.
        assert(lists.updated.allSatisfy { !($0.stateBelongs(to: self) && $0.withState({ $0.listings.contains(.updated) })) })
        assert(lists.deleted.allSatisfy { !($0.stateBelongs(to: self) && $0.withState({ $0.listings.contains(.deleted) })) })
        lists.removeAllWritten()
        if !changes.isEmpty {
            store.logger.debug("saved", metadata: ["changes": "\(changes)"])
            didSave?(changes)
        }
    }

    /// Records that a write of this context moved the object's row to
    /// `version`.
    ///
    /// The row-version rule: every write of a row (a save's `UPDATE`, a
    /// many-to-many link change, a `deleteAll` clearing a to-one) moves its
    /// version on by exactly one, in the same statement, and the context that
    /// wrote it records the bump here, once per write. The object takes the
    /// new version, so that its next save meets no conflict and a fetch finds
    /// nothing to refresh (`version != state.version` in `fetchedObject`).
    /// A `write` context also counts the bump, with the columns written, in
    /// `writtenColumns`: the main context's object is unchanged by any other
    /// writer exactly when the row is at `state.version + written.versions`
    /// (`reload` in RecordStack+Write.swift). `columns` nil counts nothing.
    ///
    /// ```swift
    /// recordVersionBump(update.object, to: update.version + 1, columns: update.changes)
    /// ```
    @inline(__always)
    func recordVersionBump(_ object: any Entity, to version: Int64, columns: AttributeMask?) {
        object.recordState.version = version
        if let columns, writtenColumns != nil, let id = object.recordID {
            countWrite(of: id, columns: columns)
        }
    }

    /// Counts one version bump of a row in `writtenColumns` (a `write`
    /// context only), for a row this context wrote without holding its
    /// object — `deleteAll` clearing a to-one of a row never fetched here.
    /// ``recordVersionBump(_:to:columns:)`` calls it for the objects it holds.
    func countWrite(of id: RecordID, columns: AttributeMask) {
        guard writtenColumns != nil else { return }
        writtenColumns?[id, default: WrittenColumns()].add(columns)
    }

    /// Notes the value a to-one of a deleted object held before a change
    /// (see ``slotsChangedWhileDeleted``); the first change keeps it.
    func noteSlotChangedWhileDeleted(_ object: any Entity, _ index: Int, _ value: RelationValue) {
        let id = ObjectIdentifier(object)
        guard slotsChangedWhileDeleted[id]?.slots[index] == nil else { return }
        if slotsChangedWhileDeleted[id] == nil { slotsChangedWhileDeleted[id] = (object, [:]) }
        slotsChangedWhileDeleted[id]?.slots[index] = value
    }

    /// For ``rollback()``, once the deleted objects are restored: gives back
    /// the to-ones changed while they were deleted. A value naming an object
    /// the rollback dropped (an insert) is read from the store instead.
    private func restoreSlotsChangedWhileDeleted() {
        let restored = slotsChangedWhileDeleted.values
        slotsChangedWhileDeleted.removeAll()
        for (object, slots) in restored {
            let state = object.recordState
            guard state.belongs(to: self), state.phase == .managed else { continue }
            for (index, value) in slots {
                var kept = value
                if case .toOne(let target?) = value {
                    let targetState = target.recordState
                    if !targetState.belongs(to: self) || targetState.phase == .unmanaged { kept = .unloaded }
                }
                RelationGraph.storeChange(kept, in: object, index)
            }
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
        countedOwners.removeAll()
        pendingCascades.removeAll()
        storeCascade = StoreCascade()
        for object in inserted { object.recordState.detach() }
        inserted.removeAll()
        let restored = collectDeleted()
        for object in restored {
            object.recordState.phase = .managed
            // Only a deletion this rollback takes back, and never backwards:
            // a later read (a refresh) may have moved the version on since.
            if let merged = versionsMergedWhileDeleted[ObjectIdentifier(object)], merged.version > object.withState({ $0.version }) { object.recordState.version = merged.version }
        }
        versionsMergedWhileDeleted.removeAll()
        restoreSlotsChangedWhileDeleted()
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
        // A deletion taken back leaves an unchanged object that was none
        // when the policy became `.storeTrumps`, so it kept no stored values:
        // without them its next edit counted as a property the store
        // changed, which `.storeTrumps` dropped (model seed 251710 at
        // length 60).
        if mergePolicy == .storeTrumps { keepStoredValues(of: restored.filter { $0.withState { $0.storedValues == nil } }) }
    }
}
