public import Foundation

extension Entity {
    /// The stored records whose `.searchable` attributes match `text`, best
    /// match first (BM25, weighted by ``AttributeDescription/Options-swift.struct/searchable(weight:)``),
    /// or in the order of `sortBy` when given.
    ///
    /// ```swift
    /// let best = try Article.search("swift concurrency", in: context)
    /// let recent = try Article.search("swift", matching: #Predicate { $0.published > cutoff },
    ///                                 limit: 20, in: context)
    /// ```
    ///
    /// `text` is what a person typed: every word must match, case and
    /// diacritics are ignored (`cafe` finds "Café", typed in NFC or NFD),
    /// `word*` matches a prefix, `"quoted words"` a phrase, `OR` between two
    /// terms either of them, and a leading `-` leaves out records with the
    /// word. Any other text — `C++ (beta`, an unbalanced quote, FTS5's own
    /// syntax — is searched as plain words: it is never an error and never
    /// SQL. Text with nothing to search for (empty, only punctuation, or only
    /// `-word`s) finds no records. The search, the predicate and the order
    /// run as one SQL statement.
    ///
    /// Search reads what is saved in the store: the context's unsaved
    /// changes are not searched (an object the context holds is returned
    /// with its unsaved edits, like any fetch).
    ///
    /// - Parameters:
    ///   - text: the search text.
    ///   - predicate: a condition the records must also meet.
    ///   - sortBy: an order replacing relevance; the primary key breaks ties.
    ///   - limit: at most this many records (negative counts as 0).
    ///   - offset: how many to skip first, for paging.
    ///   - context: the context whose objects are returned.
    /// - Throws: ``LiteRecordError`` of kind `.unknownAttribute` when the
    ///   entity has no `.searchable` attribute, `.unsupportedPredicate` for a
    ///   predicate or sort descriptor with no SQL translation, or when the
    ///   store cannot be read.
    public static func search(
        _ text: String, matching predicate: Predicate<Self>? = nil, sortBy: [SortDescriptor<Self>] = [],
        limit: Int? = nil, offset: Int? = nil, in context: RecordContext
    ) throws -> [Self] {
        try context.search(
            Self.self, text, predicate: predicate, sortBy: sortBy, limit: limit, offset: offset, snippets: false
        ).map(\.object)
    }

    /// ``search(_:matching:sortBy:limit:offset:in:)`` with each record's
    /// ``SearchResult/score`` and snippets of the matched text
    /// (``SearchResult/snippet(of:open:close:)``).
    ///
    /// ```swift
    /// for hit in try Article.searchResults("swift", in: context) {
    ///     print(hit.object.title, hit.score, hit.snippet(of: \.body))
    /// }
    /// ```
    ///
    /// - Throws: what ``search(_:matching:sortBy:limit:offset:in:)`` throws.
    public static func searchResults(
        _ text: String, matching predicate: Predicate<Self>? = nil, sortBy: [SortDescriptor<Self>] = [],
        limit: Int? = nil, offset: Int? = nil, in context: RecordContext
    ) throws -> [SearchResult<Self>] {
        try context.search(Self.self, text, predicate: predicate, sortBy: sortBy, limit: limit, offset: offset, snippets: true)
    }

    /// ``search(_:matching:sortBy:limit:offset:in:)`` on the default stack's
    /// main context.
    ///
    /// ```swift
    /// let best = try Article.search("swift concurrency", limit: 20)
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func search(
        _ text: String, matching predicate: Predicate<Self>? = nil, sortBy: [SortDescriptor<Self>] = [],
        limit: Int? = nil, offset: Int? = nil
    ) throws -> [Self] {
        try search(text, matching: predicate, sortBy: sortBy, limit: limit, offset: offset, in: RecordStack.current().mainContext)
    }

    /// ``searchResults(_:matching:sortBy:limit:offset:in:)`` on the default
    /// stack's main context.
    ///
    /// ```swift
    /// for hit in try Article.searchResults("swift") { print(hit.snippet(of: \.body)) }
    /// ```
    ///
    /// - Throws: ``LiteRecordError``: what the `in:` form throws, or `.notSetUp` before `RecordStack.setup…`.
    @MainActor public static func searchResults(
        _ text: String, matching predicate: Predicate<Self>? = nil, sortBy: [SortDescriptor<Self>] = [],
        limit: Int? = nil, offset: Int? = nil
    ) throws -> [SearchResult<Self>] {
        try searchResults(
            text, matching: predicate, sortBy: sortBy, limit: limit, offset: offset, in: RecordStack.current().mainContext)
    }
}
