public import Foundation

/// What to fetch: which records (a Foundation `Predicate`), in which order
/// (`SortDescriptor`s), and which slice of the result.
///
/// ```swift
/// let request = FetchRequest<Person>(
///     predicate: #Predicate { $0.age > 30 },
///     sortBy: [SortDescriptor(\.name)],
///     fetchLimit: 20)
/// let people = try context.fetch(request)
/// ```
///
/// The predicate and the sort descriptors are translated to SQL; the result is
/// exactly what `predicate.evaluate` and `sorted(using:)` would give over the
/// stored objects, or the fetch throws `.unsupportedPredicate` naming the part
/// that has no exact translation.
public struct FetchRequest<T: Entity>: Sendable {
    /// Which records to fetch; `nil` fetches all of them.
    public var predicate: Predicate<T>?
    /// The order of the results; ties (and an empty list) keep insertion order.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many objects; `nil` for no limit. Negative counts as 0.
    public var fetchLimit: Int?
    /// How many matching objects to skip first. Negative counts as 0.
    public var fetchOffset: Int
    /// Case-insensitive text conditions, all of which must hold as well as
    /// ``predicate`` (see ``TextMatch``).
    ///
    /// ```swift
    /// var request = FetchRequest<Book>(sortBy: [SortDescriptor(\.title)])
    /// request.textMatches = [.caseInsensitive(\.title, contains: "dune")]
    /// ```
    public var textMatches: [TextMatch<T>] = []
    /// Relationships to load for every fetched object with the fetch: one
    /// statement per to-one or to-many relationship (two for a many-to-many),
    /// however many objects were fetched, instead of one per object on first
    /// access.
    ///
    /// ```swift
    /// var request = FetchRequest<Book>()
    /// request.relationshipKeyPathsForPrefetching = [\.author]
    /// ```
    public var relationshipKeyPathsForPrefetching: [any PartialKeyPath<T> & Sendable]

    /// A request for the objects matching `predicate` (all of them when it is
    /// `nil`), in the order of `sortBy`, limited and offset as given.
    public init(
        predicate: Predicate<T>? = nil,
        sortBy: [SortDescriptor<T>] = [],
        fetchLimit: Int? = nil,
        fetchOffset: Int = 0,
        relationshipKeyPathsForPrefetching: [any PartialKeyPath<T> & Sendable] = []
    ) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
    }

    /// The SQL below `SELECT … FROM <table>`.
    func sqlQuery(model: Model) throws(LiteRecordError) -> SQLQuery {
        var query = SQLQuery()
        (query.whereSQL, query.arguments) = try Self.combine(
            PredicateTranslator.condition(predicate, model: model), with: textMatches)
        query.orderBy = try SortTranslator.orderBy(sortBy)
        query.limit = fetchLimit.map { max(0, $0) }
        query.offset = fetchOffset > 0 ? fetchOffset : nil
        return query
    }
}

extension PredicateTranslator {
    /// The `WHERE` condition selecting what `predicate` accepts; `nil` for no
    /// predicate (every record).
    static func condition<T: Entity>(
        _ predicate: Predicate<T>?, model: Model
    ) throws(LiteRecordError) -> (sql: String?, arguments: [SQLValue]) {
        guard let predicate else { return (nil, []) }
        let condition = try model.predicateCache.condition(predicate, model: model)
        return (condition.sql, condition.arguments)
    }
}
