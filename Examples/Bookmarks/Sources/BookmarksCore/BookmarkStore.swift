import Foundation
import Hummingbird
public import LiteRecord
public import HummingbirdLiteRecord

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
/// 412) or the store's `LiteRecordError`, which `StoreErrorMiddleware` (from
/// HummingbirdLiteRecord) answers with the status it means.
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

    /// The `author` of the feed's transactions written by the `/bookmarks`
    /// routes (the contexts' `transactionAuthor`).
    public static let apiAuthor = "api"
    /// The `author` of the feed's transactions written by `POST /import`.
    public static let importAuthor = "import"

    // MARK: - Writes

    /// Creates a bookmark in `input.folder` (made when new) with `input.tags`
    /// (each made when new).
    ///
    /// ```swift
    /// let dto = try await store.create(BookmarkInput(url: "https://a.example", title: "A", folder: "Inbox"))
    /// ```
    ///
    /// `preconditions`, when given, are the request's, evaluated against the
    /// collection's current tag (``listTag(of:)`` of the first page `GET
    /// /bookmarks` serves) inside the write transaction: `If-None-Match: *`
    /// always fails (the collection exists), `If-Match` holds only while the
    /// list is the one the client read.
    ///
    /// - Throws: 400 naming a missing, empty or invalid field, 409 when the
    ///   URL is taken, 412 carrying the collection's `ETag` when a
    ///   precondition is false; nothing is stored then.
    public func create(_ input: BookmarkInput, _ preconditions: Preconditions? = nil) async throws -> BookmarkDTO {
        let fields = try BookmarkFields(replacing: input)
        return try await stack.write { context in
            context.transactionAuthor = Self.apiAuthor
            if let preconditions, preconditions.ifMatch != nil || preconditions.ifNoneMatch != nil {
                // The target is the collection, which GET /bookmarks serves:
                // its tag read in this transaction, where no other writer
                // changes it before the insert.
                _ = try preconditions.evaluate(current: try Self.listTag(of: Self.listBody(Self.page(BookmarkQuery(), in: context))))
            }
            let bookmark = Bookmark()
            context.insert(bookmark)
            try fields.apply(to: bookmark, in: context)
            try context.save()
            return try BookmarkDTO(bookmark)
        }
    }

    /// Changes bookmark `id` when the request's `preconditions` hold for its
    /// current ETag: `replacing` sets every field from `input` (`PUT`: a
    /// missing `note` or `tags` clears them, `visits` becomes 0); otherwise
    /// only the fields `input` has change (`PATCH`).
    ///
    /// ```swift
    /// let updated = try await store.update(7, try Preconditions(request), BookmarkInput(title: "Renamed"))
    /// ```
    ///
    /// The preconditions are evaluated inside the write transaction, where
    /// no other writer can move the version; the save's own
    /// optimistic-locking check still guards against a writer in another
    /// process.
    ///
    /// - Throws: 404, 412 carrying the current ETag when a precondition is
    ///   false (checked before the fields), 409 for a taken URL, 400 naming
    ///   a bad field; nothing is stored then.
    public func update(_ id: Int64, _ preconditions: Preconditions, _ input: BookmarkInput,
                       replacing: Bool = false) async throws -> BookmarkDTO {
        try await stack.write { context in
            context.transactionAuthor = Self.apiAuthor
            // The preconditions first (RFC 9110 §13.2.1): a stale or weak
            // If-Match is 412 whatever the body holds.
            let bookmark = try Self.existing(id, meeting: preconditions, in: context)
            let fields = try replacing ? BookmarkFields(replacing: input) : BookmarkFields(patching: input)
            try fields.apply(to: bookmark, in: context)
            try context.save()
            return try BookmarkDTO(bookmark)
        }
    }

    /// Deletes bookmark `id` when the request's `preconditions` hold for its
    /// current ETag.
    ///
    /// ```swift
    /// try await store.delete(7, try Preconditions(request))
    /// ```
    ///
    /// - Throws: 404 when there is none, 412 carrying the current ETag when
    ///   a precondition is false.
    public func delete(_ id: Int64, _ preconditions: Preconditions) async throws {
        try await stack.write { context in
            context.transactionAuthor = Self.apiAuthor
            context.delete(try Self.existing(id, meeting: preconditions, in: context))
        }
    }

    /// ``update(_:_:_:replacing:)`` with an `If-Match` condition only.
    ///
    /// ```swift
    /// let updated = try await store.update(7, ifMatch: .tags([EntityTag(id: 7, version: 2)]), BookmarkInput(title: "Renamed"))
    /// ```
    ///
    /// - Throws: as ``update(_:_:_:replacing:)``.
    public func update(_ id: Int64, ifMatch condition: EntityTagCondition?, _ input: BookmarkInput,
                       replacing: Bool = false) async throws -> BookmarkDTO {
        try await update(id, Preconditions(method: replacing ? .put : .patch, ifMatch: condition), input, replacing: replacing)
    }

    /// ``delete(_:_:)`` with an `If-Match` condition only, or none.
    ///
    /// ```swift
    /// try await store.delete(7)
    /// ```
    ///
    /// - Throws: as ``delete(_:_:)``.
    public func delete(_ id: Int64, ifMatch condition: EntityTagCondition? = nil) async throws {
        try await delete(id, Preconditions(method: .delete, ifMatch: condition))
    }

    /// Bookmark `id`, when it exists and `preconditions` hold for it.
    static func existing(_ id: Int64, meeting preconditions: Preconditions, in context: RecordContext) throws -> Bookmark {
        // 404, then 412 for a false condition (a write never gets a 304).
        try preconditions.existing(Bookmark.self, rowID: id, in: context)
    }

    /// Imports a JSON array (or object) of bookmarks in MagicalRecord's shape
    /// through `importObjects`: matched by `url`, `folder` as a nested
    /// `{"name": …}` or a bare name, `tags` as `[{"label": …}]` or bare
    /// labels. Returns how many bookmarks were new and how many updated.
    ///
    /// ```swift
    /// let counts = try await store.importBookmarks(Data(#"[{"url": "https://a.example", "title": "A", "folder": "F"}]"#.utf8))
    /// ```
    ///
    /// Every element is read and checked first as ``create(_:)`` reads and
    /// checks a bookmark (an absolute http(s) URL, a title, a folder, a
    /// string or null `note`, an integer `visits` not negative, tag labels
    /// not empty, at most 32 tags), only the documented keys are taken at
    /// every level, and at most 10,000 elements; nothing is written unless
    /// all pass. An element whose `url` is stored replaces that bookmark as
    /// `PUT` does: its tags become the element's (none when it has none),
    /// a missing `note` clears it and a missing `visits` is 0.
    ///
    /// - Throws: 400 naming the element and key path of a bad value; the
    ///   whole import is rolled back then.
    public func importBookmarks(_ data: Data) async throws -> ImportCounts {
        let elements = try ImportValidation.validated(data)
        // The last element with a url wins, as in importObjects.
        var labels: [String: [String]] = [:]
        for element in elements { labels[element.fields.url ?? ""] = element.fields.tags ?? [] }
        let wanted = labels
        return try await stack.write { context in
            context.transactionAuthor = Self.importAuthor
            let before = try Bookmark.count(in: context)
            let imported: [Bookmark]
            do {
                imported = try Bookmark.importObjects(from: elements.map(\.object), in: context)
            } catch let error as LiteRecordError where error.kind == .validationFailed || error.kind == .decodingFailed {
                throw HTTPError(.badRequest, message: error.message)
            }
            // importObjects adds to a to-many: keep the element's tags only.
            for bookmark in imported {
                let keep = wanted[bookmark.url] ?? []
                guard bookmark.tags.map(\.label) != keep else { continue }
                let byLabel = Dictionary(bookmark.tags.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
                bookmark.tags = keep.compactMap { byLabel[$0] }
            }
            try context.save()
            // Only top-level bookmarks are imported (no nested key is
            // taken), so every new row is one of `imported`.
            let inserted = try Bookmark.count(in: context) - before
            return ImportCounts(inserted: inserted, updated: imported.count - inserted)
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
        try await stack.read { context in
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
        try await stack.read { context in try Self.page(query, in: context) }
    }

    /// The page `query` selects, read in `context`.
    static func page(_ query: BookmarkQuery, in context: RecordContext) throws -> [BookmarkDTO] {
        var request = query.fetchRequest()
        let reversed = query.sort == .id && query.descending
        if reversed {
            // A SortDescriptor cannot name the row id, which orders the
            // rows when there is none: read the page ascending from the
            // other end of the same snapshot, then turn it round.
            var all = request
            (all.fetchLimit, all.fetchOffset) = (nil, 0)
            let end = max(0, try context.count(all) - query.offset)
            guard end > 0 else { return [] }
            request.fetchOffset = max(0, end - query.limit)
            request.fetchLimit = end - request.fetchOffset
        }
        let page = try Bookmark.fetch(request, in: context).map(BookmarkDTO.init)
        return reversed ? page.reversed() : page
    }

    /// The bytes `GET /bookmarks` answers for `bookmarks`: the service's JSON
    /// (sorted keys, ISO 8601 dates, each bookmark's tags sorted).
    ///
    /// - Throws: the encoder's error.
    public static func listBody(_ bookmarks: [BookmarkDTO]) throws -> Data {
        try BookmarkJSON.makeEncoder().encode(bookmarks)
    }

    /// The strong entity tag of a list answer: a 64-bit FNV-1a hash of its
    /// exact bytes (`"l-00c0ffee00c0ffee"`), so a changed list, a renamed
    /// folder in it included, has a new one. A list has no version of its
    /// own to name.
    ///
    /// ```swift
    /// let tag = try BookmarkStore.listTag(of: BookmarkStore.listBody(page))
    /// ```
    ///
    /// - Throws: nothing in practice (a tag of hex digits is always valid).
    public static func listTag(of body: Data) throws -> EntityTag {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        guard let tag = EntityTag("l-" + String(repeating: "0", count: 16 - hex.count) + hex) else {
            throw HTTPError(.internalServerError, message: "a list's entity tag could not be made")
        }
        return tag
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
        try await stack.read { context in
            StoreCounts(bookmarks: try Bookmark.count(in: context),
                        folders: try Folder.count(in: context),
                        tags: try Tag.count(in: context))
        }
    }

    /// How many bookmarks there are and the id of the newest (by
    /// `createdAt`), in one read transaction: what each `/events` event
    /// carries.
    ///
    /// ```swift
    /// let summary = try await store.summary()
    /// ```
    ///
    /// - Throws: the store's error.
    public func summary() async throws -> BookmarkSummary {
        try await stack.read(Self.summary(in:))
    }

    /// ``summary()`` inside a read: what the `/events` hub runs once per commit.
    ///
    /// ```swift
    /// let summary = try await stack.read(BookmarkStore.summary(in:))
    /// ```
    ///
    /// - Throws: the store's error.
    @Sendable public static func summary(in context: RecordContext) throws -> BookmarkSummary {
        let newest = try context.fetch(FetchRequest<Bookmark>(sortBy: [SortDescriptor(\.createdAt, order: .reverse)], fetchLimit: 1)).first
        return BookmarkSummary(count: try Bookmark.count(in: context), newestID: newest?.recordID?.rowID)
    }

    /// Where a read replica's stack is in its primary's history (txid 0 and
    /// no time for a stack that is not a replica), asked on a dispatch queue:
    /// the library's `replicaPosition` waits while another read of the
    /// replica runs, and a cooperative thread should not.
    ///
    /// ```swift
    /// let position = await store.replicaPosition()     // position.txid, position.commitTime
    /// ```
    public func replicaPosition() async -> ReplicaPosition {
        let stack = stack
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: stack.replicaPosition) }
        }
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
