extension Entity {
    /// Marks the object for deletion from `context`; the row goes at the next save.
    ///
    /// ```swift
    /// try person.delete(in: context)
    /// try context.save()
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidObject` when the object was
    ///   never inserted or belongs to another context.
    public func delete(in context: RecordContext) throws {
        if withState({ $0.isForgotten }) {
            throw LiteRecordError(.invalidObject, RecordContext.forgottenMessage(Self.entityName, "deleted"))
        }
        guard statePhase != .unmanaged else {
            throw LiteRecordError(.invalidObject, "this \(Self.entityName) was never inserted or saved, so there is nothing to delete")
        }
        guard stateContext === context else {
            throw LiteRecordError(.invalidObject, "this \(Self.entityName) belongs to another context; delete it there, or use inContext(_:)")
        }
        context.delete(self)
    }

    /// Marks the object for deletion from its own context (the main context's
    /// objects are deleted at its next save).
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidObject` when the object was
    ///   never inserted or saved.
    @MainActor public func delete() throws {
        if withState({ $0.isForgotten }) {
            throw LiteRecordError(.invalidObject, RecordContext.forgottenMessage(Self.entityName, "deleted"))
        }
        guard let context = self.context else {
            throw LiteRecordError(.invalidObject, "this \(Self.entityName) was never inserted or saved, so there is nothing to delete")
        }
        try delete(in: context)
    }

    /// Deletes every record of the entity at once (one `DELETE` statement) and
    /// forgets the objects the context holds. Returns how many were deleted.
    ///
    /// ```swift
    /// try Person.truncateAll(in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidObject` in a child
    ///   context (whose changes reach the store only through its root's
    ///   save), or when the store cannot be written.
    @discardableResult
    public static func truncateAll(in context: RecordContext) throws -> Int {
        try context.deleteAll(Self.self, whereSQL: nil, arguments: [])
    }

    /// ``truncateAll(in:)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @discardableResult
    public static func truncateAll() throws -> Int {
        try truncateAll(in: RecordStack.current().mainContext)
    }

    /// The same record as an object of `context`, or `nil` when it has not been
    /// saved or no longer exists (MagicalRecord's `MR_inContext`).
    ///
    /// ```swift
    /// let mine = person.inContext(backgroundContext)
    /// ```
    public func inContext(_ context: RecordContext) -> Self? {
        guard let id = recordID else { return nil }
        do {
            return try context.existingObject(with: id, as: Self.self)
        } catch {
            context.store.logger.warning("inContext could not read the record", metadata: ["record": "\(id)", "error": "\(error)"])
            return nil
        }
    }
}
