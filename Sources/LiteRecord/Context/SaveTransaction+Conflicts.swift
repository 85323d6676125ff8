/// The rows a save's statements left alone: changed or deleted in the store
/// since the context read them (optimistic locking).
struct SaveConflicts {
    var updates: [RecordContext.PlannedRow] = []
    /// Deletions that deleted nothing; some may only be rows another writer
    /// deleted too, which is no conflict.
    var deletes: [RecordContext.PlannedRow] = []
    /// Rows of the store-side cascade changed since the deletion read them.
    var cascade: [CascadeConflict] = []

    var isEmpty: Bool { updates.isEmpty && deletes.isEmpty && cascade.isEmpty }
}

/// What a context does after the commit with an object whose conflict its
/// merge policy resolved.
enum ConflictResolution {
    /// Read the object again: the store holds the merged values. `wrote`
    /// says whether the save wrote its row, `columns` which of its columns
    /// (``EntityDescription/columnName(_:)`` indexes) it wrote: under
    /// `.storeTrumps`, only those the store did not change.
    case reread(wrote: Bool, columns: [Int])
    /// Forget the object: its row was deleted in the store.
    case forget
    /// Take the object's deletion back and read it again: the store's change
    /// won over this context's deletion.
    case keep

    var wrote: Bool {
        if case .reread(let wrote, _) = self { wrote } else { false }
    }
}

extension SaveTransaction {
    /// One conflicting object, with its row as the store holds it now.
    private struct Conflict {
        let row: PlannedRow
        let entity: EntityDescription
        /// The stored column values (attributes, then to-ones) and version;
        /// `nil` when the row was deleted in the store.
        let stored: (values: [SQLValue], version: Int64)?
        let isDeletion: Bool
    }

    /// Reads the rows the update and delete statements left alone inside the
    /// save's transaction and applies the merge policy: `.error` throws, the
    /// others write what wins and record in `resolved` what the context does
    /// with each object after the commit.
    mutating func resolve() throws {
        var found: [Conflict] = []
        for row in conflicts.deletes {
            let entity = try context.entity(for: type(of: row.object))
            // Deleted here and, before this save, in the store: agreed. The
            // context forgets the object; the commit did not delete the row.
            guard let stored = try RecordContext.storedRow(row.rowID, entity, on: connection) else {
                goneBefore.append(RecordID(entityName: entity.name, rowID: row.rowID))
                continue
            }
            found.append(Conflict(row: row, entity: entity, stored: stored, isDeletion: true))
        }
        for row in conflicts.updates {
            let entity = try context.entity(for: type(of: row.object))
            found.append(Conflict(row: row, entity: entity, stored: try RecordContext.storedRow(row.rowID, entity, on: connection), isDeletion: false))
        }
        guard !found.isEmpty || !conflicts.cascade.isEmpty else { return }
        let mergePolicy = context.mergePolicy
        if mergePolicy == .error { throw try conflictError(found) }
        // A resolution may write a unique value that a record resolved after
        // it gives up, as an update may (Docs/Concurrency.md): one that meets
        // the index runs again once the others ran, in rounds while one
        // goes through. Nothing of a resolution changes before its statement.
        var postponed: [(conflict: Conflict, error: SQLiteError)] = []
        for conflict in found {
            do {
                try resolve(conflict, mergePolicy)
            } catch let error as SQLiteError where error.isConstraintViolation {
                postponed.append((conflict, error))
            }
        }
        while !postponed.isEmpty {
            var left: [(conflict: Conflict, error: SQLiteError)] = []
            for (conflict, _) in postponed {
                do {
                    try resolve(conflict, mergePolicy)
                } catch let error as SQLiteError where error.isConstraintViolation {
                    left.append((conflict, error))
                }
            }
            if left.count == postponed.count { throw left[0].error }
            postponed = left
        }
        if !conflicts.cascade.isEmpty { try resolveCascadeConflicts(mergePolicy) }
        let records = found.map { RecordID(entityName: $0.entity.name, rowID: $0.row.rowID) } + conflicts.cascade.map(\.id)
        context.store.logger.info("resolved conflicts", metadata: ["policy": "\(mergePolicy)", "records": "\(records)"])
    }

