import Foundation
public import LiteRecord

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
        let stack = stack
        return try await Self.offThePool {
            // The newest token first: the fetch below, a later read, sees
            // every transaction up to it. So when the fetch is not cut short
            // by the limit, nothing up to that token is left unread, and
            // `next` may skip to it.
            let newest = try stack.newestHistoryToken()
            if query.isLatest { return ChangesPage(next: newest, transactions: []) }
            let transactions: [HistoryTransaction]
            do {
                transactions = try stack.fetchHistory(after: query.since, matching: .entity(Bookmark.self), limit: query.limit)
            } catch let error as LiteRecordError where error.kind == .historyExpired {
                if let since = query.since, let newest, since > newest {
                    // LiteRecord refuses a token past the file's newest transaction.
                    throw ChangesTokenExpired(
                        reason: "token \(since) is newer than this store's newest change (\(newest)): the store was put back from an older copy")
                }
                throw ChangesTokenExpired(
                    reason: "the changes after token \(query.since.map { "\($0)" } ?? "") are no longer kept (the history's retention or a cleanup deleted them), or the token is another store's")
            }
            // Every `next` this store gave is at most its newest token then,
            // and tokens only grow: a newer one comes from a timeline the store
            // no longer has (put back from a backup), whose numbers it will
            // hand out again for other changes. A replica may just be behind.
            if transactions.isEmpty, let since = query.since, let newest, since > newest, !stack.isReplica {
                throw ChangesTokenExpired(
                    reason: "token \(since) is newer than this store's newest change (\(newest)): the store was put back from an older copy")
            }
            let next: HistoryToken?
            if transactions.count == query.limit {
                next = transactions.last?.token
            } else {
                next = [query.since, transactions.last?.token, newest].compactMap { $0 }.max()
            }
            return ChangesPage(next: next, transactions: transactions.map(ChangeTransaction.init))
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
