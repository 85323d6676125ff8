import Foundation
public import Hummingbird
public import LiteRecord

/// The query of `GET /bookmarks?folder=&tag=&q=&sort=&limit=&offset=`.
///
/// `folder` and `tag` are `#Predicate`s through the relationships (a join
/// and an `EXISTS` over the join table), `q` a case-insensitive match on the
/// title (`TextMatch`), `sort` one of ``Sort``.
///
/// ```swift
/// let query = try BookmarkQuery(parameters: request.uri.queryParameters)
/// ```
public struct BookmarkQuery: Sendable, Equatable {
    /// The orders `sort=` takes; a leading `-` (`-createdAt`) is descending.
    public enum Sort: String, Sendable, CaseIterable {
        case createdAt, title, visits, id
    }

    /// Only the bookmarks in this folder.
    public var folder: String?
    /// Only the bookmarks carrying this tag.
    public var tag: String?
    /// Only the bookmarks whose title contains this, ignoring case.
    public var text: String?
    /// The order; newest first by default.
    public var sort: Sort = .createdAt
    /// Whether ``sort`` is descending.
    public var descending = true
    /// At most this many (1…500, 50 by default).
    public var limit = 50
    /// Skip this many.
    public var offset = 0

    /// The largest `limit` a request may ask for.
    public static let maximumLimit = 500
    /// The largest `offset`: past it, paging by offset costs a scan of every
    /// row skipped; page by `sort=id` and the last id's `offset` instead.
    public static let maximumOffset = 100_000
    /// The longest `q` (in characters): a text match runs per row.
    public static let maximumTextLength = 200

    /// A query with the given filters.
    ///
    /// ```swift
    /// let query = BookmarkQuery(tag: "swift", limit: 20)
    /// ```
    public init(folder: String? = nil, tag: String? = nil, text: String? = nil, sort: Sort = .createdAt,
                descending: Bool = true, limit: Int = 50, offset: Int = 0) {
        self.folder = folder
        self.tag = tag
        self.text = text
        self.sort = sort
        self.descending = descending
        self.limit = limit
        self.offset = offset
    }

    /// Reads the query string; an empty parameter is no filter.
    ///
    /// ```swift
    /// let query = try BookmarkQuery(parameters: request.uri.queryParameters)
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` naming `sort`, `limit` or `offset`
    ///   when its value is not one the route takes.
    public init(parameters: Parameters) throws {
        func value(_ name: String) -> String? {
            guard let text = parameters.get(name), !text.isEmpty else { return nil }
            return text
        }
        folder = value("folder")
        tag = value("tag")
        text = value("q")
        if let text, text.count > Self.maximumTextLength {
            throw HTTPError(.badRequest, message: "parameter 'q' must be at most \(Self.maximumTextLength) characters")
        }
        if var sortText = value("sort") {
            descending = sortText.hasPrefix("-")
            if descending { sortText.removeFirst() }
            guard let sort = Sort(rawValue: sortText) else {
                let names = Sort.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError(.badRequest, message: "parameter 'sort' must be one of \(names), with an optional leading '-'")
            }
            self.sort = sort
        }
        if let limitText = value("limit") {
            guard let limit = Int(limitText), (1...Self.maximumLimit).contains(limit) else {
                throw HTTPError(.badRequest, message: "parameter 'limit' must be an integer from 1 to \(Self.maximumLimit)")
            }
            self.limit = limit
        }
        if let offsetText = value("offset") {
            guard let offset = Int(offsetText), (0...Self.maximumOffset).contains(offset) else {
                throw HTTPError(.badRequest, message: "parameter 'offset' must be an integer from 0 to \(Self.maximumOffset)")
            }
            self.offset = offset
        }
    }

    /// The fetch request: predicate, text match, order, limit, offset and
    /// prefetching of `folder` and `tags`.
    ///
    /// ```swift
    /// let bookmarks = try Bookmark.fetch(query.fetchRequest(), in: context)
    /// ```
    public func fetchRequest() -> FetchRequest<Bookmark> {
        var request = FetchRequest<Bookmark>(
            predicate: predicate(),
            sortBy: sortDescriptors(),
            fetchLimit: limit,
            fetchOffset: offset,
            relationshipKeyPathsForPrefetching: [\Bookmark.folder, \Bookmark.tags]
        )
        if let text { request.textMatches = [.caseInsensitive(\.title, contains: text)] }
        return request
    }

    func predicate() -> Predicate<Bookmark>? {
        switch (folder, tag) {
        case (nil, nil):
            return nil
        case (let folder?, nil):
            return #Predicate { $0.folder?.name == folder }
        case (nil, let tag?):
            return #Predicate { $0.tags.contains { $0.label == tag } }
        case (let folder?, let tag?):
            return #Predicate { bookmark in
                bookmark.folder?.name == folder && bookmark.tags.contains { $0.label == tag }
            }
        }
    }

    func sortDescriptors() -> [SortDescriptor<Bookmark>] {
        let order: SortOrder = descending ? .reverse : .forward
        switch sort {
        case .createdAt: return [SortDescriptor(\.createdAt, order: order)]
        case .title: return [SortDescriptor(\.title, order: order)]
        case .visits: return [SortDescriptor(\.visits, order: order)]
        // The row id: the primary key is every request's final tie-breaker,
        // so no descriptor means ascending ids (BookmarkStore.list reads
        // `-id` from the other end).
        case .id: return []
        }
    }
}
