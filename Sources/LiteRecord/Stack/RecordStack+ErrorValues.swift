extension RecordStack {
    /// Whether this stack's errors may show values — the values of a save's
    /// conflict, an imported value that does not fit, bound values — or
    /// only describe them. `nil`, the default, follows the process-wide
    /// ``LiteRecordError/includesValuesInDescriptions``.
    ///
    /// A stack over a store of test fixtures can show values while the
    /// app's other stacks, holding user data, keep them out of logs:
    ///
    /// ```swift
    /// let fixtures = try RecordStack(inMemoryWith: [Note.self])
    /// fixtures.includesValuesInDescriptions = true
    /// ```
    ///
    /// A context's own setting, where it has one, still wins over the stack's.
    public var includesValuesInDescriptions: Bool? {
        get { store.includesValuesInDescriptions.withLock { $0 } }
        set { store.includesValuesInDescriptions.withLock { $0 = newValue } }
    }
}
