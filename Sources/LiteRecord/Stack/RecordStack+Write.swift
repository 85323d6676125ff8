extension RecordStack {
    /// Runs `body` with a fresh background context in one write transaction and
    /// saves it; when this returns, the changes are in the store and merged into
    /// ``mainContext-property``. A throw inside `body` rolls everything back.
    ///
    /// MagicalRecord's `saveWithBlock`, safe by construction: the context never
    /// leaves the closure; return `Sendable` values (counts, ``RecordID``s).
    ///
    /// ```swift
    /// let id = try await stack.write { context in
    ///     let note = Note.create(in: context)
    ///     note.title = "Groceries"
    ///     try context.save()          // optional: write saves at the end anyway
    ///     return note.recordID
    /// }
    /// ```
    ///
    /// - Throws: what `body` throws, or ``LiteRecordError`` when the save fails.
    public func write<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        // Writes queue on an actor of the stack's own, which runs on a dispatch
        // queue (see StoreExecutors): waiting writers suspend instead of each
        // blocking a thread on the writer lock, and the write itself blocks
        // no thread of the cooperative pool.
        // Counted from the call on, so that close() (and cleanUp()) lets it
        // finish even while it waits behind another write
        // (Docs/Internals/Invariants.md, "Closing finishes what was queued").
        guard store.queuedWrites.enter() else {
            throw store.unavailableError
                ?? LiteRecordError(.storeUnavailable, "a write failed: the store \(store.displayName) is closed")
        }
        let (result, changes, columns) = try await writeQueue.perform {
            defer { self.store.queuedWrites.leave() }
            return try self.performWrite(body)
        }
        // Without a main context there is nothing to merge into, and no reason
        // to wait for the main actor (which a busy app may keep).
        if !changes.isEmpty, hasMainContext {
            await MainActor.run { self.existingMainContext?.merge(changes, columns: columns) }
        }
        return result
    }

    /// Runs the write synchronously on the calling thread: the whole closure and
    /// the save are one transaction; the change sets are published only after
    /// the commit.
    func performWrite<T>(_ body: (RecordContext) throws -> T) throws -> (T, ChangeSet, [RecordID: WrittenColumns]) {
        var committed: [ChangeSet] = []
        var columns: [RecordID: WrittenColumns] = [:]
        let result = try store.writePassingCallerErrors("a write") { _ in
            let context = RecordContext(store: store, role: .writer)
            context.writtenColumns = [:]
            context.didSave = { committed.append($0) }
            let value = try body(context)
            try context.save()
            columns = context.writtenColumns ?? [:]
            return value
        }
        return (result, ChangeSet(merging: committed), columns)
    }

    /// Runs `body` with a fresh context for reading and returns what it returns.
    ///
    /// ```swift
    /// let n = try await stack.read { context in try Note.count(in: context) }
    /// ```
    ///
    /// - Throws: what `body` throws, or ``LiteRecordError`` when reading fails.
    public func read<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        // The read blocks while SQLite reads: it runs on the library's read
        // queue, not on a thread of the cooperative pool (see StoreExecutors).
        // Run there, readers looping over `read` kept every such thread and a
        // writer never ran again.
        try await withTaskExecutorPreference(StoreExecutors.reads) {
            try self.performRead(body)
        }
    }

    /// Runs a read synchronously on the calling thread, in one read transaction.
    func performRead<T>(_ body: (RecordContext) throws -> T) throws -> T {
        try store.withReaderPassingCallerErrors("a read") { connection in
            // One read transaction: the closure sees one consistent snapshot,
            // whatever commits meanwhile (https://sqlite.org/isolation.html).
            if connection.isInTransaction {
                return try body(RecordContext(store: store, role: .pinned(connection)))
            }
            return try connection.transaction(.deferred) {
                try body(RecordContext(store: store, role: .pinned(connection)))
            }
        }
    }

    /// Every change set committed to this stack's store from now on — by any
    /// context's save, `write`, or a set-based delete — one per transaction, in
    /// commit order. Each access returns a new stream; it ends when the stack
    /// closes or is released, or when its reader falls 10,000 change sets
    /// behind (rather than buffering without bound): subscribe again then, and
    /// re-read what depends on it.
    ///
    /// ```swift
    /// for await change in stack.changes {
    ///     print(change.inserted.count, "inserted")
    /// }
    /// ```
    public var changes: AsyncStream<ChangeSet> {
        store.changes.subscribe()
    }
}

/// Runs background writes one at a time, on a dispatch queue of its own.
actor WriteQueue {
    private let executor = DispatchSerialExecutor(label: "LiteRecord.write")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    func perform<T: Sendable>(_ work: @Sendable () throws -> T) throws -> T {
        try work()
    }
}

