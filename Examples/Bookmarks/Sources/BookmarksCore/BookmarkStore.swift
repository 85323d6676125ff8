import Foundation
public import Hummingbird
public import LiteRecord

/// What each route does to the store, independent of HTTP framing: every
/// write in one `stack.write {}` transaction, every read in one
/// `stack.read {}` snapshot. Nothing here touches the main context, so no
/// request waits for the main actor.
///
/// ```swift
/// let store = BookmarkStore(stack: try RecordStack(storeAt: url, entities: BookmarksModel.entities))
/// let created = try await store.create(BookmarkInput(url: "https://swift.org", title: "Swift", folder: "Dev"))
/// ```
///
/// Errors are `HTTPError`s with the status the route answers (400, 404, 409,
/// 412) or the store's `LiteRecordError`, which ``BookmarkStore/httpError(_:)``
/// maps.
public struct BookmarkStore: Sendable {
    /// The stack every request uses.
    public let stack: RecordStack

    /// A store over `stack`.
    ///
    /// ```swift
    /// let store = BookmarkStore(stack: stack)
    /// ```
    public init(stack: RecordStack) {
        self.stack = stack
    }

    // MARK: - Writes

    /// Creates a bookmark in `input.folder` (made when new) with `input.tags`
    /// (each made when new).
    ///
    /// ```swift
    /// let dto = try await store.create(BookmarkInput(url: "https://a.example", title: "A", folder: "Inbox"))
    /// ```
    ///
    /// - Throws: 400 naming a missing or empty field, 409 when the URL is
    ///   taken; nothing is stored then.
    public func create(_ input: BookmarkInput) async throws -> BookmarkDTO {
        let url = try Self.required(input.url, "url")
        let title = try Self.required(input.title, "title")
        let folderName = try Self.required(input.folder, "folder")
        let labels = try Self.labels(input.tags ?? [])
        if let visits = input.visits, visits < 0 { throw HTTPError(.badRequest, message: "field 'visits' must not be negative") }
        let note = input.note ?? nil
        let visits = input.visits ?? 0
        return try await write { context in
            if try Bookmark.exists(matching: #Predicate { $0.url == url }, in: context) {
                throw HTTPError(.conflict, message: "a bookmark with url '\(url)' exists")
            }
            let bookmark = Bookmark()
            context.insert(bookmark)
            bookmark.url = url
            bookmark.title = title
            bookmark.note = note
            bookmark.visits = visits
            bookmark.folder = try Folder.findFirstOrCreate(byAttribute: "name", withValue: folderName, in: context)
            bookmark.tags = try Self.tags(labels, in: context)
            try context.save()
            return try BookmarkDTO(bookmark)
        }
    }

    /// Changes the fields `input` has of bookmark `id`, when the bookmark is
    /// still at version `expected` (`nil`: any version, `If-Match: *`).
    ///
    /// ```swift
    /// let updated = try await store.update(7, ifVersion: 2, BookmarkInput(title: "Renamed"))
    /// ```
    ///
    /// The version is compared inside the write transaction, where no other
    /// writer can move it; the save's own optimistic-locking check (API.md
    /// §12) still guards against a writer in another process.
    ///
    /// - Throws: 404, 412 when the version moved, 409 for a taken URL, 400
    ///   naming an empty field; nothing is stored then.
    public func update(_ id: Int64, ifVersion expected: Int64?, _ input: BookmarkInput) async throws -> BookmarkDTO {
        let url = try input.url.map { try Self.required($0, "url") }
        let title = try input.title.map { try Self.required($0, "title") }
        let folderName = try input.folder.map { try Self.required($0, "folder") }
        let labels = try input.tags.map { try Self.labels($0) }
        if let visits = input.visits, visits < 0 { throw HTTPError(.badRequest, message: "field 'visits' must not be negative") }
        let note = input.note
        let visits = input.visits
        return try await write { context in
            guard let bookmark = try Bookmark.find(rowID: id, in: context) else {
                throw HTTPError(.notFound, message: "no bookmark \(id)")
            }
            if let expected, bookmark.recordVersion != expected {
                throw HTTPError(
                    .preconditionFailed,
                    headers: [.eTag: BookmarkJSON.etag(bookmark.recordVersion ?? 0)],
                    message: "bookmark \(id) is at version \(bookmark.recordVersion ?? 0), not \(expected)"
                )
            }
            if let url, url != bookmark.url {
                if try Bookmark.exists(matching: #Predicate { $0.url == url }, in: context) {
                    throw HTTPError(.conflict, message: "a bookmark with url '\(url)' exists")
                }
                bookmark.url = url
            }
            if let title { bookmark.title = title }
            if case .some(let note) = note { bookmark.note = note }
            if let visits { bookmark.visits = visits }
            if let folderName {
                bookmark.folder = try Folder.findFirstOrCreate(byAttribute: "name", withValue: folderName, in: context)
            }
            if let labels { bookmark.tags = try Self.tags(labels, in: context) }
            try context.save()
            return try BookmarkDTO(bookmark)
        }
    }

