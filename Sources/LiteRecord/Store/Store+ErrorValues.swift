extension Store {
    /// Whether an error about this store may show values: its own choice
    /// when it has one, the process-wide switch otherwise.
    var showsValuesInErrors: Bool {
        includesValuesInDescriptions.withLock { $0 } ?? ErrorSettings.includesValues.withLock { $0 }
    }

    /// Runs `body` with ``ErrorSettings/showsValues`` answering for this
    /// store, for the errors made where the store is not at hand.
    func scopingErrorValues<T>(_ body: () throws -> T) rethrows -> T {
        try ErrorSettings.$stackIncludesValues.withValue(showsValuesInErrors) { try body() }
    }
}