extension RecordContext {
    /// Applies another context's committed changes: deleted records are
    /// forgotten, updated ones re-read — except attributes edited here and not
    /// yet saved, which keep their in-memory value.
    ///
    /// A merge never settles a conflict: an object with unsaved edits keeps
    /// them and the row version they are based on (and, when its record was
    /// deleted, stays registered), so its next save meets the conflict and
    /// ``mergePolicy`` decides. Objects without edits take the new version.
    ///
    /// `columns` (from a `write` context) says which columns each update
    /// wrote: an object whose edits touch none of them, and whose row moved
    /// by exactly those writes, takes the new version too — the edits are of
    /// other properties, which no save overwrites.
    func merge(_ changes: ChangeSet, columns: [RecordID: WrittenColumns] = [:]) {
        if store.model.hasRelationships {
            forgetToManys(changedBy: changes)
            dropPendingJoinsTheWriteMade(changes)
        }
        for id in changes.deleted {
            guard let type = store.model.entity(named: id.entityName)?.type,
                let object = registeredObject(type, rowID: id.rowID)
            else { continue }
            if object.statePhase == .managed, hasUnsavedEdits(object) { continue }
            unregister(object, forgotten: true)
        }
        // A pending deletion edits no property: it takes the write's values
        // too (keeping the version it is based on, so its save still meets
        // the conflict), or a `rollback()` that takes it back would leave an
        // unchanged object showing values older than the merge delivered.
        for id in changes.updated {
            guard let type = store.model.entity(named: id.entityName)?.type,
                let object = registeredObject(type, rowID: id.rowID),
                object.statePhase == .managed || object.statePhase == .deleted
            else { continue }
            do {
                try reload(object, written: columns[id])
            } catch {
                store.logger.warning("merging a change failed", metadata: ["record": "\(id)", "error": "\(error)"])
            }
        }
        if store.model.hasRelationships, !changes.updated.isEmpty { displaceMergedOneToOnes(changes) }
        if store.model.hasRelationships { applyPendingDeletionRules(after: changes) }
    }

    /// Re-reads an object's stored values, keeping attributes changed in memory.
    func reload(_ object: any Entity, written: WrittenColumns? = nil) throws {
        try reloadOpened(object, written: written)
    }

    private func reloadOpened<T: Entity>(_ object: T, written: WrittenColumns?) throws {
        // Read before the refresh, which moves an untracked snapshot along.
        let edits = written == nil ? nil : editedColumns(object)
        var countedOwnersLeft: [(relationship: ResolvedRelationship, rowID: Int64)] = []
        try withStoredRow(of: object, "merging \(T.entityName)") { row, entity in
            if object.statePhase == .deleted, entity.hasRelationships { countedOwnersLeft = storedCountedOwners(row, entity) }
            let version = storedVersion(row, entity)
            try mergeStoredRow(
                row, into: object, attributeCount: entity.attributes.count, version: version,
                keeping: mergePolicy == .storeTrumps ? entity.columnCount : 0)
            if let written, let edits, object.statePhase == .managed, edits.isDisjoint(with: written.columns),
                version == object.withState({ $0.version }) + written.versions
            {
                // What it did not change it now reads at the new version:
                // `.storeTrumps` compares a later conflict with those values
                // (model seed 230644 at length 80: a to-one the write set,
                // then set here, was taken for one the store changed since).
                object.withState { state in
                    state.version = version
                    guard var kept = state.storedValues else { return }
                    for column in kept.indices where !edits.contains(column) { kept[column] = row.value(at: column) }
                    state.storedValues = kept
                }
            }
            if object.statePhase == .deleted { versionsMergedWhileDeleted[ObjectIdentifier(object)] = (object, version) }
            if entity.hasRelationships {
                applyForeignKeys(object, row, entity, resettingToMany: true)
                // The to-ones of a pending deletion are the write's now (no
                // change of its own is kept): a rollback taking the deletion
                // back leaves them so, not at those the delete rules replaced
                // before the write (model seed 34609).
                if object.statePhase == .deleted, !slotsChangedWhileDeleted.isEmpty { slotsChangedWhileDeleted[ObjectIdentifier(object)] = nil }
            }
        }
        // A pending deletion now takes its object from the lists its stored
        // to-ones name: a counted one is checked at the save (model seed
        // 121382: a write moved it into another owner's list, which the
        // save did not count). Read after the row's statement.
        if !countedOwnersLeft.isEmpty { noteCountedOwners(countedOwnersLeft) }
    }
}

extension RecordContext {
    /// The columns of the object changed here and not saved yet.
    func editedColumns(_ object: any Entity) -> AttributeMask {
        let state = object.recordState
        guard !type(of: object).tracksChanges else { return state.changes }
        var mask = state.changes
        for index in changedIndexesUntracked(object) { mask.insert(index) }
        return mask
    }
}