    /// Deletes bookmark `id`.
    ///
    /// ```swift
    /// try await store.delete(7)
    /// ```
    ///
    /// - Throws: 404 when there is none.
    public func delete(_ id: Int64) async throws {
        try await write { context in
            guard let bookmark = try Bookmark.find(rowID: id, in: context) else {
                throw HTTPError(.notFound, message: "no bookmark \(id)")
            }
            context.delete(bookmark)
        }
    }

    /// Imports a JSON array (or object) of bookmarks in MagicalRecord's shape
    /// through `importObjects`: matched by `url`, `folder` as a nested
    /// `{"name": …}` or a bare name, `tags` as `[{"label": …}]` or bare
    /// labels. Returns how many bookmarks were new and how many updated.
    ///
    /// ```swift
    /// let counts = try await store.importBookmarks(Data(#"[{"url": "https://a.example", "title": "A"}]"#.utf8))
    /// ```
    ///
    /// - Throws: 400 naming the element and key path of a bad value; the
    ///   whole import is rolled back then.
    public func importBookmarks(_ data: Data) async throws -> ImportCounts {
        try await write { context in
            let before = try Bookmark.count(in: context)
            let imported: [Bookmark]
            do {
                imported = try Bookmark.importObjects(from: data, in: context)
            } catch let error as LiteRecordError where error.kind == .validationFailed || error.kind == .decodingFailed {
                throw HTTPError(.badRequest, message: error.message)
            }
            for bookmark in imported where bookmark.url.isEmpty {
                throw HTTPError(.badRequest, message: "an imported bookmark has no url")
            }
            try context.save()
            let distinct = Set(imported.map { ObjectIdentifier($0) }).count
            let inserted = try Bookmark.count(in: context) - before
            return ImportCounts(inserted: inserted, updated: distinct - inserted)
        }
    }

    // MARK: - Reads

    /// Bookmark `id`.
    ///
    /// ```swift
    /// let dto = try await store.bookmark(7)
    /// ```
    ///
    /// - Throws: 404 when there is none.
    public func bookmark(_ id: Int64) async throws -> BookmarkDTO {
        try await read { context in
            guard let bookmark = try Bookmark.find(rowID: id, in: context) else {
                throw HTTPError(.notFound, message: "no bookmark \(id)")
            }
            return try BookmarkDTO(bookmark)
        }
    }

    /// The bookmarks `query` selects, in its order, folders and tags
    /// prefetched (one statement each, not one per bookmark).
    ///
    /// ```swift
    /// let swift = try await store.list(BookmarkQuery(tag: "swift", limit: 20))
    /// ```
    ///
    /// - Throws: the store's error.
    public func list(_ query: BookmarkQuery) async throws -> [BookmarkDTO] {
        let request = query.fetchRequest()
        return try await read { context in
            try Bookmark.fetch(request, in: context).map(BookmarkDTO.init)
        }
    }

