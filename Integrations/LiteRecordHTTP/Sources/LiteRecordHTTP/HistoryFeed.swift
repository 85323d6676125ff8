public import Foundation
public import LiteRecord

/// The query of a history feed route, `GET /changes?since=&limit=`: the
/// last token the client processed, or `latest`, and how many transactions
/// at most. An integration reads its request's query into one of these
/// (HummingbirdLiteRecord from `Parameters`, VaporLiteRecord from a
/// `Request`); ``init(values:defaultLimit:maximumLimit:)`` is the rule they
/// share.
///
/// ```swift
/// let query = HistoryFeedQuery(since: HistoryToken("42-9f2c61d0a4b8e7f1"), limit: 20)
/// ```
public struct HistoryFeedQuery: Sendable, Equatable {
    /// The last token the client processed (a previous page's `next`);
    /// `nil` reads from the oldest transaction the store keeps.
    public var since: HistoryToken?
    /// `since=latest`: no transactions, only `next`, the newest token: where
    /// a client starts that is about to read every record.
    public var isLatest: Bool
    /// At most this many transactions.
    public var limit: Int

    /// A query from `since` (`nil`: from the oldest kept), at most `limit`
    /// transactions; `latest` asks for the newest token only.
    ///
    /// ```swift
    /// let query = HistoryFeedQuery(since: HistoryToken("42-9f2c61d0a4b8e7f1"), limit: 20)
    /// ```
    public init(since: HistoryToken? = nil, latest: Bool = false, limit: Int = 100) {
        self.since = since
        self.isLatest = latest
        self.limit = limit
    }

    /// Reads `since` (a token or `latest`) and `limit` from a query string's
    /// parameters, given by `values`, which returns every value sent under a
    /// name (empty when none). An empty parameter counts as absent, one sent
    /// twice is 400.
    ///
    /// ```swift
    /// let query = try HistoryFeedQuery(values: { name in name == "limit" ? ["20"] : [] })
    /// ```
    ///
    /// - Parameters:
    ///   - defaultLimit: the limit without `limit=`.
    ///   - maximumLimit: the largest `limit` taken.
    /// - Throws: an ``HTTPProblem`` with status 400 naming `since` (neither a
    ///   token nor `latest`) or `limit` (not an integer from 1 to
    ///   `maximumLimit`), or a parameter sent twice.
    public init(values: (String) -> [String], defaultLimit: Int = 100, maximumLimit: Int = 1_000) throws {
        func value(_ name: String) throws -> String? {
            let sent = values(name)
            // Sent twice, a parameter has no one value to read.
            guard sent.count <= 1 else {
                throw HTTPProblem(status: 400, detail: "parameter '\(name)' must be given at most once")
            }
            guard let text = sent.first, !text.isEmpty else { return nil }
            return text
        }
        self.init(limit: defaultLimit)
        if let text = try value("since") {
            if text == "latest" {
                isLatest = true
            } else {
                guard let token = HistoryToken(text) else {
                    let shown = text.count <= 64 ? "'\(text)'" : "'\(text.prefix(64))…'"
                    throw HTTPProblem(
                        status: 400,
                        detail: "parameter 'since' must be a token from a previous answer's 'next' (such as 42-9f2c61d0a4b8e7f1) or 'latest', not \(shown)")
                }
                since = token
            }
        }
        if let text = try value("limit") {
            guard let limit = Int(text), (1...maximumLimit).contains(limit) else {
                throw HTTPProblem(status: 400, detail: "parameter 'limit' must be an integer from 1 to \(maximumLimit)")
            }
            self.limit = limit
        }
    }
}

/// One page of a history feed: the transactions after the query's `since`,
/// oldest first, and `next`, the token to ask from next time.
///
/// ```swift
/// let page = try await stack.historyFeed(HistoryFeedQuery(limit: 20))
/// print(page.transactions.count, page.next as Any)
/// ```
public struct HistoryFeedPage: Sendable {
    /// Pass it as `since` next time: the last transaction's token when the
    /// page is full; otherwise the newest token of the store, so that a
    /// client skips past transactions the filter left out. `nil` only for a
    /// store that has recorded nothing yet.
    public var next: HistoryToken?
    /// The transactions, oldest first.
    public var transactions: [HistoryTransaction]

    /// A page of `transactions` continuing from `next`.
    ///
    /// ```swift
    /// let empty = HistoryFeedPage(next: try stack.newestHistoryToken(), transactions: [])
    /// ```
    public init(next: HistoryToken?, transactions: [HistoryTransaction]) {
        self.next = next
        self.transactions = transactions
    }
}

