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
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` (a
    ///   `validateForSave()` threw, or a value cannot be stored),
    ///   `.constraintViolation` (UNIQUE, NOT NULL), `.invalidObject` (misuse
    ///   found by `insert` or `delete`), `.storeUnavailable` or `.sqlite`.
    public func save() throws(LiteRecordError) {
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
        var updates: [(object: any Entity, indexes: [Int])]
        var deletes: [any Entity]

        var summary: String {
            "\(inserts.count) inserted, \(updates.count) updated and \(deletes.count) deleted objects"
        }
    }

    /// What the transaction produced: the row ids of the inserted objects.
    struct SaveOutcome {
        var insertedRowIDs: [Int64] = []
    }

    private func prepareSave() throws(LiteRecordError) -> SavePlan {
        // willSave may change properties, which registers more updates: call it
        // first, then collect.
        for object in inserted { object.willSave() }
        for object in Array(updated.values) { object.willSave() }
        for object in untracked.values where isChangedUntracked(object) { object.willSave() }

        var updates: [(object: any Entity, indexes: [Int])] = []
        updates.reserveCapacity(updated.count)
        for object in updated.values {
            let indexes = object.recordState.changes.indexes
            if !indexes.isEmpty { updates.append((object, indexes)) }
        }
        for object in untracked.values where object.recordState.phase == .managed {
            let indexes = changedIndexesUntracked(object)
            if !indexes.isEmpty { updates.append((object, indexes)) }
        }
        let plan = SavePlan(inserts: inserted, updates: updates, deletes: Array(deleted.values))
        for object in plan.inserts { try validate(object) }
        for (object, _) in plan.updates { try validate(object) }
        return plan
    }

    private func validate(_ object: any Entity) throws(LiteRecordError) {
        do {
            try object.validateForSave()
        } catch let error as LiteRecordError {
            throw error
        } catch {
            throw LiteRecordError(
                .validationFailed, "\(type(of: object).entityName) failed validation: \(error)")
        }
    }

    private func encode(_ object: any Entity, _ index: Int) throws -> SQLValue {
        do {
            return try object.encodeAttribute(at: index)
        } catch let error as LiteRecordError {
            let entity = type(of: object)
            throw LiteRecordError(error.kind, "\(entity.entityName).\(entity.attributes[index].name): \(error.message)")
        }
    }

    /// Runs the plan's statements: deletions first (they may free unique
    /// values), then updates, then inserts. Statements are looked up once per
    /// entity (or per set of changed columns), not once per object.
    private func execute(_ plan: SavePlan, on connection: Connection) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        try executeDeletes(plan.deletes, on: connection)

        var updateStatements: [UpdateKey: Statement] = [:]
        for (object, indexes) in plan.updates {
            guard let rowID = object.recordState.rowID else { continue }
            let key = UpdateKey(type: ObjectIdentifier(type(of: object)), indexes: indexes)
            let statement: Statement
            if let cached = updateStatements[key] {
                statement = cached
                statement.rewind()
            } else {
                statement = try connection.cachedStatement(try entity(for: type(of: object)).updateSQL(indexes))
                updateStatements[key] = statement
            }
            var parameter: Int32 = 1
            for index in indexes {
                try statement.bind(try encode(object, index), at: parameter)
                parameter += 1
            }
            try statement.bind(.integer(rowID), at: parameter)
            try statement.run()
        }

        var insertStatements: [ObjectIdentifier: (statement: Statement, count: Int)] = [:]
        outcome.insertedRowIDs.reserveCapacity(plan.inserts.count)
        for object in plan.inserts {
            let typeID = ObjectIdentifier(type(of: object))
            let insert: (statement: Statement, count: Int)
            if let cached = insertStatements[typeID] {
                insert = cached
                insert.statement.rewind()
            } else {
                let entity = try entity(for: type(of: object))
                insert = (try connection.cachedStatement(entity.insertSQL), entity.attributes.count)
                insertStatements[typeID] = insert
            }
            for index in 0..<insert.count {
                try insert.statement.bind(try encode(object, index), at: Int32(index + 1))
            }
            try insert.statement.run()
            outcome.insertedRowIDs.append(connection.lastInsertedRowID)
        }
        return outcome
    }

    /// How many rows one `DELETE … WHERE "Z_PK" IN (…)` removes at most; well
    /// under SQLite's limit of 32,766 bound parameters
    /// (https://sqlite.org/limits.html#max_variable_number).
    static let deleteBatchSize = 500

    /// Deletes rows by primary key: one statement per object for a few, one
    /// per batch of ``deleteBatchSize`` for many.
    private func executeDeletes(_ objects: [any Entity], on connection: Connection) throws {
        var rowIDs: [ObjectIdentifier: (entity: EntityDescription, rowIDs: [Int64])] = [:]
        for object in objects {
            guard let rowID = object.recordState.rowID else { continue }
            let typeID = ObjectIdentifier(type(of: object))
            if rowIDs[typeID] == nil { rowIDs[typeID] = (try entity(for: type(of: object)), []) }
            rowIDs[typeID]?.rowIDs.append(rowID)
        }
        for (entity, ids) in rowIDs.values {
            var start = 0
            while start < ids.count {
                let batch = ids[start..<min(start + Self.deleteBatchSize, ids.count)]
                let sql = batch.count == 1
                    ? entity.deleteSQL
                    : "DELETE FROM \(entity.quotedTable) WHERE \(Connection.quote(Model.primaryKeyColumn)) IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))"
                let statement = try connection.cachedStatement(sql)
                for (offset, rowID) in batch.enumerated() {
                    try statement.bind(.integer(rowID), at: Int32(offset + 1))
                }
                try statement.run()
                start += batch.count
            }
        }
    }

    private struct UpdateKey: Hashable {
        let type: ObjectIdentifier
        let indexes: [Int]
    }

    /// The records a plan's statements wrote.
    private func changeSet(_ plan: SavePlan, _ outcome: SaveOutcome) -> ChangeSet {
        ChangeSet(
            inserted: zip(plan.inserts, outcome.insertedRowIDs).map { object, rowID in
                RecordID(entityName: type(of: object).entityName, rowID: rowID)
            },
            updated: plan.updates.compactMap { $0.object.recordID },
            deleted: plan.deletes.compactMap { $0.recordID })
    }

    /// After the commit: registers inserted objects, clears change marks and
    /// forgets deleted objects, then reports the change set.
    private func apply(_ plan: SavePlan, outcome: SaveOutcome, changes: ChangeSet) {
        for (object, rowID) in zip(plan.inserts, outcome.insertedRowIDs) {
            let snapshot = type(of: object).tracksChanges ? nil : encodedSnapshot(object)
            registerInserted(object, rowID: rowID, snapshot: snapshot)
        }
        inserted.removeAll()
        insertedIDs.removeAll()
        for (object, _) in plan.updates {
            object.recordState.changes.removeAll()
            if !type(of: object).tracksChanges { object.recordState.snapshot = encodedSnapshot(object) }
        }
        updated.removeAll()
        for object in plan.deletes { unregister(object) }
        if !changes.isEmpty {
            store.logger.debug("saved", metadata: ["changes": "\(changes)"])
            didSave?(changes)
        }
    }

    private func registerInserted(_ object: some Entity, rowID: Int64, snapshot: [SQLValue]?) {
        register(object, rowID: rowID, snapshot: snapshot)
    }

    private func encodedSnapshot(_ object: any Entity) -> [SQLValue] {
        type(of: object).attributes.indices.map { (try? object.encodeAttribute(at: $0)) ?? .null }
    }

    /// Discards every unsaved change: inserted objects are dropped, deleted
    /// ones restored, and changed ones re-read from the store.
    ///
    /// ```swift
    /// person.name = "typo"
    /// context.rollback()      // person.name is what the store holds
    /// ```
    public func rollback() {
        for object in inserted {
            object.recordState.phase = .unmanaged
            object.recordState.context = nil
        }
        inserted.removeAll()
        insertedIDs.removeAll()
        for object in deleted.values { object.recordState.phase = .managed }
        deleted.removeAll()
        let changed = Array(updated.values) + untracked.values.filter { isChangedUntracked($0) }
        updated.removeAll()
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
