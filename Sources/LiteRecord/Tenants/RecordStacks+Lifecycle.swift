public import Foundation

extension RecordStacks {
    /// Deletes the tenant `name`: once the closures holding its stack have
    /// returned, closes it and removes its store, `-wal`, `-shm` and kept
    /// pre-migration copies. A later ``create(_:)`` of the name starts empty.
    ///
    /// ```swift
    /// try await tenants.delete("acme")
    /// ```
    ///
    /// From the call on, new ``withStack(for:isolation:_:)`` calls for the tenant
    /// throw; the ones already running finish first.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for an
    ///   invalid name, `.storeUnavailable` when the tenant does not exist, is
    ///   already being created or deleted, when called inside a
    ///   ``withStack(for:isolation:_:)`` closure of that tenant, or a task it started
    ///   with `Task {}` (it would wait for itself), after ``close()``, or when a file cannot be removed.
    public func delete(_ name: String) async throws {
        let tenant = try TenantName(name)
        guard !holds(tenant.key) else {
            throw LiteRecordError(
                .storeUnavailable,
                "delete(\"\(tenant.name)\") was called inside withStack(for:) of that tenant and was refused: it would wait for itself")
        }
        try reserve(tenant, deleting: true)
        defer { endReservation(of: tenant, deleting: true) }
        guard let diskName = try existingName(of: tenant) else { throw unknownTenant(tenant) }
        await closeWhenIdle(tenant.key)
        try remove(try files(of: diskName))
    }

    /// Writes a consistent copy of the tenant's store to a new file at
    /// `destination`, as `RecordStack.backup(to:)` does, while the tenant
    /// keeps working.
    ///
    /// ```swift
    /// try await tenants.backup("acme", to: backupsFolder.appendingPathComponent("acme.sqlite"))
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: as ``withStack(for:isolation:_:)`` for the
    ///   tenant, and as `RecordStack.backup(to:)` (`.storeUnavailable` when
    ///   `destination` exists or cannot be written).
    public func backup(_ name: String, to destination: URL) async throws {
        try await withStack(for: name) { stack in
            try await Self.offPool { try stack.backup(to: destination) }
        }
    }

    /// Waits until no closure holds the stack of `key`, then takes it out of
    /// the table and closes it (its writes finish first).
    private func closeWhenIdle(_ key: String) async {
        while true {
            let (done, stack, generation) = table.withLock { table -> (Bool, RecordStack?, UInt64) in
                guard let slot = table.slots[key] else { return (true, nil, 0) }
                guard slot.users == 0, let stack = slot.stack else { return (false, nil, table.generation) }
                table.slots.removeValue(forKey: key)
                return (true, stack, 0)
            }
            if done {
                // Closed before a close() waiting for the last stack returns;
                // its room is free then, for a task waiting for one.
                update { _ in ((), stack) }
                return
            }
            await waitForChange(after: generation)
        }
    }

    /// Marks `tenant` as being created or deleted, so that nothing opens,
    /// creates or deletes it meanwhile.
    func reserve(_ tenant: TenantName, deleting: Bool) throws(LiteRecordError) {
        let refusal = table.withLock { table -> LiteRecordError? in
            if table.closed { return Self.closedError() }
            if table.deleting.contains(tenant.key) || table.creating.contains(tenant.key) {
                return LiteRecordError(.storeUnavailable, "the tenant '\(tenant.name)' is being created or deleted")
            }
            if deleting {
                table.deleting.insert(tenant.key)
            } else if table.slots[tenant.key] != nil {
                return LiteRecordError(.storeUnavailable, "the tenant '\(tenant.name)' already exists in \(directory.path)")
            } else {
                table.creating.insert(tenant.key)
            }
            return nil
        }
        if let refusal { throw refusal }
    }

    func endReservation(of tenant: TenantName, deleting: Bool) {
        update { table -> ((), RecordStack?) in
            if deleting { table.deleting.remove(tenant.key) } else { table.creating.remove(tenant.key) }
            return ((), nil)
        }
    }
}
