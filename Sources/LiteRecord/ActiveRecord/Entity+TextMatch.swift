public import Foundation

extension Entity {
    /// Every record whose text matches `match`, ignoring case, sorted by
    /// `sortDescriptors` (see ``TextMatch`` for the exact rules).
    ///
    /// ```swift
    /// let dune = try Book.findAll(matching: .caseInsensitive(\.title, contains: "dune"), in: context)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.unsupportedPredicate` when the
    ///   key path is not a stored `String` attribute, or when the store cannot
    ///   be read.
    public static func findAll(
        matching match: TextMatch<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = [], in context: RecordContext
    ) throws -> [Self] {
        var request = FetchRequest<Self>(sortBy: sortDescriptors)
        request.textMatches = [match]
        return try context.fetch(request)
    }

    /// ``findAll(matching:sortedBy:in:)-(TextMatch<Self>,_,_)`` on the default stack's main context.
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func findAll(
        matching match: TextMatch<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = []
    ) throws -> [Self] {
        try findAll(matching: match, sortedBy: sortDescriptors, in: RecordStack.current().mainContext)
    }
}
