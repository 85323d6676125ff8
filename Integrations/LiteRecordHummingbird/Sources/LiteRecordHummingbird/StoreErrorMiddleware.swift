public import Hummingbird
public import LiteRecord
import Logging
import Synchronization

extension LiteRecordError {
    /// The HTTP status a service answers for this store error: 409 for a
    /// unique or other constraint, 412 for an optimistic-locking conflict,
    /// 410 for a history token older than the store keeps (`.historyExpired`),
    /// 503 when the store is busy, read-only or unavailable, 507 when the
    /// disk is full, and 500 for everything else.
    ///
    /// ```swift
    /// catch let error as LiteRecordError { return Response(status: error.httpStatus) }
    /// ```
    public var httpStatus: HTTPResponse.Status {
        let primary = (extendedResultCode ?? resultCode ?? 0) & 0xFF
        switch primary {
        case 13: return .init(code: 507, reasonPhrase: "Insufficient Storage")  // SQLITE_FULL
        case 5, 6: return .serviceUnavailable  // SQLITE_BUSY, SQLITE_LOCKED
        default: break
        }
        switch kind {
        case .constraintViolation: return .conflict
        case .conflict: return .preconditionFailed
        case .historyExpired: return .gone
        case .storeUnavailable, .readOnlyStore: return .serviceUnavailable
        default: return .internalServerError
        }
    }
}

/// Answers every error a route throws with the same JSON body,
/// `{"error":{"message":"…"}}`, and the status it means:
///
/// - a `LiteRecordError` with ``LiteRecord/LiteRecordError/httpStatus`` and
///   a sentence of its own: the library's message, which can name the file,
///   the columns and the SQL, goes to the log only;
/// - a route that exists for other methods: 405 with `Allow`;
/// - no route at all: 404 naming the path;
/// - an `HTTPError` without a message, or another framework error: its
///   status, with the reason phrase;
/// - anything else: 500 with a generic message.
///
/// Every 500 is logged at `.error` with the error's own text (for a
/// `LiteRecordError` its message, SQLite's message and the SQL) and the
/// request id, which the answer quotes so a client's report finds the line.
///
/// Add it to the router **before** the routes (Hummingbird wraps a route in
/// the middleware added before it), and hand it the routes once they are all
/// added, so it knows their methods:
///
/// ```swift
/// let router = Router()
/// let errors = StoreErrorMiddleware<BasicRequestContext>()
/// router.add(middleware: errors)
/// router.get("/todos") { _, _ in "[]" }
/// errors.allowMethods(of: router)      // DELETE /todos: 405, Allow: GET
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
    public func allowMethods(of router: Router<Context>) {
        routes.set(router.routes.map { (Self.segments($0.path.description), $0.method) })
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as LiteRecordError {
            throw answer(error, request: request, context: context)
        } catch let error as HTTPError {
            throw answer(error, request: request)
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

    func answer(_ error: LiteRecordError, request: Request, context: Context) -> HTTPError {
        let status = error.httpStatus
        switch status {
        case .conflict:
            // The library's message names the file and the columns: the log
            // gets it, the client a sentence of its own.
            context.logger.notice("\(request.method) \(request.uri.path): \(error)")
            return HTTPError(status, message: "the change conflicts with a stored record: a value that must be unique is taken")
        case .preconditionFailed:
            context.logger.notice("\(request.method) \(request.uri.path): \(error)")
            return HTTPError(status, message: "the record changed since it was read; read it again")
        case .gone:
            context.logger.notice("\(request.method) \(request.uri.path): \(error)")
            return HTTPError(status, message: "the history token is older than what the store keeps, or from another store; read the records again and continue from a new token")
        case .serviceUnavailable:
            context.logger.warning("\(request.method) \(request.uri.path): \(error)")
            return HTTPError(status, headers: [.retryAfter: "1"], message: "the store is busy or unavailable; try again")
        case .internalServerError:
            context.logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return HTTPError(status, message: Self.generic(context))
        default:
            context.logger.error("\(request.method) \(request.uri.path): \(error)")
            return HTTPError(status, message: "the disk is full; nothing was written")
        }
    }

    func answer(_ error: HTTPError, request: Request) -> HTTPError {
        if error.body != nil { return error }
        if error.status == .notFound {
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
        "the server could not answer this request (request id \(context.id))"
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
