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
    /// says whether the save wrote its row.
    case reread(wrote: Bool)
    /// Forget the object: its row was deleted in the store.
    case forget
    /// Take the object's deletion back and read it again: the store's change
    /// won over this context's deletion.
    case keep

    var wrote: Bool {
        if case .reread(let wrote) = self { wrote } else { false }
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
            guard let stored = try storedRow(row.rowID, entity, on: connection) else {
                goneBefore.append(RecordID(entityName: entity.name, rowID: row.rowID))
                continue
            }
            found.append(Conflict(row: row, entity: entity, stored: stored, isDeletion: true))
        }
        for row in conflicts.updates {
            let entity = try context.entity(for: type(of: row.object))
            found.append(Conflict(row: row, entity: entity, stored: try storedRow(row.rowID, entity, on: connection), isDeletion: false))
        }
        guard !found.isEmpty || !conflicts.cascade.isEmpty else { return }
        let mergePolicy = context.mergePolicy
        if mergePolicy == .error { throw try conflictError(found) }
        for conflict in found { try resolve(conflict, mergePolicy) }
        if !conflicts.cascade.isEmpty { try resolveCascadeConflicts(mergePolicy) }
        let records = found.map { RecordID(entityName: $0.entity.name, rowID: $0.row.rowID) } + conflicts.cascade.map(\.id)
        context.store.logger.info("resolved conflicts", metadata: ["policy": "\(mergePolicy)", "records": "\(records)"])
    }

    /// The row as the store holds it now, read on the save's own connection
    /// inside its transaction (``RecordContext/withStoredRow(of:_:_:)`` reads
    /// through the context, outside any save): its column values and version,
    /// `nil` when it was deleted.
    private func storedRow(
        _ rowID: Int64, _ entity: EntityDescription, on connection: Connection
    ) throws -> (values: [SQLValue], version: Int64)? {
        let sql = entity.selectSQL + " WHERE \(Connection.quote(Model.primaryKeyColumn)) = ?"
        guard let row = try connection.rows(sql, [.integer(rowID)]).first, row.count == entity.columnCount + 2 else { return nil }
        guard case .integer(let version) = row[entity.columnCount + 1] else { return nil }
        return (Array(row[1...entity.columnCount]), version)
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
        if conflict.isDeletion {
            if mergePolicy == .objectTrumps {
                let statement = try connection.cachedStatement(conflict.entity.deleteSQL)
                try statement.bind(.integer(conflict.row.rowID), at: 1)
                try statement.bind(.integer(stored.version), at: 2)
                try statement.run()
            } else {
                resolved[id] = (object, .keep)
            }
            return
        }
        var columns = conflict.row.changes.indexes
        if mergePolicy == .storeTrumps {
            // The store wins every property it changed since the read; without
            // the values as read, a stored value that differs counts as changed.
            let read = object.recordState.storedValues
            var kept: [Int] = []
            for column in columns {
                let local = try localValue(object, conflict.entity, column)
                let base = read.flatMap { $0.indices.contains(column) ? $0[column] : nil } ?? local
                if Self.same(stored.values[column], base) { kept.append(column) }
            }
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
        resolved[id] = (object, .reread(wrote: wrote))
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
    /// ``LiteRecordError/includesValuesInDescriptions`` is on.
    private func conflictError(_ found: [Conflict]) throws -> LiteRecordError {
        let showsValues = context.showsConflictValues ?? LiteRecordError.includesValuesInDescriptions
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
                "\(id): \(properties.joined(separator: ", ")) changed here, but the record was changed in the store since it was read (version \(conflict.row.version), now \(stored.version))")
        }
        let total = lines.count
        let count = total == 1 ? "1 object was" : "\(total) objects were"
        return LiteRecordError(
            .conflict,
            "saving failed: \(count) changed in the store since this context read \(total == 1 ? "it" : "them"):\n- "
                + lines.joined(separator: "\n- ")
                + "\nNothing was written and the context keeps its changes: call refresh(_:mergeChanges:) on these objects or set mergePolicy to .objectTrumps or .storeTrumps, then save again.")
    }
}

