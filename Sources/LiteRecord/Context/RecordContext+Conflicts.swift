extension RecordContext {
    /// After the commit: brings each object whose conflict was resolved in
    /// line with the store.
    func settle(_ resolved: some Collection<(object: any Entity, resolution: ConflictResolution)>) {
        // Lists read while a deletion was pending left the object out; one
        // taken back must be listed again. An object read again may take the
        // store's to-one over the one set here (`.storeTrumps`), which moves
        // it between lists (model seed 227767 at length 60: the list of the
        // target set here still held it); only `.storeTrumps` keeps a stored
        // value over one set here. Those lists are read again.
        let moved = Set(
            resolved.compactMap { entry -> String? in
                switch entry.resolution {
                case .keep: type(of: entry.object).entityName
                case .reread: mergePolicy == .storeTrumps ? type(of: entry.object).entityName : nil
                case .forget: nil
                }
            })
        if !moved.isEmpty, store.model.hasRelationships { forgetToManys(touching: moved) }
        for (object, resolution) in resolved {
            switch resolution {
            case .forget:
                unregister(object, forgotten: true)
                continue
            case .keep:
                // The deletion is taken back and the row read again below, so
                // no change of the object's is left either: an edit made
                // before the deletion must not keep it listed as updated (a
                // listed object's next edit would not list it again, and
                // would never be saved).
                object.recordState.phase = .managed
                object.recordState.listings.remove(.deleted)
                object.recordState.listings.remove(.updated)
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
    /// then to-ones. A to-one never read is none for a row just inserted;
    /// `readingUnread` reads it from the row of a saved object instead.
    func currentColumnValues(_ object: any Entity, readingUnread: Bool = false) -> [SQLValue]? {
        guard let entity = store.model.entity(for: type(of: object)) else { return nil }
        var values: [SQLValue] = []
        values.reserveCapacity(entity.columnCount)
        for index in entity.attributes.indices {
            let value = (try? object.encodeAttribute(at: index)) ?? .null
            values.append(entity.canonicalTextAttributes.contains(index) ? value.canonicalText : value)
        }
        for index in entity.toOneIndexes {
            switch readingUnread ? RelationGraph.readSlot(object, index) : RelationGraph.slot(object, index) {
            case .fault(let rowID?): values.append(.integer(rowID))
            case .toOne(let target?): values.append(target.stateRowID.map { .integer($0) } ?? .null)
            case .fault(nil), .toOne(nil), .unloaded, .toMany: values.append(.null)
            }
        }
        return values
    }

    /// From now on the context keeps the stored values its objects were read
    /// with; those it already holds unchanged are what the store held.
    func keepStoredValues() {
        keepStoredValues(of: identityMap.objects)
    }

    /// Keeps the stored values of those of `objects` that are unchanged:
    /// what they hold is what the store held at their version.
    func keepStoredValues(of objects: some Sequence<any Entity>) {
        for object in objects where !hasUnsavedEdits(object) {
            object.recordState.storedValues = currentColumnValues(object, readingUnread: true)
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
        guard object.stateBelongs(to: self), object.statePhase == .managed || object.statePhase == .deleted else { return }
        guard mergeChanges else {
            if object.statePhase == .deleted { object.recordState.phase = .managed }
            try withErrorContext("refreshing \(T.entityName)") { try refetchDiscardingChanges(object) }
            return
        }
        try withErrorContext("refreshing \(T.entityName)") {
            try withStoredRow(of: object, "refreshing \(T.entityName)") { row, entity in
                // The untracked snapshot moves to the stored values too, so that
                // the edits still differ from it and are written.
                try mergeStoredRow(row, into: object, attributeCount: entity.attributes.count, version: 0)
                object.recordState.version = storedVersion(row, entity)
                if mergePolicy == .storeTrumps {
                    object.recordState.storedValues = (0..<entity.columnCount).map { row.value(at: $0) }
                }
                if entity.hasRelationships { applyForeignKeys(object, row, entity) }
            }
        }
    }
}