    private mutating func resolve(_ conflict: Conflict, _ mergePolicy: MergePolicy) throws {
        let object = conflict.row.object
        let id = ObjectIdentifier(object)
        guard let stored = conflict.stored else {
            // A row deleted in the store stays deleted: there is no row left to
            // write the changes into.
            resolved[id] = (object, .forget)
            return
        }
        noteConflictOwners(conflict.entity, stored.values)
        if conflict.isDeletion {
            if mergePolicy == .objectTrumps {
                let statement = try connection.cachedStatement(conflict.entity.deleteSQL)
                try statement.bind(.integer(conflict.row.rowID), at: 1)
                try statement.bind(.integer(stored.version), at: 2)
                try statement.run()
            } else {
                // Kept, while the deletion of an owner a cascade took it
                // with still goes on (the plan's deletions all ran): detached
                // from that owner as a store-side cascade's kept row is, so
                // that the save commits (Docs/Concurrency.md).
                try detachFromDeletedRows(conflict.entity, conflict.row.rowID)
                kept.append((conflict.entity, conflict.row.rowID))
                resolved[id] = (object, .keep)
            }
            return
        }
        var columns = conflict.row.changes.indexes
        if mergePolicy == .storeTrumps {
            // The store wins every property it changed since the read; without
            // the values as read, a stored value that differs counts as changed.
            // A to-one changed before the policy was set is compared with
            // the value it was read with (RecordState.readToOnes).
            var kept: [Int] = []
            for column in columns {
                let local = try localValue(object, conflict.entity, column)
                let base = object.withState({ $0.valueAsRead(column) }) ?? local
                if Self.same(stored.values[column], base) { kept.append(column) }
            }
            if kept.count != columns.count { notePairedSides(object, conflict.entity, won: columns.filter { !kept.contains($0) }, stored.values) }
            columns = kept
        }
        var wrote = false
        if !columns.isEmpty {
            let statement = try connection.cachedStatement(conflict.entity.versionedUpdateSQL(columns))
            var parameter: Int32 = 1
            for column in columns {
                try statement.bind(try localValue(object, conflict.entity, column), at: parameter)
                parameter += 1
            }
            try statement.bind(.integer(conflict.row.rowID), at: parameter)
            try statement.bind(.integer(stored.version), at: parameter + 1)
            try statement.run()
            wrote = connection.changes > 0
        }
        resolved[id] = (object, .reread(wrote: wrote, columns: wrote ? columns : []))
    }

    /// Under `.storeTrumps`, a side of a one-to-one whose stored value won
    /// over the one set here: the object, the partner it named here and
    /// the partner the store names are checked once every row is written.
    private mutating func notePairedSides(_ object: any Entity, _ entity: EntityDescription, won: [Int], _ stored: [SQLValue]) {
        let model = context.store.model
        for column in won where column >= entity.attributes.count {
            let relationship = entity.toOne(atColumn: column)
            guard oneToOnePartnerColumn(relationship) != nil, let destination = model.entity(named: relationship.destinationName)?.type else { continue }
            pairedSides.append(object)
            switch RelationGraph.slot(object, relationship.index) {
            case .toOne(let partner?): pairedSides.append(partner)
            case .fault(let rowID?): if let partner = context.registeredObject(destination, rowID: rowID) { pairedSides.append(partner) }
            case .fault(nil), .toOne(nil), .unloaded, .toMany: break
            }
            if case .integer(let rowID) = stored[column], let partner = context.registeredObject(destination, rowID: rowID) { pairedSides.append(partner) }
        }
    }

    /// Docs/Concurrency.md: both sides of a one-to-one agree. After the
    /// statements of a save where `.storeTrumps` kept the store's value of
    /// a side, a side of these rows that names a partner not naming it back
    /// is cleared (the partner it named here lost it to the store's
    /// pairing, or the store's partner was displaced here), and each object
    /// is read again after the commit.
    mutating func detachUnpairedSides() throws {
        guard !pairedSides.isEmpty else { return }
        var seen = Set<ObjectIdentifier>()
        // A partner this save deletes has no side left to agree.
        for object in pairedSides where object.statePhase != .deleted && seen.insert(ObjectIdentifier(object)).inserted {
            guard let entity = context.store.model.entity(for: type(of: object)),
                let rowID = newRowIDs[ObjectIdentifier(object)] ?? object.stateRowID
            else { continue }
            try detach(entity, rowID, pairedColumn: oneToOnePartnerColumn)
            guard resolved[ObjectIdentifier(object)] == nil else { continue }
            let planned = plan.updates.first { $0.object === object }
            let inserted = newRowIDs[ObjectIdentifier(object)] != nil
            resolved[ObjectIdentifier(object)] = (object, .reread(wrote: planned != nil || inserted, columns: planned?.changes.indexes ?? []))
        }
    }