    /// How many bookmarks, folders and tags are stored (for tests and the
    /// load driver's check).
    ///
    /// ```swift
    /// let counts = try await store.counts()
    /// ```
    ///
    /// - Throws: the store's error.
    public func counts() async throws -> StoreCounts {
        try await read { context in
            StoreCounts(bookmarks: try Bookmark.count(in: context),
                        folders: try Folder.count(in: context),
                        tags: try Tag.count(in: context))
        }
    }

    // MARK: - Helpers

    /// `stack.write`, with the store's errors mapped to HTTP statuses.
    func write<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        do {
            return try await stack.write(body)
        } catch let error as LiteRecordError {
            throw Self.httpError(error)
        }
    }

    /// `stack.read`, with the store's errors mapped to HTTP statuses.
    func read<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        do {
            return try await stack.read(body)
        } catch let error as LiteRecordError {
            throw Self.httpError(error)
        }
    }

    /// The status a store error answers: 409 for a unique constraint (a
    /// concurrent insert of the same URL), 412 for an optimistic-locking
    /// conflict, 507 for a full disk, 503 for a store that cannot be used,
    /// 500 otherwise.
    ///
    /// ```swift
    /// throw BookmarkStore.httpError(error)
    /// ```
    public static func httpError(_ error: LiteRecordError) -> HTTPError {
        let sqliteFull: Int32 = 13
        if error.resultCode == sqliteFull || (error.extendedResultCode ?? 0) & 0xFF == sqliteFull {
            return HTTPError(.init(code: 507, reasonPhrase: "Insufficient Storage"), message: "the disk is full; nothing was written")
        }
        switch error.kind {
        case .constraintViolation: return HTTPError(.conflict, message: error.message)
        case .conflict: return HTTPError(.preconditionFailed, message: error.message)
        case .storeUnavailable, .readOnlyStore: return HTTPError(.serviceUnavailable, message: error.message)
        default: return HTTPError(.internalServerError, message: error.message)
        }
    }

    static func required(_ value: String?, _ field: String) throws -> String {
        guard let value else { throw HTTPError(.badRequest, message: "field '\(field)' is missing") }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw HTTPError(.badRequest, message: "field '\(field)' must not be empty") }
        return trimmed
    }

    /// Trimmed labels without duplicates, in the order given.
    static func labels(_ tags: [String]) throws -> [String] {
        var seen = Set<String>()
        var labels: [String] = []
        for (index, tag) in tags.enumerated() {
            let label = tag.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !label.isEmpty else { throw HTTPError(.badRequest, message: "field 'tags[\(index)]' must not be empty") }
            if seen.insert(label).inserted { labels.append(label) }
        }
        return labels
    }

    static func tags(_ labels: [String], in context: RecordContext) throws -> [Tag] {
        try labels.map { try Tag.findFirstOrCreate(byAttribute: "label", withValue: $0, in: context) }
    }
}

/// What `POST /import` answers.
public struct ImportCounts: Codable, Sendable, Equatable {
    /// Bookmarks the import created.
    public var inserted: Int
    /// Bookmarks that existed (same url) and were updated.
    public var updated: Int

    /// Counts of an import.
    ///
    /// ```swift
    /// let counts = ImportCounts(inserted: 2, updated: 1)
    /// ```
    public init(inserted: Int, updated: Int) {
        self.inserted = inserted
        self.updated = updated
    }
}

/// Row counts of the store.
public struct StoreCounts: Codable, Sendable, Equatable {
    /// Stored bookmarks.
    public var bookmarks: Int
    /// Stored folders.
    public var folders: Int
    /// Stored tags.
    public var tags: Int

    /// Counts of a store.
    ///
    /// ```swift
    /// let counts = StoreCounts(bookmarks: 3, folders: 1, tags: 2)
    /// ```
    public init(bookmarks: Int, folders: Int, tags: Int) {
        self.bookmarks = bookmarks
        self.folders = folders
        self.tags = tags
    }
}