/// A feed that cannot continue from the client's `since`: answered 410 Gone
/// as problem details (type ``StoreProblem/historyExpired``) with `next`,
/// the newest token, read before the error was thrown: the client reads the
/// records again, then continues from it, and misses nothing that commits
/// in between. Each integration answers it (HummingbirdLiteRecord's and
/// VaporLiteRecord's `StoreErrorMiddleware`, or the error on its own):
///
/// ```json
/// {"detail":"…","error":{"message":"…"},"next":"9-9f2c61d0a4b8e7f1","status":410,"title":"Gone","type":"tag:literecord,2026:history-expired"}
/// ```
public struct HistoryFeedGone: Error, Sendable, Hashable {
    /// Why, in a sentence naming the token.
    public var reason: String
    /// Where to continue once the records are read again: the store's
    /// newest token (`nil` for a store without transactions).
    public var next: HistoryToken?

    /// The error for `reason`, continuing from `next`.
    ///
    /// ```swift
    /// throw HistoryFeedGone(reason: "token 4-… is no longer kept", next: try stack.newestHistoryToken())
    /// ```
    public init(reason: String, next: HistoryToken?) {
        self.reason = reason
        self.next = next
    }

    /// The 410's body: problem details with `next` (`null` when there is
    /// none: a client reads it), keys sorted, slashes not escaped.
    ///
    /// ```swift
    /// let body = try gone.json()
    /// ```
    ///
    /// - Throws: the encoder's error (not in practice).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(GoneBody(detail: reason, error: .init(message: reason), next: next))
    }
}

/// The 410's JSON: problem details and `next`.
struct GoneBody: Encodable {
    var detail: String
    var error: ProblemDocument.Message
    var next: HistoryToken?
    var status = 410
    var title = "Gone"
    var type = StoreProblem.historyExpired

    func encode(to encoder: any Encoder) throws {
        // `next` is always there, null included: a client reads it.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(detail, forKey: .detail)
        try container.encode(error, forKey: .error)
        try container.encode(next, forKey: .next)
        try container.encode(status, forKey: .status)
        try container.encode(title, forKey: .title)
        try container.encode(type, forKey: .type)
    }

    enum CodingKeys: String, CodingKey { case detail, error, next, status, title, type }
}

extension RecordStack {
    /// One page of a history feed: the transactions `filter` keeps after
    /// `query.since`, at most `query.limit`, and the token to continue from.
    /// It reads the newest token **before** fetching, so that when the fetch
    /// is not cut short by the limit, `next` may skip to that token with
    /// nothing up to it unread. The history calls read SQLite synchronously;
    /// this runs them on a dispatch queue, so the calling task suspends and
    /// no cooperative thread waits.
    ///
    /// ```swift
    /// let page = try await stack.historyFeed(HistoryFeedQuery(since: token, limit: 50), matching: .entity(Product.self))
    /// ```
    ///
    /// - Throws: ``HistoryFeedGone`` (410, with the newest token as `next`)
    ///   when `since` is older than the store keeps, another store's, or,
    ///   on a primary, newer than its newest transaction (a store put back
    ///   from an older copy; a replica may only be behind); the store's
    ///   `LiteRecordError` otherwise, `.storeUnavailable` when it keeps no
    ///   history.
    public func historyFeed(_ query: HistoryFeedQuery, matching filter: HistoryFilter = .all) async throws -> HistoryFeedPage {
        let stack = self
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try stack.historyFeedPage(query, matching: filter) })
            }
        }
    }

    func historyFeedPage(_ query: HistoryFeedQuery, matching filter: HistoryFilter) throws -> HistoryFeedPage {
        let newest = try newestHistoryToken()
        if query.isLatest { return HistoryFeedPage(next: newest, transactions: []) }
        let newer = query.since.flatMap { since in newest.map { since > $0 } } ?? false
        let transactions: [HistoryTransaction]
        do {
            transactions = try fetchHistory(after: query.since, matching: filter, limit: query.limit)
        } catch let error as LiteRecordError where error.kind == .historyExpired {
            if newer, let since = query.since, let newest {
                throw HistoryFeedGone(
                    reason: "token \(since) is newer than this store's newest change (\(newest)): the store was put back from an older copy",
                    next: newest)
            }
            throw HistoryFeedGone(
                reason: "the changes after token \(query.since.map { "\($0)" } ?? "") are no longer kept (the history's retention or a cleanup deleted them), or the token is another store's",
                next: newest)
        }
        // Every `next` this store gave is at most its newest token then, and
        // tokens only grow: a newer one comes from a timeline the store no
        // longer has, whose numbers it will hand out again for other changes.
        if transactions.isEmpty, newer, !isReplica, let since = query.since, let newest {
            throw HistoryFeedGone(
                reason: "token \(since) is newer than this store's newest change (\(newest)): the store was put back from an older copy",
                next: newest)
        }
        let next: HistoryToken?
        if transactions.count == query.limit {
            next = transactions.last?.token
        } else {
            next = [query.since, transactions.last?.token, newest].compactMap { $0 }.max()
        }
        return HistoryFeedPage(next: next, transactions: transactions)
    }
}
