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
    /// Where the page starts: after the bookmarks of the page whose `Link`
    /// header gave it (``Cursor``); `nil` for the first page, or a page by
    /// `offset`.
    public var cursor: Cursor?

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

    /// Reads the query string; an empty parameter is no filter, one sent
    /// twice is 400.
    ///
    /// ```swift
    /// let query = try BookmarkQuery(parameters: request.uri.queryParameters)
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` naming `sort`, `limit` or `offset`
    ///   when its value is not one the route takes.
    public init(parameters: Parameters) throws {
        func value(_ name: String) throws -> String? {
            // Sent twice, a parameter has no one value to read.
            guard parameters.getAll(name).count <= 1 else {
                throw HTTPError(.badRequest, message: "parameter '\(name)' must be given at most once")
            }
            guard let text = parameters.get(name), !text.isEmpty else { return nil }
            return text
        }
        folder = try value("folder")
        tag = try value("tag")
        text = try value("q")
        if let text, text.count > Self.maximumTextLength {
            throw HTTPError(.badRequest, message: "parameter 'q' must be at most \(Self.maximumTextLength) characters")
        }
        if var sortText = try value("sort") {
            descending = sortText.hasPrefix("-")
            if descending { sortText.removeFirst() }
            guard let sort = Sort(rawValue: sortText) else {
                let names = Sort.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError(.badRequest, message: "parameter 'sort' must be one of \(names), with an optional leading '-'")
            }
            self.sort = sort
        }
        if let limitText = try value("limit") {
            guard let limit = Int(limitText), (1...Self.maximumLimit).contains(limit) else {
                throw HTTPError(.badRequest, message: "parameter 'limit' must be an integer from 1 to \(Self.maximumLimit)")
            }
            self.limit = limit
        }
        if let token = try value("cursor") {
            guard let cursor = Cursor(token: token) else {
                throw HTTPError(.badRequest, message: "parameter 'cursor' is not one a page's Link header gave")
            }
            guard cursor.sort == sort, cursor.descending == descending else {
                throw HTTPError(.badRequest, message: "parameter 'cursor' continues another order; send the sort it was given with")
            }
            guard try value("offset") == nil else {
                throw HTTPError(.badRequest, message: "parameters 'cursor' and 'offset' cannot be combined")
            }
            self.cursor = cursor
        }
        if let offsetText = try value("offset") {
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
        if let cursor {
            // Seek: the bookmarks from the last key served on, skipping
            // those of that key already served (they come first, in row-id
            // order). No offset over the pages before.
            request.predicate = seekPredicate(cursor.value)
            request.fetchOffset = cursor.skip
        }
        return request
    }

    /// The filters and the seek past `bound`, in one predicate: an absent
    /// filter is a captured flag that SQL reads, so that one predicate per
    /// key and direction serves every filter.
    func seekPredicate(_ bound: Cursor.Value) -> Predicate<Bookmark> {
        let anyFolder = folder == nil
        let folderName = folder ?? ""
        let anyTag = tag == nil
        let label = tag ?? ""
        switch (bound, descending) {
        case (.date(let date), true):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.createdAt <= date
            }
        case (.date(let date), false):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.createdAt >= date
            }
        case (.text(let title), true):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.title <= title
            }
        case (.text(let title), false):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.title >= title
            }
        case (.number(let visits), true):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.visits <= visits
            }
        case (.number(let visits), false):
            return #Predicate { bookmark in
                (anyFolder || bookmark.folder?.name == folderName) && (anyTag || bookmark.tags.contains { $0.label == label })
                    && bookmark.visits >= visits
            }
        }
    }

    /// The query parameter of the page after `page` (this query's answer),
    /// for its `Link: <…>; rel="next"`: a ``Cursor`` (`cursor=…`), or, for
    /// `sort=id` (a predicate cannot name the row id) and where a cursor
    /// cannot say how many equal keys came before, `offset=…`; `nil` when
    /// `page` is not full (it is the last) or the offset would pass
    /// ``maximumOffset``.
    ///
    /// ```swift
    /// let next = query.nextPage(after: page)      // "cursor=Y3JlYXRlZEF0…"
    /// ```
    public func nextPage(after page: [BookmarkDTO]) -> String? {
        guard page.count == limit, let last = page.last else { return nil }
        if sort != .id {
            let key = Cursor.key(of: last, sort: sort)
            var skip = page.reversed().prefix { Cursor.key(of: $0, sort: sort) == key }.count
            if skip == page.count, let cursor, cursor.value == key { skip += cursor.skip }
            // A page of equal keys after an offset: how many came before it
            // is unknown, so the next page is by offset too.
            if skip < page.count || cursor != nil || offset == 0 {
                return "cursor=" + Cursor(sort: sort, descending: descending, value: key, skip: skip).token
            }
        }
        let next = (cursor == nil ? offset : 0) + limit
        return next <= Self.maximumOffset ? "offset=\(next)" : nil
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

extension BookmarkQuery {
    /// Where the next page of a list starts, opaque to a client: the order,
    /// the sort key of the last bookmark served, and how many bookmarks with
    /// that key were served (equal keys come in row-id order). A bookmark
    /// inserted or deleted before that point no longer moves the pages after
    /// it, as it does with `offset`.
    public struct Cursor: Sendable, Equatable {
        /// A sort key's value.
        public enum Value: Sendable, Equatable {
            case date(Date)
            case text(String)
            case number(Int)
        }

        /// The order the cursor continues (never ``Sort/id``).
        public var sort: Sort
        /// Whether that order is descending.
        public var descending: Bool
        /// The key of the last bookmark served.
        public var value: Value
        /// How many bookmarks with that key were served.
        public var skip: Int

        /// A cursor with the given parts.
        public init(sort: Sort, descending: Bool, value: Value, skip: Int) {
            self.sort = sort
            self.descending = descending
            self.value = value
            self.skip = skip
        }

        /// The `cursor=` text: the parts base64url-encoded, a date as the
        /// bits of its seconds since the reference date, the `Double` the
        /// store keeps, so that it compares equal to the stored one (seconds
        /// since 1970 would round).
        public var token: String {
            let text: String
            switch value {
            case .date(let date): text = String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16)
            case .text(let title): text = title
            case .number(let visits): text = String(visits)
            }
            let plain = "\(sort.rawValue)~\(descending ? "d" : "a")~\(skip)~\(text)"
            return Data(plain.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        /// Reads a ``token``; `nil` for anything else.
        public init?(token: String) {
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8) else { return nil }
            let parts = plain.split(separator: "~", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4, let sort = Sort(rawValue: parts[0]), parts[1] == "d" || parts[1] == "a",
                  let skip = Int(parts[2]), (0...BookmarkQuery.maximumOffset).contains(skip) else { return nil }
            switch sort {
            case .createdAt:
                guard let bits = UInt64(parts[3], radix: 16) else { return nil }
                let seconds = Double(bitPattern: bits)
                guard seconds.isFinite else { return nil }
                value = .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .title:
                value = .text(parts[3])
            case .visits:
                guard let visits = Int(parts[3]) else { return nil }
                value = .number(visits)
            case .id:
                return nil
            }
            self.sort = sort
            self.descending = parts[1] == "d"
            self.skip = skip
        }

        /// The key `sort` orders `bookmark` by.
        static func key(of bookmark: BookmarkDTO, sort: Sort) -> Value {
            switch sort {
            case .createdAt: .date(bookmark.createdAt)
            case .title: .text(bookmark.title)
            case .visits: .number(bookmark.visits)
            case .id: .number(Int(bookmark.id))
            }
        }
    }
}
