public import LiteRecord
import LiteRecordHTTP
public import Vapor

extension LiteRecordError {
    /// The HTTP status a service answers for this store error
    /// (``LiteRecordHTTP/StoreErrorAnswer`` has the table): 409 for a
    /// constraint, 412 for an optimistic-locking conflict, 410 for an expired
    /// history token, 503 when the store is busy, read-only or closed, 507
    /// when the disk is full, 500 for the rest.
    ///
    /// ```swift
    /// catch let error as LiteRecordError { throw Abort(error.abortStatus) }
    /// ```
    public var abortStatus: HTTPResponseStatus { HTTPResponseStatus(statusCode: httpStatusCode) }
}

/// Answers every error a route throws as RFC 9457 problem details
/// (``ProblemDetails``, `application/problem+json`) with the status it means:
///
/// - a `LiteRecordError`: ``LiteRecordHTTP/StoreErrorAnswer``'s status, type
///   and sentence (a 409 names the unique attributes, a 503 sends
///   `Retry-After`); the library's message, which can name the file and the
///   SQL, goes to the log only;
/// - an `AbortError` (`Abort(.notFound, reason: "no product 7")`, a route
///   not found, a body too large, a ``ProblemDetails``): its status, headers
///   and reason;
///   (a body `req.content.decode` could not read is a `DecodingError`,
///   which Vapor makes an `AbortError` of status 400); a 304 or 204 thrown
///   this way is answered without a body;
/// - a ``LiteRecordHTTP/HistoryFeedGone``: 410 with `next`, where the client
///   continues once it has read the records again;
/// - anything else: 500 with a generic sentence quoting the request id; the
///   log line at `.error` has the error's own text and that id.
///
/// Add it to `app.middleware` (it runs inside Vapor's `ErrorMiddleware`,
/// which then has nothing left to answer):
///
/// ```swift
/// app.middleware.use(StoreErrorMiddleware())
/// ```
public struct StoreErrorMiddleware: AsyncMiddleware {
    /// The middleware.
    ///
    /// ```swift
    /// let middleware = StoreErrorMiddleware()
    /// ```
    public init() {}

    /// Answers `request` with `next`, or with the problem details of what it threw.
    ///
    /// - Throws: nothing of its own: every error becomes an answer.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let gone as HistoryFeedGone {
            // Problem details already, with the `next` a client needs.
            request.logger.notice("\(request.method) \(request.url.path): \(gone.reason)")
            return gone.response()
        } catch {
            let problem = problem(for: error, request: request)
            // 1xx, 204 and 304 have no body (RFC 9110 §6.4.1).
            if problem.status.code < 200 || problem.status == .noContent || problem.status == .notModified {
                return Response(status: problem.status, headers: problem.headers)
            }
            return problem.response()
        }
    }

    func problem(for error: any Error, request: Request) -> ProblemDetails {
        let route = "\(request.method) \(request.url.path)"
        switch error {
        case let error as LiteRecordError:
            let answer = StoreErrorAnswer(error)
            switch answer.severity {
            case .client: request.logger.notice("\(route): \(error)")
            case .unavailable: request.logger.warning("\(route): \(error)")
            case .fault:
                request.logger.error("\(route) failed: \(error)")
                return ProblemDetails(.internalServerError, detail: StoreErrorAnswer.genericDetail(requestID: Self.requestID(request)))
            }
            return ProblemDetails(answer.problem)
        case let problem as ProblemDetails:
            return problem
        case let problem as HTTPProblem:
            return ProblemDetails(problem)
        case let abort as any AbortError:
            return ProblemDetails(abort.status, detail: abort.reason, headers: abort.headers)
        case is CancellationError:
            // The client went, or a shutdown deadline cancelled the request.
            request.logger.notice("\(route) was cancelled")
            return ProblemDetails(.serviceUnavailable, detail: "the request was cancelled")
        default:
            request.logger.error("\(route) failed: \(error)")
            return ProblemDetails(.internalServerError, detail: StoreErrorAnswer.genericDetail(requestID: Self.requestID(request)))
        }
    }

    /// The request id Vapor put in the request's logger (`X-Request-Id`, or
    /// a UUID of its own).
    static func requestID(_ request: Request) -> String? {
        request.logger[metadataKey: "request-id"].map { "\($0)" }
    }
}