    /// The quoted column of a one-to-one's other side; `nil` for any other
    /// to-one.
    func oneToOnePartnerColumn(_ relationship: ResolvedRelationship) -> String? {
        guard !relationship.inverseIsToMany, let inverse = context.store.model.inverse(of: relationship) else { return nil }
        return SQLIdentifier(inverse.name).quoted
    }

    /// The value the save writes for the column at `index`.
    private mutating func localValue(_ object: any Entity, _ entity: EntityDescription, _ index: Int) throws -> SQLValue {
        if index >= entity.attributes.count { return foreignKeyValue(object, entity, index) ?? .null }
        let value = try context.encode(object, index)
        return entity.canonicalTextAttributes.contains(index) ? value.canonicalText : value
    }

    /// The value the save writes for the column at `index`, as far as row
    /// ids are known now, for the `.conflict` message (which defers nothing).
    private func messageValue(_ object: any Entity, _ entity: EntityDescription, _ index: Int) throws -> SQLValue {
        if index >= entity.attributes.count { return storedForeignKey(object, entity, index) ?? .null }
        let value = try context.encode(object, index)
        return entity.canonicalTextAttributes.contains(index) ? value.canonicalText : value
    }

    private static func same(_ a: SQLValue, _ b: SQLValue) -> Bool {
        a == b || a.canonicalText == b.canonicalText
    }

    /// The `.conflict` error for `.error`: each object, how it conflicts, and
    /// the properties this context changed — with both values only when
    /// the context's, else the stack's, else the process's switch says so
    /// (``RecordStack/includesValuesInDescriptions``).
    private func conflictError(_ found: [Conflict]) throws -> LiteRecordError {
        let showsValues = context.showsConflictValues ?? context.store.showsValuesInErrors
        // The store-side cascade's rows, deleted first, as a loaded object's deletion reads.
        var lines = conflicts.cascade.map {
            "\($0.id): deleted here, but changed in the store since it was read (version \($0.version), now \($0.stored))"
        }
        for conflict in found {
            let id = RecordID(entityName: conflict.entity.name, rowID: conflict.row.rowID)
            guard let stored = conflict.stored else {
                let names = conflict.row.changes.indexes.map { conflict.entity.columnName($0) }
                lines.append("\(id): \(names.joined(separator: ", ")) changed here, but the record was deleted in the store")
                continue
            }
            if conflict.isDeletion {
                lines.append("\(id): deleted here, but changed in the store since it was read (version \(conflict.row.version), now \(stored.version))")
                continue
            }
            var properties: [String] = []
            for column in conflict.row.changes.indexes {
                let name = conflict.entity.columnName(column)
                guard showsValues else {
                    properties.append(name)
                    continue
                }
                let local = try messageValue(conflict.row.object, conflict.entity, column)
                properties.append("\(name) (here \(LiteRecordError.describeValue(local)), in the store \(LiteRecordError.describeValue(stored.values[column])))")
            }
            lines.append(
                "\(id): \(properties.joined(separator: ", ")) changed here, but the record was changed in the store since it was read (version \(conflict.row.version), now \(stored.version))"
            )
        }
        let total = lines.count
        let count = total == 1 ? "1 object was" : "\(total) objects were"
        return LiteRecordError(
            .conflict,
            "saving failed: \(count) changed in the store since this context read \(total == 1 ? "it" : "them"):\n- "
                + lines.joined(separator: "\n- ")
                + "\nNothing was written and the context keeps its changes: call refresh(_:mergeChanges:) on these objects or set mergePolicy to .objectTrumps or .storeTrumps, then save again."
        )
    }
}
