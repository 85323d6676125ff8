public import Foundation

extension Entity {
    /// Sets one attribute of every stored record `predicate` accepts, with one
    /// `UPDATE` statement committed at once (not at the next save), without
    /// loading the objects — Core Data's batch update, Rails' `update_all`.
    /// Returns the number of records changed.
    ///
    /// ```swift
    /// let archived = try Note.updateAll(matching: #Predicate { $0.stars < 2 },
    ///                                   set: \.archived, to: true, in: context)
    /// ```
    ///
    /// It means what fetching those records, setting the attribute on each
    /// and saving would mean: the predicate is translated as any query's
    /// (exactly, or refused); a record already holding the value is left
    /// alone and not counted; the value is stored as a save stores it; each
    /// changed record's version moves on, so another context holding one
    /// meets the conflict at its save; the search index follows. The change
    /// is reported like a save's, to ``RecordStack/changes``, observed
    /// queries and the store's history (the attribute's name in
    /// ``HistoryChange/updatedAttributes``). Objects `context` holds take the
    /// new value and version, keeping their unsaved edits; inside
    /// `RecordStack.write` the main context merges the change as after any
    /// write. Records `context` is deleting are left out, as a fetch leaves
    /// them out. Unsaved changes of `context` are neither saved nor read.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` for a
    ///   predicate without an exact SQL translation; `.unknownAttribute` for a
    ///   key path that is not a stored attribute (a relationship, a
    ///   `@Transient` or computed property); `.validationFailed` for a value a
    ///   save would refuse (NaN), and for an entity whose saves run
    ///   `willSave()` or `validateForSave()` (``Entity/saveHooks``), which
    ///   cannot run without loading the objects; `.invalidObject` in a child
    ///   context; `.constraintViolation` when a UNIQUE or NOT NULL constraint
    ///   rejects the change (nothing is written); `.readOnlyStore` or
    ///   `.storeUnavailable` for a store that cannot be written.
    @discardableResult
    public static func updateAll<Value>(
        matching predicate: Predicate<Self>, set keyPath: KeyPath<Self, Value>, to value: Value, in context: RecordContext
    ) throws -> Int {
        try context.updateAll(Self.self, matching: predicate, [.set(keyPath, to: value)])
    }

    /// Sets several attributes of every stored record `predicate` accepts,
    /// with one `UPDATE` statement, as
    /// ``updateAll(matching:set:to:in:)`` sets one. A record is changed when
    /// any of the assignments changes it; the last assignment to an
    /// attribute wins.
    ///
    /// ```swift
    /// let reset = try Note.updateAll(matching: #Predicate { $0.archived },
    ///                                .set(\.stars, to: 0), .set(\.reviewer, to: nil), in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what ``updateAll(matching:set:to:in:)`` throws.
    @discardableResult
    public static func updateAll(
        matching predicate: Predicate<Self>, _ assignment: AttributeAssignment<Self>, _ more: AttributeAssignment<Self>...,
        in context: RecordContext
    ) throws -> Int {
        try context.updateAll(Self.self, matching: predicate, [assignment] + more)
    }

    // MARK: Main-context forms

    /// ``updateAll(matching:set:to:in:)`` on the default stack's main context.
    ///
    /// ```swift
    /// let archived = try Note.updateAll(matching: #Predicate { $0.stars < 2 }, set: \.archived, to: true)
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @discardableResult
    public static func updateAll<Value>(
        matching predicate: Predicate<Self>, set keyPath: KeyPath<Self, Value>, to value: Value
    ) throws -> Int {
        try updateAll(matching: predicate, set: keyPath, to: value, in: RecordStack.current().mainContext)
    }

    /// ``updateAll(matching:_:_:in:)`` on the default stack's main context.
    ///
    /// ```swift
    /// try Note.updateAll(matching: #Predicate { $0.archived }, .set(\.stars, to: 0), .set(\.reviewer, to: nil))
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor @discardableResult
    public static func updateAll(
        matching predicate: Predicate<Self>, _ assignment: AttributeAssignment<Self>, _ more: AttributeAssignment<Self>...
    ) throws -> Int {
        try RecordStack.current().mainContext.updateAll(Self.self, matching: predicate, [assignment] + more)
    }
}
