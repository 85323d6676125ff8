import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// A known path asked with a method none of its routes has is 405 with
/// `Allow` (RFC 9110 §15.5.6), not the 404 Vapor answers alone; `HEAD` is
/// listed beside `GET`, as Vapor answers it from the `GET` route.
@Suite(.timeLimit(.minutes(1))) struct UnmatchedRouteTests {
    @Test func aKnownPathWithAnotherMethodIs405WithAllow() async throws {
        try await withInventory { client, _ in
            let collection = try await client.send(.DELETE, "/products")
            #expect(collection.status == .methodNotAllowed)
            #expect(collection.headers.first(name: .allow) == "GET, HEAD, POST")
            let problem = try Problem(collection)
            #expect(problem.status == 405)
            #expect(problem.detail == "/products answers GET, HEAD, POST, not DELETE")
            // A parameter matches as it does for the route.
            let item = try await client.send(.PATCH, "/products/1")
            #expect(item.status == .methodNotAllowed)
            #expect(item.headers.first(name: .allow) == "DELETE, GET, HEAD, PUT")
            let nested = try await client.send(.GET, "/products/1/withdrawals")
            #expect(nested.status == .methodNotAllowed)
            #expect(nested.headers.first(name: .allow) == "POST")
        }
    }

    @Test func anUnknownPathIs404AndARoutesOwn404Stands() async throws {
        try await withInventory { client, _ in
            let unknown = try await client.send(.GET, "/nothing/here")
            #expect(unknown.status == .notFound)
            #expect(unknown.headers.first(name: .allow) == nil)
            #expect(try Problem(unknown).detail == "no route for GET /nothing/here")
            let missing = try await client.send(.GET, "/products/99")
            #expect(missing.status == .notFound)
            #expect(try Problem(missing).detail == "no Product 99")
            // HEAD is served from GET, not refused.
            #expect(try await client.send(.HEAD, "/products/1").status == .ok)
        }
    }

    @Test func itAnswersBeforeTheStoreErrorMiddlewareToo() async throws {
        try await withApp(configure: { app in
            app.middleware.use(UnmatchedRouteMiddleware())
            app.middleware.use(StoreErrorMiddleware())
            app.get("things") { _ in "[]" }
        }) { app in
            let client = try app.testing()
            let refused = try await client.send(.PUT, "/things")
            #expect(refused.status == .methodNotAllowed)
            #expect(refused.headers.first(name: .allow) == "GET, HEAD")
            #expect(try Problem(refused).title == "Method Not Allowed")
            #expect(try await client.send(.GET, "/other").status == .notFound)
        }
    }
}
