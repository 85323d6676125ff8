import Foundation
public import Hummingbird
public import LiteRecord
import HummingbirdLiteRecord

/// The query of `GET /changes?since=&limit=`.
///
/// ```swift
/// let query = try ChangesQuery(parameters: request.uri.queryParameters)
/// ```
public struct ChangesQuery: Sendable, Equatable {
    /// The last token the client processed (a previous answer's `next`);
    /// `nil` reads from the oldest transaction the store keeps.
    public var since: HistoryToken?
    /// `since=latest`: no transactions, only `next`, the newest token: where
    /// a client starts that is about to read every bookmark.
    public var isLatest = false
    /// At most this many transactions (1…1,000, 100 by default).
    public var limit = 100

    /// The largest `limit` a request may ask for.
    public static let maximumLimit = 1_000

    /// A query from `since`, at most `limit` transactions.
    ///
    /// ```swift
    /// let query = ChangesQuery(since: HistoryToken("42-9f2c61d0a4b8e7f1"), limit: 20)
    /// ```
    public init(since: HistoryToken? = nil, limit: Int = 100) {
        self.since = since
        self.limit = limit
    }

    /// The query of `since=latest`.
    ///
    /// ```swift
    /// let start = try await store.changes(.latest).next
    /// ```
    public static var latest: ChangesQuery {
        var query = ChangesQuery()
        query.isLatest = true
        return query
    }

    /// Reads the query string; an empty parameter counts as absent, as on
    /// `GET /bookmarks`.
    ///
    /// - Throws: `HTTPError(.badRequest)` naming `since` or `limit`.
    public init(parameters: Parameters) throws {
        // HummingbirdLiteRecord reads the two parameters as every feed does.
        let feed = try HistoryFeedQuery(parameters: parameters, defaultLimit: 100, maximumLimit: Self.maximumLimit)
        since = feed.since
        isLatest = feed.isLatest
        limit = feed.limit
    }
}

/// What `GET /changes` answers: the bookmark changes committed after the
/// `since` token, oldest first, and the token to ask from next time.
///
/// ```json
/// {"next":"7-9f2c61d0a4b8e7f1","transactions":[{"author":"api","changes":[…],"date":"…","token":"7-9f2c61d0a4b8e7f1"}]}
/// ```
public struct ChangesPage: Codable, Sendable, Equatable {
    /// Pass it as `since` next time: the last transaction's token; when the
    /// page holds none, the newest token (or the `since` asked); `null` only
    /// while the store keeps no transaction at all.
    public var next: HistoryToken?
    /// The transactions, oldest first; as many as `limit` when more may follow.
    public var transactions: [ChangeTransaction]

    enum CodingKeys: String, CodingKey { case next, transactions }

    /// A page with the given values.
    ///
    /// ```swift
    /// let page = ChangesPage(next: nil, transactions: [])
    /// ```
    public init(next: HistoryToken?, transactions: [ChangeTransaction]) {
        self.next = next
        self.transactions = transactions
    }

    /// Writes `next` even when it is `null`: a client reads the key on
    /// every page.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(next, forKey: .next)
        try container.encode(transactions, forKey: .transactions)
    }
}

extension ChangesPage: ResponseEncodable {}

/// One committed transaction of the feed: who, when, and which bookmarks.
public struct ChangeTransaction: Codable, Sendable, Equatable {
    /// Its place in the store's history; `since=` takes it.
    public var token: HistoryToken
    /// When it committed (ISO 8601, whole seconds).
    public var date: Date
    /// Who wrote it: `api` (the `/bookmarks` routes), `import` (`POST /import`);
    /// absent for a writer that names none.
    public var author: String?
    /// What it did to bookmarks, one entry per bookmark.
    public var changes: [BookmarkChange]

    /// The transaction's bookmark changes, as the feed sends them.
    ///
    /// ```swift
    /// let feed = transactions.map(ChangeTransaction.init)
    /// ```
    public init(_ transaction: HistoryTransaction) {
        token = transaction.token
        date = transaction.date
        author = transaction.author
        changes = transaction.changes.map(BookmarkChange.init)
    }
}

/// One bookmark's change in a ``ChangeTransaction``.
///
/// ```json
/// {"entity":"Bookmark","id":3,"kind":"update","updatedAttributes":["tags","title"]}
/// {"entity":"Bookmark","id":4,"kind":"delete","tombstone":{"url":"https://old.example"}}
/// ```
public struct BookmarkChange: Codable, Sendable, Equatable {
    /// The entity's name, `Bookmark`.
    public var entity: String
    /// The bookmark's id, as in `/bookmarks/{id}`.
    public var id: Int64
    /// `insert`, `update` or `delete`.
    public var kind: HistoryChange.Kind
    /// For an update: the fields written (`title`, `tags`, `folder`, …), sorted.
    public var updatedAttributes: [String]?
    /// For a delete: the values the bookmark had that name it, its `url`.
    public var tombstone: [String: TombstoneValue]?

    /// The change as the feed sends it.
    ///
    /// ```swift
    /// let change = BookmarkChange(historyChange)
    /// ```
    public init(_ change: HistoryChange) {
        entity = change.entityName
        id = change.recordID.rowID
        kind = change.kind
        updatedAttributes = change.kind == .update ? change.updatedAttributes : nil
        tombstone = change.kind == .delete ? change.tombstone.mapValues(TombstoneValue.init) : nil
    }
}

/// A value kept in a delete's tombstone, as JSON has it: a number, a string
/// or `null` (bytes as a base64 string).
public enum TombstoneValue: Codable, Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// The JSON form of a stored value.
    ///
    /// ```swift
    /// TombstoneValue(.text("https://swift.org"))      // .text("https://swift.org")
    /// ```
    public init(_ value: SQLValue) {
        switch value {
        case .null: self = .null
        case .integer(let integer): self = .integer(integer)
        // SQLite keeps infinities; JSON has no number for them.
        case .real(let real): self = real.isFinite ? .real(real) : .null
        case .text(let text): self = .text(text)
        case .blob(let data): self = .text(data.base64EncodedString())
        }
    }

    /// Reads a JSON number, string or `null`.
    ///
    /// - Throws: `DecodingError` for an array or object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let integer): try container.encode(integer)
        case .real(let real): try container.encode(real)
        case .text(let text): try container.encode(text)
        }
    }
}
