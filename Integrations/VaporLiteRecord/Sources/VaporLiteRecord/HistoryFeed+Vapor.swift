import Foundation
public import LiteRecordHTTP
public import Vapor

// The history feed itself (the query, the page, `next`, the 410 and
// `RecordStack.historyFeed(_:matching:)`) is LiteRecordHTTP's, the same as
// HummingbirdLiteRecord's; here only Vapor's side of it.

extension HistoryFeedQuery {
    /// Reads `since` (a token or `latest`) and `limit` from the request's
    /// query string; an empty parameter counts as absent, one sent twice is
    /// 400.
    ///
    /// ```swift
    /// let query = try HistoryFeedQuery(req, maximumLimit: 500)
    /// ```
    ///
    /// - Parameters:
    ///   - defaultLimit: the limit without `limit=`.
    ///   - maximumLimit: the largest `limit` taken.
    /// - Throws: ``ProblemDetails`` 400 naming `since` (neither a token nor
    ///   `latest`) or `limit` (not an integer from 1 to `maximumLimit`), or
    ///   for a query string that is not percent-encoded text.
    public init(_ request: Request, defaultLimit: Int = 100, maximumLimit: Int = 1_000) throws {
        var items: [URLQueryItem] = []
        if let query = request.url.query, !query.isEmpty {
            guard let parsed = URLComponents(string: "?" + query)?.queryItems else {
                throw ProblemDetails(.badRequest, detail: "the query string is not percent-encoded text")
            }
            items = parsed
        }
        self = try vaporProblems {
            try HistoryFeedQuery(values: { name in items.filter { $0.name == name }.map { $0.value ?? "" } },
                                 defaultLimit: defaultLimit, maximumLimit: maximumLimit)
        }
    }
}

/// The 410 Gone of a feed, as Vapor answers it: an `AbortError` (status 410,
/// the reason), which ``StoreErrorMiddleware`` answers as problem details
/// with `next` (``response()``).
extension HistoryFeedGone: @retroactive AbortError {
    /// 410 Gone.
    public var status: HTTPResponseStatus { .gone }

    /// The 410: problem details with `next`, where the client continues
    /// once it has read the records again.
    ///
    /// ```swift
    /// let response = gone.response()
    /// ```
    public func response() -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: ProblemDocument.mediaType)
        // Strings and a token only: the encoder has nothing it could fail
        // on; an empty body is the answer if it ever did.
        let body = (try? json()).map { Response.Body(data: $0) } ?? .empty
        return Response(status: .gone, headers: headers, body: body)
    }
}
