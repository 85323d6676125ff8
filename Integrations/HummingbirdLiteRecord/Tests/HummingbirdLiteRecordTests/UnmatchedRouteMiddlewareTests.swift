import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdLiteRecord
import Testing

/// 404 and 405 for requests no route takes, apart from store errors, with
/// paths matched as Hummingbird matches them.
@Suite struct UnmatchedRouteMiddlewareTests {
    func withRouter(options: RouterOptions, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let router = Router(options: options)
        router.get("/todos") { _, _ in "[]" }
        router.post("/todos") { _, _ in HTTPResponse.Status.created }
        router.put("/todos/{id}") { _, _ in HTTPResponse.Status.ok }
        router.get("/files/**") { _, _ in "file" }
        router.get("/missing/:id") { _, _ -> HTTPResponse.Status in throw HTTPError(.notFound) }
        router.add(middleware: UnmatchedRouteMiddleware(router: router, options: options))
        try await Application(router: router).test(.router, body)
    }

    @Test func wrongMethodIs405WithAllowWithoutStoreErrorMiddleware() async throws {
        try await withRouter(options: [.autoGenerateHeadEndpoints]) { client in
            let wrong = try await client.execute(uri: "/todos", method: .delete)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "GET, HEAD, POST")
            #expect(String(buffer: wrong.body).contains("DELETE"))
            // `{id}` captures and `**` match as the router matches them.
            let braces = try await client.execute(uri: "/todos/7", method: .get)
            #expect(braces.status == .methodNotAllowed)
            #expect(braces.headers[.allow] == "PUT")
            let deep = try await client.execute(uri: "/files/a/b/c", method: .post)
            #expect(deep.status == .methodNotAllowed)
            #expect(deep.headers[.allow] == "GET, HEAD")
            // Generated HEAD is served.
            #expect(try await client.execute(uri: "/todos", method: .head).status == .ok)
            // A route's own 404 stays its own.
            let missing = try await client.execute(uri: "/missing/1", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.allow] == nil)
            let unknown = try await client.execute(uri: "/nothing", method: .get)
            #expect(unknown.status == .notFound)
            #expect(String(buffer: unknown.body).contains("/nothing"))
        }
    }

    @Test func withoutGeneratedHeadAllowDoesNotListIt() async throws {
        try await withRouter(options: []) { client in
            let head = try await client.execute(uri: "/todos", method: .head)
            #expect(head.status == .methodNotAllowed)
            #expect(head.headers[.allow] == "GET, POST")
        }
    }
}
