public import Foundation

extension Entity {
    /// Calls `body` with every stored record `predicate` accepts, in the order
    /// of `sortDescriptors` (insertion order without them), reading
    /// `batchSize` rows at a time. Objects are not kept by the context (unless
    /// it already held them), so memory stays bounded however many records
    /// there are.
    ///
    /// ```swift
    /// var total = 0
    /// try Person.enumerate(matching: #Predicate { $0.age > 30 }, batchSize: 1_000, in: context) { person in
    ///     total += person.age
    /// }
    /// ```
    ///
    /// The store is not locked while `body` runs, so it may read and write;
    /// records changed meanwhile may be seen in their new state or skipped
    /// when the enumeration is sorted.
    ///
    /// - Throws: what `body` throws, unchanged (the enumeration stops there),
    ///   or ``LiteRecordError`` of kind `.unsupportedPredicate` for a predicate
    ///   or sort descriptor without an exact SQL translation, or when the store
    ///   cannot be read.
    public static func enumerate(
        matching predicate: Predicate<Self>? = nil, sortedBy sortDescriptors: [SortDescriptor<Self>] = [],
        batchSize: Int = 500, in context: RecordContext, _ body: (Self) throws -> Void
    ) throws {
        let query = try FetchRequest(predicate: predicate, sortBy: sortDescriptors).sqlQuery(model: context.store.model)
        var bodyError: (any Error)?
        do {
            try context.enumerate(Self.self, query, batchSize: batchSize) { object in
                do {
                    try body(object)
                } catch {
                    bodyError = error
                    throw error
                }
            }
        } catch {
            // The core wraps everything in LiteRecordError; the caller's own
            // error is handed back as it was thrown.
            if let bodyError { throw bodyError }
            throw error
        }
    }

    /// ``enumerate(matching:sortedBy:batchSize:in:_:)`` on the default stack's
    /// main context.
    ///
    /// ```swift
    /// try Person.enumerate(matching: #Predicate { $0.age > 30 }) { person in print(person.name) }
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func enumerate(
        matching predicate: Predicate<Self>? = nil, sortedBy sortDescriptors: [SortDescriptor<Self>] = [],
        batchSize: Int = 500, _ body: (Self) throws -> Void
    ) throws {
        try enumerate(
            matching: predicate, sortedBy: sortDescriptors, batchSize: batchSize, in: RecordStack.current().mainContext,
            body)
    }
}
