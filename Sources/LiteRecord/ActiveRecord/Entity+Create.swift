extension Entity where Self: DefaultInitializable {
    /// A new object with every property at its default, inserted into `context`
    /// (its `awakeFromInsert()` has run). It is written at the next save.
    ///
    /// ```swift
    /// let note = Note.create(in: context)
    /// note.title = "Groceries"
    /// ```
    public static func create(in context: RecordContext) -> Self {
        let object = Self()
        context.insert(object)
        return object
    }

    /// ``create(in:)`` in the default stack's main context.
    ///
    /// - Throws: `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func create() throws -> Self {
        create(in: try RecordStack.current().mainContext)
    }
}
