public import Hummingbird
import Foundation

/// Answers a request that no route takes: 405 Method Not Allowed with
/// `Allow` when routes serve its path with other methods, 404 naming the
/// path otherwise, both with the JSON error body.
///
/// It finds the path's methods with Hummingbird's own router (a copy of
/// `router`'s paths with the same `options`), so captures (`:id`, `{id}`),
/// wildcards and case-insensitive paths match as they do for the routes.
/// With `.autoGenerateHeadEndpoints` in `options`, `Allow` lists `HEAD`
/// beside every `GET`, as the router then answers it.
///
/// Add it **after** every route: a middleware added after the routes is not
/// around any of them, only around the router's "no route" answer, so it
/// sees exactly the unmatched requests, and it is made once the routes are
/// known. It has nothing to do with store errors
/// (``StoreErrorMiddleware``), so forgetting one never changes the other.
///
/// ```swift
/// let options: RouterOptions = [.autoGenerateHeadEndpoints]
/// let router = Router(options: options)
/// router.add(middleware: StoreErrorMiddleware())
/// router.get("/todos") { _, _ in "[]" }
/// router.add(middleware: UnmatchedRouteMiddleware(router: router, options: options))   // DELETE /todos: 405, Allow: GET, HEAD
/// ```
public struct UnmatchedRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Answers the probe method on every routed path with the path's methods.
    let paths: RouterResponder<Context>

    /// The method of the probe: no client sends it.
    static var probe: HTTPRequest.Method { HTTPRequest.Method("LITERECORD-ALLOW-PROBE")! }

    /// A middleware knowing `router`'s routes as they are now; `options` are
    /// the ones `router` was made with.
    ///
    /// ```swift
    /// router.add(middleware: UnmatchedRouteMiddleware(router: router, options: [.autoGenerateHeadEndpoints]))
    /// ```
    public init(router: Router<Context>, options: RouterOptions = []) {
        var methods: [String: (path: RouterPath, methods: Set<String>)] = [:]
        for route in router.routes {
            methods[route.path.description, default: (route.path, [])].methods.insert(route.method.rawValue)
        }
        let shadow = Router(context: Context.self, options: options.subtracting(.autoGenerateHeadEndpoints))
        for (_, entry) in methods {
            var allowed = entry.methods
            if options.contains(.autoGenerateHeadEndpoints), allowed.contains("GET") { allowed.insert("HEAD") }
            let allow = allowed.sorted().joined(separator: ", ")
            shadow.on(entry.path, method: Self.probe) { _, _ in
                Response(status: .noContent, headers: [.allow: allow])
            }
        }
        paths = shadow.buildResponder()
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
            let allowed = try await allowedMethods(request, context)
            // A route of this method answered 404 itself (no such record):
            // its answer stands.
            guard !allowed.isEmpty else {
                throw HTTPError(.notFound, headers: error.headers, message: "no route for \(request.method) \(request.uri.path)")
            }
            guard !allowed.contains(request.method.rawValue) else { throw error }
            var headers = error.headers
            headers[.allow] = allowed.joined(separator: ", ")
            throw HTTPError(
                .methodNotAllowed, headers: headers,
                message: "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method)")
        }
    }

    /// The methods routes serve `request`'s path with, sorted; empty when none.
    func allowedMethods(_ request: Request, _ context: Context) async throws -> [String] {
        var head = request.head
        head.method = Self.probe
        let probe = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let answer = try await paths.respond(to: probe, context: context)
        guard answer.status == .noContent, let allow = answer.headers[.allow] else { return [] }
        return allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
