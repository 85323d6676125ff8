public import Foundation
import LiteRecordHTTP
public import Vapor

/// Sends every write on a read replica (`RecordStack(replicaAt:…)`) to the
/// primary before anything of it is read: **307 Temporary Redirect** with
/// `Location` naming the same path and query on the primary, so that a
/// client following it repeats the same method and body there (a 307 keeps
/// both, RFC 9110 §15.4.8; temporary, because which server is the primary
/// can change). When the primary is not known, **421 Misdirected Request**
/// (RFC 9110 §15.5.20): this server cannot answer the write, and trying it
/// again here will not help. Both are problem details. The answers are
/// LiteRecordHTTP's ``LiteRecordHTTP/ReadReplicaRedirect``, the same as
/// HummingbirdLiteRecord's middleware of this name.
///
/// ```swift
/// if stack.isReplica { app.middleware.use(ReadReplicaMiddleware(primary: URL(string: "http://10.0.0.5:8080"))) }
/// ```
///
/// It acts only on a request Vapor routed (`req.route` is set), so an
/// unknown path stays 404 (and 405 with ``UnmatchedRouteMiddleware``).
/// Reads (`GET`, `HEAD`, `OPTIONS`) pass. A route collects its body after
/// the application's middleware, so a refused write's body is never read.
public struct ReadReplicaMiddleware: AsyncMiddleware {
    /// The answers, and the primary's base URL.
    let replica: ReadReplicaRedirect

    /// A middleware redirecting writes; `primary` is the primary service's
    /// base URL (`http://10.0.0.5:8080`, or with a path prefix), `nil` when
    /// not known (421 then).
    ///
    /// ```swift
    /// let middleware = ReadReplicaMiddleware(primary: URL(string: "http://10.0.0.5:8080"))
    /// ```
    public init(primary: URL?) {
        replica = ReadReplicaRedirect(primary: primary)
    }

    /// Passes reads and requests no route takes; redirects (or refuses) writes.
    ///
    /// - Throws: what `next` throws.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        // A read, or no route for this path and method: what it would be on
        // the primary (the 404, or 405 with UnmatchedRouteMiddleware).
        guard ReadReplicaRedirect.isWrite(method: request.method.rawValue), request.route != nil else {
            return try await next.respond(to: request)
        }
        return ProblemDetails(replica.refusal(method: request.method.rawValue, path: request.url.path, query: request.url.query)).response()
    }
}
