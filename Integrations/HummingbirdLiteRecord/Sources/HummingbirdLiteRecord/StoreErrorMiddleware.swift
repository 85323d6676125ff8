public import Hummingbird
public import LiteRecord
import Foundation
import Logging
import Synchronization

extension LiteRecordError {
    /// The HTTP status a service answers for this store error
    /// (LiteRecordHTTP's ``LiteRecordHTTP/StoreErrorAnswer`` has the table):
    /// 409 for a unique or other constraint, 412 for an optimistic-locking
    /// conflict, 410 for a history token older than the store keeps
    /// (`.historyExpired`), 503 when the store is busy, read-only or
    /// unavailable, 507 when the disk is full, and 500 for everything else.
    ///
    /// ```swift
    /// catch let error as LiteRecordError { return Response(status: error.httpStatus) }
    /// ```
    public var httpStatus: HTTPResponse.Status { HTTPResponse.Status(problemStatus: httpStatusCode) }
}

/// Answers every error a route throws as RFC 9457 problem details
/// (``ProblemDetails``, `application/problem+json`: `type`, `title`,
/// `status`, `detail`, and the same sentence as `error.message`, the body
/// earlier versions sent), with the status it means:
///
/// - a `LiteRecordError` with LiteRecordHTTP's ``LiteRecordHTTP/StoreErrorAnswer``:
///   its status, its sentence (a 409 names the unique attributes,
///   `LiteRecordError.violatedColumns`) and its problem type, one of
///   ``LiteRecordHTTP/StoreProblem``; the library's message, which can name
///   the file and the SQL, goes to the log only;
/// - an ``LiteRecordHTTP/HTTPProblem`` (what LiteRecordHTTP's own calls
///   throw): its status, type, sentence and headers;
/// - an `HTTPError` without a message, or another framework error: its
///   status, with the reason phrase;
/// - anything else: 500 with a generic message.
///
/// Every 500 is logged at `.error` with the error's own text (for a
/// `LiteRecordError` its message, SQLite's message and the SQL) and the
/// request id, which the answer quotes so a client's report finds the line.
///
/// Add it to the router **before** the routes (Hummingbird wraps a route in
/// the middleware added before it). A request no route takes is
/// ``UnmatchedRouteMiddleware``'s, added after the routes:
///
/// ```swift
/// let router = Router()
/// router.add(middleware: StoreErrorMiddleware())
/// router.get("/todos") { _, _ in "[]" }
/// router.add(middleware: UnmatchedRouteMiddleware(router: router))   // DELETE /todos: 405, Allow: GET
/// ```
public struct StoreErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The router's routes (path segments and method), once
    /// ``allowMethods(of:)`` has read them; shared by every copy.
    let routes = RouteTable()

    /// A middleware that answers every error with the same JSON body.
    public init() {}

    /// Reads `router`'s routes, so that a path it serves asked with another
    /// method is answered 405 with `Allow` rather than 404. Call it after
    /// adding the routes (again, if you add more).
    ///
    /// ```swift
    /// errors.allowMethods(of: router)
    /// ```
    @available(*, deprecated, message: "add UnmatchedRouteMiddleware(router:options:) after the routes: it matches paths as the router does and lists generated HEAD routes")
    public func allowMethods(of router: Router<Context>) {
        routes.set(router.routes.map { (Self.segments($0.path.description), $0.method) })
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await mapped(request, context: context, next: next)
        } catch let problem as HTTPProblem {
            throw ProblemDetails(problem)
        } catch let error as HTTPError {
            // 1xx, 204 and 304 have no body.
            guard error.status.code >= 200, error.status != .noContent, error.status != .notModified else { throw error }
            throw ProblemDetails(error.status, detail: error.body ?? error.status.reasonPhrase, headers: error.headers)
        }
    }

    func mapped(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LiteRecordError {
            throw answer(error, request: request, context: context)
        } catch let problem as HTTPProblem {
            throw problem
        } catch let error as HTTPError {
            throw answer(error, request: request)
        } catch let error as ProblemDetails {
            throw error
        } catch let error as HistoryFeedGone {
            // Problem details already, with the `next` a client needs.
            throw error
        } catch let error as any HTTPResponseError {
            // Another framework error (a body over the limit, say): the same
            // JSON body as the rest, with its status and headers.
            let headers = (try? error.response(from: request, context: context).headers) ?? [:]
            throw HTTPError(error.status, headers: headers, message: error.status.reasonPhrase)
        } catch is CancellationError {
            // The client went, or a shutdown deadline cancelled the request:
            // not a fault of the service's.
            context.logger.notice("\(request.method) \(request.uri.path) was cancelled")
            throw HTTPError(.serviceUnavailable, message: "the request was cancelled")
        } catch {
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            throw HTTPError(.internalServerError, message: Self.generic(context))
        }
    }

    /// The store error's problem (LiteRecordHTTP's table), logged by its
    /// severity; a 500 quotes the request id only.
    func answer(_ error: LiteRecordError, request: Request, context: Context) -> HTTPProblem {
        let answer = StoreErrorAnswer(error)
        switch answer.severity {
        case .client:
            // The library's message names the file and the columns: the log
            // gets it, the client a sentence of its own.
            context.logger.notice("\(request.method) \(request.uri.path): \(error)")
        case .unavailable:
            context.logger.warning("\(request.method) \(request.uri.path): \(error)")
        case .fault:
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return HTTPProblem(status: 500, detail: Self.generic(context))
        }
        return answer.problem
    }

    func answer(_ error: HTTPError, request: Request) -> HTTPError {
        if error.body != nil { return error }
        // Only for allowMethods(of:), which UnmatchedRouteMiddleware replaces.
        if error.status == .notFound, !routes.all.isEmpty {
            let allowed = allowedMethods(path: request.uri.path)
            // A route exists for the path, not for this method: 405. (A
            // route's own bare 404 — no such record — stays a 404.)
            if !allowed.isEmpty, !allowed.contains(request.method.rawValue) {
                var headers = error.headers
                headers[.allow] = allowed.joined(separator: ", ")
                return HTTPError(
                    .methodNotAllowed, headers: headers,
                    message: "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method)"
                )
            }
            return HTTPError(.notFound, headers: error.headers, message: "no route for \(request.method) \(request.uri.path)")
        }
        return HTTPError(error.status, headers: error.headers, message: error.status.reasonPhrase)
    }

    /// The methods of every route whose template matches `path`, sorted.
    func allowedMethods(path: String) -> [String] {
        let asked = Self.segments(path)
        var methods = Set<String>()
        for route in routes.all where Self.matches(route.path, asked) {
            methods.insert(route.method.rawValue)
        }
        return methods.sorted()
    }

    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// Whether a template's segments (`:id`, `{id}` and `*` match any one
    /// segment, `**` the rest) match a path's.
    static func matches(_ template: [Substring], _ path: [Substring]) -> Bool {
        for (index, segment) in template.enumerated() {
            if segment == "**" { return true }
            guard index < path.count else { return false }
            let wildcard = segment.hasPrefix(":") || segment.hasPrefix("{") || segment == "*"
            if !wildcard && segment != path[index] { return false }
        }
        return template.count == path.count
    }

    static func generic(_ context: Context) -> String {
        StoreErrorAnswer.genericDetail(requestID: context.id)
    }
}

/// Path templates and methods, filled once the routes are known.
final class RouteTable: Sendable {
    private let routes = Mutex<[(path: [Substring], method: HTTPRequest.Method)]>([])

    var all: [(path: [Substring], method: HTTPRequest.Method)] { routes.withLock { $0 } }

    func set(_ routes: [(path: [Substring], method: HTTPRequest.Method)]) {
        self.routes.withLock { $0 = routes }
    }
}
