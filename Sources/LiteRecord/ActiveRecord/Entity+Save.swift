extension Entity {
    /// Saves `context` after inserting the object into it if it is new. Like
    /// MagicalRecord's save, this saves every pending change of the context,
    /// not only this object's.
    ///
    /// ```swift
    /// try Person(name: "Ann", age: 31).save(in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidObject` when the object
    ///   belongs to another context, or stood for a record its context
    ///   forgot (deleted elsewhere, or the context was reset or went away):
    ///   such an object is never saved as a new record. Or the save's error.
    public func save(in context: RecordContext) throws {
        if withState({ $0.isForgotten }) {
            throw LiteRecordError(.invalidObject, RecordContext.forgottenMessage(Self.entityName, "saved"))
        }
        if statePhase == .unmanaged {
            context.insert(self)
        } else if stateContext !== context {
            throw LiteRecordError(.invalidObject, "this \(Self.entityName) belongs to another context; save that one, or use inContext(_:)")
        }
        try context.save()
    }

    /// Saves the object's context, inserting a new object into the default
    /// stack's main context first.
    ///
    /// - Throws: `.notSetUp` before setup, `.invalidObject` for an object
    ///   whose context forgot its record (see ``save(in:)``), or the save's
    ///   error.
    @MainActor public func save() throws {
        if let context = self.context {
            try context.save()
        } else {
            try save(in: RecordStack.current().mainContext)
        }
    }
}