extension RecordContext {
    /// After the commit: brings each object whose conflict was resolved in
    /// line with the store.
    func settle(_ resolved: some Collection<(object: any Entity, resolution: ConflictResolution)>) {
        // Lists read while a deletion was pending left the object out; one
        // taken back must be listed again: those lists are read again.
        let kept = Set(resolved.compactMap { entry -> String? in
            if case .keep = entry.resolution { type(of: entry.object).entityName } else { nil }
        })
        if !kept.isEmpty, store.model.hasRelationships { forgetToManys(touching: kept) }
        for (object, resolution) in resolved {
            let state = object.recordState
            switch resolution {
            case .forget:
                unregister(object)
                continue
            case .keep:
                // The deletion is taken back and the row read again below, so
                // no change of the object's is left either: an edit made
                // before the deletion must not keep it listed as updated (a
                // listed object's next edit would not list it again, and
                // would never be saved).
                state.phase = .managed
                state.listings.remove(.deleted)
                state.listings.remove(.updated)
            case .reread:
                break
            }
            do {
                try refetch(object)
            } catch {
                store.logger.warning("re-reading a merged object failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The values the object would have in its row: attributes (as stored),
    /// then to-ones.
    func currentColumnValues(_ object: any Entity) -> [SQLValue]? {
        guard let entity = store.model.entity(for: type(of: object)) else { return nil }
        var values: [SQLValue] = []
        values.reserveCapacity(entity.columnCount)
        for index in entity.attributes.indices {
            let value = (try? object.encodeAttribute(at: index)) ?? .null
            values.append(entity.canonicalTextAttributes.contains(index) ? value.canonicalText : value)
        }
        for index in entity.toOneIndexes {
            switch RelationGraph.slot(object, index) {
            case .fault(let rowID?): values.append(.integer(rowID))
            case .toOne(let target?): values.append(target.recordState.rowID.map { .integer($0) } ?? .null)
            case .fault(nil), .toOne(nil), .unloaded, .toMany: values.append(.null)
            }
        }
        return values
    }

    /// From now on the context keeps the stored values its objects were read
    /// with; those it already holds unchanged are what the store held.
    func keepStoredValues() {
        for object in identityMap.objects where !hasUnsavedEdits(object) {
            object.recordState.storedValues = currentColumnValues(object)
        }
    }

    /// Whether the object has changes (or a deletion) not saved yet.
    func hasUnsavedEdits(_ object: any Entity) -> Bool {
        let state = object.recordState
        if state.phase == .deleted || !state.changes.isEmpty { return true }
        return !type(of: object).tracksChanges && isChangedUntracked(object)
    }

    /// Resolves a conflict by hand, like Core Data's
    /// `refresh(_:mergeChanges:)`: reads the object's row again and takes the
    /// row's version, so that the next save writes over it without a
    /// conflict.
    ///
    /// - `mergeChanges: false` discards the object's unsaved changes
    ///   (including its deletion) and takes the stored values.
    /// - `mergeChanges: true` takes the stored values of the properties not
    ///   changed here and keeps the unsaved changes, which the next save
    ///   writes.
    ///
    /// An object whose record was deleted in the store is forgotten.
    ///
    /// ```swift
    /// do { try context.save() } catch let error as LiteRecordError where error.kind == .conflict {
    ///     try context.refresh(person, mergeChanges: true)   // keep my edits, on top of the newer row
    ///     try context.save()
    /// }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read.
    public func refresh<T: Entity>(_ object: T, mergeChanges: Bool) throws {
        let state = object.recordState
        guard state.belongs(to: self), state.phase == .managed || state.phase == .deleted else { return }
        guard mergeChanges else {
            if state.phase == .deleted { state.phase = .managed }
            try withErrorContext("refreshing \(T.entityName)") { try refetch(object) }
            return
        }
        try withErrorContext("refreshing \(T.entityName)") {
            try withStoredRow(of: object, "refreshing \(T.entityName)") { row, entity in
                // The untracked snapshot moves to the stored values too, so that
                // the edits still differ from it and are written.
                try mergeStoredRow(row, into: object, attributeCount: entity.attributes.count, version: 0)
                state.version = storedVersion(row, entity)
                if mergePolicy == .storeTrumps {
                    state.storedValues = (0..<entity.columnCount).map { row.value(at: $0) }
                }
                if entity.hasRelationships { applyForeignKeys(object, row, entity) }
            }
        }
    }
}
