public import Foundation

extension Entity {
    /// ``RecordContext/observe(_:)`` for the records matching `predicate` (all
    /// of them when it is `nil`), in the order of `sortBy`.
    ///
    /// ```swift
    /// for await adults in Person.observeAll(matching: #Predicate { $0.age >= 18 },
    ///                                       sortedBy: [SortDescriptor(\.name)], in: context) {
    ///     render(adults)
    /// }
    /// ```
    public static func observeAll(
        matching predicate: Predicate<Self>? = nil, sortedBy sortBy: [SortDescriptor<Self>] = [],
        in context: RecordContext
    ) -> RecordObservation<Self> {
        context.observe(FetchRequest(predicate: predicate, sortBy: sortBy))
    }

    /// ``observeAll(matching:sortedBy:in:)`` on the default stack's main
    /// context. Before `RecordStack.setup…` the sequence ends at once, with
    /// `.notSetUp` in its ``RecordObservation/error``.
    ///
    /// ```swift
    /// for await people in Person.observeAll(sortedBy: [SortDescriptor(\.name)]) {
    ///     render(people)
    /// }
    /// ```
    @MainActor public static func observeAll(
        matching predicate: Predicate<Self>? = nil, sortedBy sortBy: [SortDescriptor<Self>] = []
    ) -> RecordObservation<Self> {
        observeAll(matching: predicate, sortedBy: sortBy, in: RecordStack.mainContext)
    }
}
