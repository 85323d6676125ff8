extension RecordContext {
    /// The work of ``Entity/findFirstOrCreate(byAttribute:withValue:in:)``
    /// once a first look found no match: in one write transaction, the `T`
    /// another writer stored meanwhile, or a new one inserted with `value`,
    /// saved at once and registered in this context.
    func findOrCreate<T: Entity & DefaultInitializable>(
        _ type: T.Type, byAttribute attribute: String, withValue value: (any SQLValueConvertible)?
    ) throws -> T {
        let entity = try entity(for: T.self)
        let described = try T.attribute(named: attribute)
        guard let index = entity.attributeIndex(named: described.name) else {
            throw LiteRecordError(.unknownAttribute, "\(T.entityName) has no attribute named '\(attribute)'")
        }
        let (condition, arguments) = try T.equalityClause(attribute, value)
        let bound = try Self.storedForm(of: value, for: described, of: T.entityName)
        let object = try makeNewObject(T.self, entity)
        let (values, pendingColumns) = try newRow(of: object, entity, with: bound, at: index)
        let outcome = try insertUnlessFound(
            object, entity, values, readingBack: index, where: condition, arguments, by: described.name)
        switch outcome {
        case .found(let rowID):
            // Another writer won the race between the first look and the transaction.
            guard let found = try existingObject(with: RecordID(entityName: T.entityName, rowID: rowID), as: T.self) else {
                throw LiteRecordError(.invalidObject, "the \(T.entityName) whose \(described.name) matches is marked for deletion in this context")
            }
            return found
        case .created(let rowID, let snapshot):
            register(object, rowID: rowID, snapshot: snapshot)
            // As a save's insert: `.storeTrumps` compares later conflicts
            // with the values the row was written with.
            if mergePolicy == .storeTrumps { object.recordState.storedValues = currentColumnValues(object) }
            if !entity.relationships.isEmpty { adoptRelatedAfterCreate(object, pendingColumns: pendingColumns) }
            didSave?(ChangeSet(inserted: [RecordID(entityName: T.entityName, rowID: rowID)]))
            return object
        }
    }

    /// The value as the column stores it, not its comparison form (which
    /// binds -0.0 as 0.0): a value that cannot be stored exactly is refused.
    private static func storedForm(
        of value: (any SQLValueConvertible)?, for attribute: AttributeDescription, of entityName: String
    ) throws -> SQLValue {
        var bound: SQLValue
        do {
            bound = try value?.sqlValue() ?? .null
        } catch let error as LiteRecordError {
            throw LiteRecordError(error.kind, "\(entityName).\(attribute.name): \(error.message)")
        } catch {
            throw LiteRecordError(.validationFailed, "\(entityName).\(attribute.name) cannot be stored: \(error)")
        }
        if attribute.storesCanonicalText { bound = bound.canonicalText }
        return bound
    }

    /// A new `T` as `init()` and `awakeFromInsert()` leave it, kept off the
    /// list of inserts (``adoptNewObject(_:)``).
    private func makeNewObject<T: Entity & DefaultInitializable>(_ type: T.Type, _ entity: EntityDescription) throws -> T {
        let object = T()
        let related = !entity.relationships.isEmpty
        if related { object.settleRelationships() }
        object.awakeFromInsert()
        if related { try adoptNewObject(object) }
        return object
    }

    /// A new object that relating it to a saved object (in `init()` or
    /// `awakeFromInsert()`) put on this context's list of inserts is stored by
    /// `findFirstOrCreate` itself: it leaves that list, so that no later save
    /// inserts it a second time.
    private func adoptNewObject<T: Entity>(_ object: T) throws {
        guard object.statePhase != .unmanaged else { return }
        guard object.stateBelongs(to: self) else {
            throw LiteRecordError(
                .invalidObject,
                "a new \(T.entityName) made by findFirstOrCreate is related to an object of another context; relate it after it is created")
        }
        inserted.removeAll { $0 === object }
        object.recordState.phase = .unmanaged
    }

    /// The values of `object`'s new row: `bound` for the attribute at `index`,
    /// the others encoded, then its to-ones; with the columns of to-ones to
    /// objects not yet saved, which the next save writes.
    private func newRow<T: Entity>(
        of object: T, _ entity: EntityDescription, with bound: SQLValue, at index: Int
    ) throws -> (values: [SQLValue], pendingColumns: [Int]) {
        var values: [SQLValue] = []
        for position in entity.attributes.indices {
            if position == index {
                values.append(bound)
                continue
            }
            do {
                let value = try object.encodeAttribute(at: position)
                values.append(entity.attributes[position].storesCanonicalText ? value.canonicalText : value)
            } catch {
                throw LiteRecordError(.validationFailed, "\(T.entityName).\(entity.attributes[position].name) cannot be stored: \(error)")
            }
        }

        // The to-ones `init()` or `awakeFromInsert()` set: a saved object's
        // row id goes into the row; a new object's is written by the next save.
        var pendingColumns: [Int] = []
        for column in entity.attributes.count..<entity.columnCount {
            switch RelationGraph.slot(object, entity.toOne(atColumn: column).index) {
            case .toOne(let target?):
                let state = target.recordState
                if state.phase == .managed, state.belongs(to: self), let rowID = state.rowID {
                    values.append(.integer(rowID))
                } else {
                    values.append(.null)
                    pendingColumns.append(column)
                }
            default:
                values.append(.null)
            }
        }
        return (values, pendingColumns)
    }

    /// In one write transaction (`BEGIN IMMEDIATE`, so no other writer can
    /// insert in between): the row id of a record matching `condition` that
    /// another writer stored since the first look, or else `object`'s row
    /// inserted, its attribute at `index` read back in stored form, and the
    /// insert announced as any save's.
    private func insertUnlessFound<T: Entity>(
        _ object: T, _ entity: EntityDescription, _ values: [SQLValue], readingBack index: Int,
        where condition: String, _ arguments: [SQLValue], by attributeName: String
    ) throws -> FindOrCreateOutcome {
        let entityName = T.entityName
        let findSQL = SelectStatement([.rowID], from: entity.table, where: WhereClause(sql: condition), limit: "1").sql
        let columns = ([SQLIdentifier.rowID] + entity.attributes.map { SQLIdentifier($0.name) }).map(\.quoted)
        let insertSQL = "\(entity.insertSQL) RETURNING \(columns.joined(separator: ", "))"
        let tracksChanges = T.tracksChanges
        return try store.write("finding or creating \(entityName) by \(attributeName)") { connection -> FindOrCreateOutcome in
            if case .integer(let rowID)? = try connection.scalar(findSQL, arguments) {
                return .found(rowID)
            }
            var ids = RecordIDAllocator(namingEvery: store.namesEveryRecordID)
            var cursor = try ids.open(entity, on: connection)
            let newID = cursor.next()
            let statement = try connection.cachedStatement(insertSQL)
            defer { statement.reset() }
            try statement.bind(values + [newID.map { .integer($0) } ?? .null])
            guard try statement.step() else {
                throw LiteRecordError(.sqlite, "inserting \(entityName) returned no row")
            }
            let row = Row(statement: statement, offset: 1, entityName: entityName)
            // The stored form of the value, read back, is what the object holds.
            try object.decodeAttribute(at: index, from: row)
            let snapshot = tracksChanges ? nil : entity.attributes.indices.map { row.value(at: $0) }
            let rowID = newID ?? statement.int64(at: 0)
            cursor.took(rowID)
            ids.close(cursor)
            try ids.record(on: connection)
            // Subscribers, observers and the history hear of it as of any save's insert.
            store.noteCommitted(ChangeSet(inserted: [RecordID(entityName: entityName, rowID: rowID)]), by: self)
            return .created(rowID, snapshot)
        }
    }

    /// After `findFirstOrCreate` stored a new object: the new objects it is
    /// related to join this context, and its to-ones pointing at them are
    /// written by the next save (as are its many-to-many links).
    func adoptRelatedAfterCreate(_ object: any Entity, pendingColumns: [Int]) {
        guard !object.recordState.relations.isEmpty else { return }
        adoptRelated(object)
        guard !pendingColumns.isEmpty else { return }
        for column in pendingColumns { object.recordState.changes.insert(column) }
        if !object.withState({ $0.listings.contains(.updated) }) { objectDidChange(object) }
    }
}

/// What the write transaction of `findFirstOrCreate` did: found a record
/// another writer stored, or created one (with its snapshot when the entity
/// does not track changes).
private enum FindOrCreateOutcome {
    case found(Int64)
    case created(Int64, [SQLValue]?)
}
