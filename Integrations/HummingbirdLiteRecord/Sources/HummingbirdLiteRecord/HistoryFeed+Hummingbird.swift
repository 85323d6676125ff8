public import Hummingbird
public import LiteRecordHTTP

// The history feed itself (the query, the page, the 410 with `next`, and
// `RecordStack.historyFeed(_:matching:)`) is LiteRecordHTTP's, shared with
// VaporLiteRecord; here only Hummingbird's side of it.

extension HistoryFeedQuery {
    /// Reads `since` (a token or `latest`) and `limit` from a query string;
    /// an empty parameter counts as absent, one sent twice is 400.
    ///
    /// ```swift
    /// let query = try HistoryFeedQuery(parameters: request.uri.queryParameters, maximumLimit: 500)
    /// ```
    ///
    /// - Parameters:
    ///   - defaultLimit: the limit without `limit=`.
    ///   - maximumLimit: the largest `limit` taken.
    /// - Throws: `HTTPError(.badRequest)` naming `since` (neither a token nor
    ///   `latest`) or `limit` (not an integer from 1 to `maximumLimit`).
    public init(parameters: Parameters, defaultLimit: Int = 100, maximumLimit: Int = 1_000) throws {
        self = try hummingbirdErrors {
            try HistoryFeedQuery(values: { name in parameters.getAll(name) },
                                 defaultLimit: defaultLimit, maximumLimit: maximumLimit)
        }
    }
}

/// The 410 Gone of a feed, answered by Hummingbird as problem details with
/// `next`, with or without ``StoreErrorMiddleware``.
extension HistoryFeedGone: @retroactive HTTPResponseError {
    /// 410 Gone.
    public var status: HTTPResponse.Status { .gone }

    /// The 410: problem details with `next`.
    ///
    /// ```swift
    /// let response = try gone.response(from: request, context: context)
    /// ```
    ///
    /// - Throws: the encoder's error (not in practice).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .gone, headers: [.contentType: ProblemDocument.mediaType],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: try json())))
    }
}
