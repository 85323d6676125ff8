import Foundation
public import Vapor

/// Answers a request that no route takes: **405 Method Not Allowed** with
/// `Allow` when routes serve its path with other methods (RFC 9110
/// §15.5.6), 404 naming the path otherwise, both as problem details. Vapor
/// alone answers 404 for a known path asked with another method.
///
/// It finds the path's methods as Vapor's router does (RoutingKit's
/// `TrieRouter` over `app.routes`, case-insensitive when the routes are),
/// so parameters (`:id`), `*` and `**` match as they do for the routes.
/// `Allow` lists `HEAD` beside every `GET`: Vapor answers `HEAD` from the
/// `GET` route.
///
/// It acts only on what Vapor's router did not route (Vapor's
/// `RouteNotFound`, or a 404 answered for a request without a route): a
/// route's own 404 (no such record) stands. It answers by itself, so it
/// works before or after ``StoreErrorMiddleware``; it has nothing to do with
/// store errors.
///
/// ```swift
/// app.middleware.use(StoreErrorMiddleware())
/// app.middleware.use(UnmatchedRouteMiddleware())     // DELETE /products: 405, Allow: GET, HEAD, POST
/// ```
public struct UnmatchedRouteMiddleware: AsyncMiddleware {
    /// The middleware.
    ///
    /// ```swift
    /// app.middleware.use(UnmatchedRouteMiddleware())
    /// ```
    public init() {}

    /// Answers `request` with `next`; an unrouted request with 405 or 404.
    ///
    /// - Throws: what `next` throws, but for Vapor's `RouteNotFound`.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response: Response
        do {
            response = try await next.respond(to: request)
        } catch is RouteNotFound {
            return unmatched(request)
        }
        // An inner error middleware answered the router's 404 already.
        guard response.status == .notFound, request.route == nil else { return response }
        return unmatched(request)
    }

    /// The 405 with `Allow`, or the 404, for a request no route took.
    func unmatched(_ request: Request) -> Response {
        let path = request.url.path
        let allowed = Self.allowedMethods(path: path, routes: request.application.routes)
        guard !allowed.isEmpty else {
            return ProblemDetails(.notFound, detail: "no route for \(request.method) \(path)").response()
        }
        let list = allowed.joined(separator: ", ")
        return ProblemDetails(.methodNotAllowed, detail: "\(path) answers \(list), not \(request.method)",
                              headers: ["Allow": list]).response()
    }

    /// The methods `routes` serve `path` with, sorted, `HEAD` beside `GET`;
    /// empty when none. A router of its own is made for the question: only
    /// a request no route took pays for it.
    static func allowedMethods(path: String, routes: Routes) -> [String] {
        let router = TrieRouter(String.self, options: routes.caseInsensitive ? [.caseInsensitive] : [])
        var methods = Set<String>()
        for route in routes.all {
            // As Vapor's own responder registers them: empty constants dropped.
            let components = route.path.filter { component in
                if case .constant(let text) = component { return !text.isEmpty }
                return true
            }
            router.register(route.method.rawValue, at: [.constant(route.method.rawValue)] + components)
            methods.insert(route.method.rawValue)
        }
        let asked = path.split(separator: "/").map(String.init)
        var allowed = Set<String>()
        for method in methods {
            var parameters = Parameters()
            if router.route(path: [method] + asked, parameters: &parameters) != nil { allowed.insert(method) }
        }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return allowed.sorted()
    }
}
