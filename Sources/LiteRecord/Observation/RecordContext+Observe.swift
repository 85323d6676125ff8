extension RecordContext {
    /// The request's results as an asynchronous sequence: the current results
    /// first, then again after every commit that changes them (see
    /// ``RecordObservation`` for when, and `Docs/Observation.md`).
    ///
    /// ```swift
    /// @MainActor func watch() async {
    ///     let request = FetchRequest<Person>(sortBy: [SortDescriptor(\.name)])
    ///     for await people in RecordStack.mainContext.observe(request) {
    ///         print(people.map(\.name))
    ///     }
    /// }
    /// ```
    ///
    /// The objects are this context's, so iterate in the context's isolation.
    /// Nothing is fetched until iteration starts; cancelling the iterating
    /// task ends the sequence and releases everything it holds.
    public func observe<T: Entity>(_ request: FetchRequest<T>) -> RecordObservation<T> {
        RecordObservation(context: self, request: request)
    }
}
