import Foundation

extension Entity where Self: DefaultInitializable {
    /// The first record whose attribute equals `value`, or a new one with that
    /// value — never a duplicate, even when several writers (tasks, stacks or
    /// processes) race for the same value.
    ///
    /// ```swift
    /// let tag = try Tag.findFirstOrCreate(byAttribute: "label", withValue: "swift", in: context)
    /// ```
    ///
    /// The lookup and the insert run in one write transaction (`BEGIN
    /// IMMEDIATE`, so no other writer can insert in between), which means a
    /// new record is saved at once: the returned object is already stored,
    /// with its other attributes at their defaults after `awakeFromInsert()`.
    /// Equality is SQLite's, like the unique index's and
    /// ``findFirst(byAttribute:withValue:in:)``'s.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` for a name the
    ///   entity does not have, `.constraintViolation` when the new record breaks
    ///   a constraint (a `nil` value for a non-optional attribute, another unique
    ///   attribute), `.invalidObject` when the matching record is marked for
    ///   deletion in `context`.
    public static func findFirstOrCreate(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?, in context: RecordContext
    ) throws -> Self {
        if let existing = try findFirst(byAttribute: attribute, withValue: value, in: context) { return existing }
        let entity = try context.entity(for: Self.self)
        let description = try Self.attribute(named: attribute)
        guard let index = entity.attributeIndex(named: description.name) else {
            throw LiteRecordError(.unknownAttribute, "\(entityName) has no attribute named '\(attribute)'")
        }
        let (condition, arguments) = try equalityClause(attribute, value)
        // What is stored is the value itself, not its comparison form (which
        // binds -0.0 as 0.0): a value that cannot be stored exactly is refused.
        var bound: SQLValue
        do {
            bound = try value?.sqlValue() ?? .null
        } catch let error as LiteRecordError {
            throw LiteRecordError(error.kind, "\(entityName).\(description.name): \(error.message)")
        } catch {
            throw LiteRecordError(.validationFailed, "\(entityName).\(description.name) cannot be stored: \(error)")
        }
        if description.storesCanonicalText { bound = bound.canonicalText }

        let object = Self()
        let related = !entity.relationships.isEmpty
        if related { object.settleRelationships() }
        object.awakeFromInsert()
        if related { try adoptNewObject(object, in: context) }
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
                throw LiteRecordError(.validationFailed, "\(entityName).\(entity.attributes[position].name) cannot be stored: \(error)")
            }
        }

        // The to-ones `init()` or `awakeFromInsert()` set: a saved object's
        // row id goes into the row; a new object's is written by the next save.
        var pendingColumns: [Int] = []
        for column in entity.attributes.count..<entity.columnCount {
            switch RelationGraph.slot(object, entity.toOne(atColumn: column).index) {
            case .toOne(let target?):
                let state = target.recordState
                if state.phase == .managed, state.belongs(to: context), let rowID = state.rowID {
                    values.append(.integer(rowID))
                } else {
                    values.append(.null)
                    pendingColumns.append(column)
                }
            default:
                values.append(.null)
            }
        }

        let key = Connection.quote(Model.primaryKeyColumn)
        let findSQL = "SELECT \(key) FROM \(entity.quotedTable) WHERE \(condition) LIMIT 1"
        let columns = ([key] + entity.attributes.map { Connection.quote($0.name) }).joined(separator: ", ")
        let insertSQL = "\(entity.insertSQL) RETURNING \(columns)"
        let tracksChanges = Self.tracksChanges
        let outcome = try context.store.write("finding or creating \(entityName) by \(description.name)") { connection -> FindOrCreateOutcome in
            if case .integer(let rowID)? = try connection.scalar(findSQL, arguments) {
                return .found(rowID)
            }
            var ids = RecordIDAllocator(namingEvery: context.store.namesEveryRecordID)
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
            context.store.noteCommitted(ChangeSet(inserted: [RecordID(entityName: entityName, rowID: rowID)]), by: context)
            return .created(rowID, snapshot)
        }
        switch outcome {
        case .found(let rowID):
            // Another writer won the race between the first look and the transaction.
            guard let found = try context.existingObject(with: RecordID(entityName: entityName, rowID: rowID), as: Self.self) else {
                throw LiteRecordError(.invalidObject, "the \(entityName) whose \(description.name) matches is marked for deletion in this context")
            }
            return found
        case .created(let rowID, let snapshot):
            context.register(object, rowID: rowID, snapshot: snapshot)
            if related { context.adoptRelatedAfterCreate(object, pendingColumns: pendingColumns) }
            context.didSave?(ChangeSet(inserted: [RecordID(entityName: entityName, rowID: rowID)]))
            return object
        }
    }

    /// ``findFirstOrCreate(byAttribute:withValue:in:)`` on the default stack's
    /// main context.
    ///
    /// ```swift
    /// let tag = try Tag.findFirstOrCreate(byAttribute: "label", withValue: "swift")
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findFirstOrCreate(
        byAttribute attribute: String, withValue value: (any SQLValueConvertible)?
    ) throws -> Self {
        try findFirstOrCreate(byAttribute: attribute, withValue: value, in: RecordStack.current().mainContext)
    }
}

extension Entity {
    /// A new object that relating it to a saved object (in `init()` or
    /// `awakeFromInsert()`) put on `context`'s list of inserts is stored by
    /// `findFirstOrCreate` itself: it leaves that list, so that no later save
    /// inserts it a second time.
    fileprivate static func adoptNewObject(_ object: Self, in context: RecordContext) throws {
        let state = object.recordState
        guard state.phase != .unmanaged else { return }
        guard state.belongs(to: context) else {
            throw LiteRecordError(
                .invalidObject,
                "a new \(entityName) made by findFirstOrCreate is related to an object of another context; relate it after it is created")
        }
        context.inserted.removeAll { $0 === object }
        state.phase = .unmanaged
    }
}

extension RecordContext {
    /// After `findFirstOrCreate` stored a new object: the new objects it is
    /// related to join this context, and its to-ones pointing at them are
    /// written by the next save (as are its many-to-many links).
    func adoptRelatedAfterCreate(_ object: any Entity, pendingColumns: [Int]) {
        let state = object.recordState
        guard !state.relations.isEmpty else { return }
        adoptRelated(object)
        guard !pendingColumns.isEmpty else { return }
        for column in pendingColumns { state.changes.insert(column) }
        if !state.listings.contains(.updated) { objectDidChange(object) }
    }
}

private enum FindOrCreateOutcome {
    case found(Int64)
    case created(Int64, [SQLValue]?)
}
