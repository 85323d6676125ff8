public import Foundation
public import Hummingbird
import LiteRecordHTTP

/// Sends every write on a read replica to the primary before anything of
/// it is read: **307 Temporary Redirect** with `Location` naming the same
/// path and query on the primary, so that a client following it repeats the
/// same method and body there (a 307 keeps both, RFC 9110 §15.4.8; temporary,
/// because which server is the primary can change). When the primary is not
/// known, **421 Misdirected Request** (RFC 9110 §15.5.20): this server cannot
/// answer the write, and trying it again here will not help. Both carry the
/// service's JSON error body. The answers are LiteRecordHTTP's
/// ``LiteRecordHTTP/ReadReplicaRedirect``, the same as VaporLiteRecord's.
///
/// ```swift
/// if stack.isReplica { router.add(middleware: ReadReplicaMiddleware(primary: URL(string: "http://10.0.0.5:8080"))) }
/// ```
///
/// Add it before the routes: it acts only on a request that matched a route
/// with its method (Hummingbird sets `context.endpointPath` then), so a
/// method a route does not have stays 405 and an unknown path 404. Reads
/// (`GET`, `HEAD`, `OPTIONS`) pass.
public struct ReadReplicaMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The answers, and the primary's base URL.
    let replica: ReadReplicaRedirect

    /// A middleware redirecting writes; `primary` is the primary service's
    /// base URL (`http://10.0.0.5:8080`, or with a path prefix), `nil` when
    /// not known (421 then).
    public init(primary: URL?) {
        replica = ReadReplicaRedirect(primary: primary)
    }

    /// Passes reads and requests no route takes; redirects (or refuses) writes.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A read, or no route for this path and method: what it would be
        // on the primary (the 404 or 405 included).
        guard ReadReplicaRedirect.isWrite(method: request.method.rawValue), context.endpointPath != nil else {
            return try await next(request, context)
        }
        throw HTTPError(replica.refusal(method: request.method.rawValue, path: request.uri.path, query: request.uri.query))
    }
}
