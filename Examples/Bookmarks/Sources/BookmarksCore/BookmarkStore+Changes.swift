import Foundation
public import LiteRecord
import HummingbirdLiteRecord

/// Why `GET /changes` cannot continue from a `since` token (answered 410
/// Gone): the client reads the bookmarks again and continues from the
/// newest token.
public struct ChangesTokenExpired: Error, Sendable, Equatable {
    /// Why, in a sentence that names the token.
    public let reason: String

    /// The error for `reason`.
    ///
    /// ```swift
    /// throw ChangesTokenExpired(reason: "…")
    /// ```
    public init(reason: String) { self.reason = reason }
}

extension BookmarkStore {
    /// The bookmark changes committed after `query.since`, oldest first, at
    /// most `query.limit` transactions, and the token to continue from:
    /// `GET /changes`. Transactions that changed no bookmark (a folder or a
    /// tag alone) are left out, and `next` moves past them.
    ///
    /// ```swift
    /// var page = try await store.changes(ChangesQuery())
    /// page = try await store.changes(ChangesQuery(since: page.next))
    /// ```
    ///
    /// - Throws: ``ChangesTokenExpired`` when `since` is older than what the
    ///   store keeps, another store's, or newer than anything the store
    ///   holds (a store put back from an older copy); the store's
    ///   `LiteRecordError` otherwise, `.storeUnavailable` when it keeps no
    ///   history.
    public func changes(_ query: ChangesQuery) async throws -> ChangesPage {
        // HummingbirdLiteRecord's feed: the newest token read before the
        // fetch, `next` past what the filter leaves out, off the pool.
        do {
            let page = try await stack.historyFeed(HistoryFeedQuery(since: query.since, latest: query.isLatest, limit: query.limit),
                                                   matching: .entity(Bookmark.self))
            return ChangesPage(next: page.next, transactions: page.transactions.map(ChangeTransaction.init))
        } catch let gone as HistoryFeedGone {
            throw ChangesTokenExpired(reason: gone.reason)
        }
    }

    /// The newest token of the store's history: where a client that has just
    /// read the bookmarks again continues from.
    ///
    /// ```swift
    /// let token = try await store.newestChangeToken()
    /// ```
    ///
    /// - Throws: the store's `LiteRecordError`, `.storeUnavailable` when it
    ///   keeps no history.
    public func newestChangeToken() async throws -> HistoryToken? {
        let stack = stack
        return try await Self.offThePool { try stack.newestHistoryToken() }
    }

    /// Runs `body` on a dispatch queue: the library's history calls read
    /// SQLite synchronously, which a cooperative thread should not wait for.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}
