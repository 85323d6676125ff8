// MARK: Writing relationships

extension SaveTransaction {
    /// The stored value of the to-one in `column`: the named object's row id,
    /// or `.null` for none. `nil` when it names an object not inserted yet:
    /// the column is then recorded in `deferredForeignKeys`, which
    /// ``writeDeferredForeignKeys()`` writes once every insert ran — so the
    /// steps may run in any order before that one.
    mutating func foreignKeyValue(_ object: any Entity, _ entity: EntityDescription, _ column: Int) -> SQLValue? {
        if let value = storedForeignKey(object, entity, column) { return value }
        deferredForeignKeys.append((object, entity, column))
        return nil
    }

    /// The to-one's stored value as far as row ids are known now; `nil` for
    /// an object that has none yet.
    func storedForeignKey(_ object: any Entity, _ entity: EntityDescription, _ column: Int) -> SQLValue? {
        let relationship = entity.toOne(atColumn: column)
        switch RelationGraph.slot(object, relationship.index) {
        case .fault(let rowID?):
            return .integer(rowID)
        case .toOne(let target?):
            if let rowID = target.stateRowID { return .integer(rowID) }
            return newRowIDs[ObjectIdentifier(target)].map { .integer($0) }
        case .fault(nil), .toOne(nil), .unloaded, .toMany:
            return .null
        }
    }

    /// Writes the to-ones that named an object not inserted yet when their
    /// row was written, now that every insert ran. One whose object this save
    /// did not insert after all is written as `NULL`. One of an object
    /// whose conflict the merge policy resolved is written only when the
    /// resolution wrote that column: under `.storeTrumps` the store's newer
    /// value of a to-one wins, and stays.
    func writeDeferredForeignKeys() throws {
        for (object, entity, column) in deferredForeignKeys {
            if !resolved.isEmpty, let resolution = resolved[ObjectIdentifier(object)]?.resolution {
                guard case .reread(true, let columns) = resolution, columns.contains(column) else { continue }
            }
            guard let rowID = object.stateRowID ?? newRowIDs[ObjectIdentifier(object)] else { continue }
            let statement = try connection.cachedStatement(entity.updateSQL([column]))
            try statement.bind(storedForeignKey(object, entity, column) ?? .null, at: 1)
            try statement.bind(.integer(rowID), at: 2)
            try statement.run()
        }
    }

    /// Writes the pending many-to-many link changes. Returns the records
    /// whose links changed, and the saved objects among them that this save
    /// does not update otherwise: their rows move to a new version here
    /// (a link is part of both records, as Core Data counts it), so that
    /// another context holding one meets the conflict at its next save.
    func writeJoins() throws -> (relinked: [(id: RecordID, table: JoinTable)], versioned: [any Entity]) {
        let pendingJoins = context.pendingJoins
        guard !pendingJoins.isEmpty else { return ([], []) }
        var relinked: [(id: RecordID, table: JoinTable)] = []
        var touched: [ObjectIdentifier: any Entity] = [:]
        // No pending link names a deleted object (dropPendingJoins, and
        // noteJoin after a deletion). One naming an object without a row id
        // (detached with its context, or forgotten: refused before the
        // transaction) is skipped.
        func rowID(_ object: any Entity) -> Int64? {
            newRowIDs[ObjectIdentifier(object)] ?? object.stateRowID
        }
        for pending in pendingJoins.values {
            guard let source = rowID(pending.source), let destination = rowID(pending.destination) else { continue }
            guard try writeJoin(pending, source, destination) else { continue }
            relinked.append((RecordID(entityName: pending.table.sourceTable, rowID: source), pending.table))
            relinked.append((RecordID(entityName: pending.table.destinationTable, rowID: destination), pending.table.flipped))
            for object in [pending.source, pending.destination] where object.statePhase == .managed {
                touched[ObjectIdentifier(object)] = object
            }
        }
        guard !touched.isEmpty else { return (relinked, []) }
        for update in plan.updates {
            // Its UPDATE moved its version, unless a conflict its merge
            // policy resolved wrote nothing (the store's values won): then
            // the link is the row's only change, and moves it.
            if !resolved.isEmpty, let resolution = resolved[ObjectIdentifier(update.object)]?.resolution, !resolution.wrote { continue }
            touched.removeValue(forKey: ObjectIdentifier(update.object))
        }
        let (versioned, gone) = try bumpVersions(of: touched.values)
        // A record deleted in the store meanwhile took neither the link nor
        // the bump: the change set says only what SQLite changed (the
        // foreign key then refuses the link at the commit).
        if !gone.isEmpty { relinked.removeAll { gone.contains($0.id) } }
        return (relinked, versioned)
    }

    /// Adds or removes one link; whether the table changed.
    private func writeJoin(_ pending: PendingJoin, _ source: Int64, _ destination: Int64) throws -> Bool {
        let table = pending.table
        let (name, a, b) = (SQLIdentifier(table.name), SQLIdentifier(table.sourceColumn), SQLIdentifier(table.destinationColumn))
        let sql =
            pending.linked
            ? InsertStatement(.ignore, into: name, columns: [a, b]).sql
            : DeleteStatement(from: name, where: .equals(a) && .equals(b)).sql
        let statement = try connection.cachedStatement(sql)
        try statement.bind(.integer(source), at: 1)
        try statement.bind(.integer(destination), at: 2)
        try statement.run()
        return connection.changes > 0
    }

    /// Moves the rows of saved objects whose links changed to a new version:
    /// one statement per entity, the row ids bound as one JSON array (as the
    /// prefetch binds them), not one per object. Returns the objects, whose
    /// version the context records after the commit, and the records whose
    /// row another connection deleted meanwhile (no row moved).
    private func bumpVersions(of objects: some Collection<any Entity>) throws -> (versioned: [any Entity], gone: Set<RecordID>) {
        var byEntity: [ObjectIdentifier: (entity: EntityDescription, objects: [any Entity], rowIDs: [Int64])] = [:]
        for object in objects {
            guard let rowID = object.stateRowID else { continue }
            let key = ObjectIdentifier(type(of: object))
            if byEntity[key] == nil { byEntity[key] = (try context.entity(for: type(of: object)), [], []) }
            byEntity[key]?.objects.append(object)
            byEntity[key]?.rowIDs.append(rowID)
        }
        var versioned: [any Entity] = []
        var gone = Set<RecordID>()
        for (entity, objects, rowIDs) in byEntity.values {
            let ids = RecordContext.jsonArray(rowIDs)
            let bump = UpdateStatement(entity.table, set: [.nextVersion], where: .column(inJSONArray: .rowID))
            try connection.execute(bump.sql, [ids])
            // A row another connection deleted meanwhile takes no update; its
            // object meets that deletion at its next save whatever its version.
            versioned += objects
            guard connection.changes < rowIDs.count else { continue }
            let present = SelectStatement([.rowID], from: entity.table, where: .column(inJSONArray: .rowID))
            let found = Set(
                try connection.rows(present.sql, [ids]).compactMap { row -> Int64? in
                    if case .integer(let rowID) = row.first { rowID } else { nil }
                })
            for rowID in rowIDs where !found.contains(rowID) { gone.insert(RecordID(entityName: entity.name, rowID: rowID)) }
        }
        return (versioned, gone)
    }
}
