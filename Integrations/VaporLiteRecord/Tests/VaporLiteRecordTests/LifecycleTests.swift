import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// The stack in the application's lifecycle: `app.liteRecord.use(_:)` makes
/// it the routes' and closes it at shutdown, after the HTTP server has
/// drained its requests.
@Suite(.timeLimit(.minutes(1))) struct LifecycleTests {
    @Test func shutdownClosesTheStack() async throws {
        let stack = try RecordStack(inMemoryWith: [Product.self])
        try await withApp(configure: { app in app.liteRecord.use(stack) }) { app throws in
            let configured = try app.liteRecord.stack
            #expect(configured === stack)
            let count = try await stack.read { try Product.count(in: $0) }
            #expect(count == 0)
        }
        await #expect(throws: LiteRecordError.self) { try await stack.read { try Product.count(in: $0) } }
    }

    @Test func aRouteWithoutAConfiguredStackIsAnswered500() async throws {
        try await withApp(configure: { app in
            app.middleware.use(StoreErrorMiddleware())
            app.get("count") { req async throws -> String in
                try await req.liteRecord.stack.read { try Product.count(in: $0) }.description
            }
        }) { app in
            let answer = try await app.testing().send(.GET, "/count")
            #expect(answer.status == .internalServerError)
            #expect(try Problem(answer).detail.contains("app.liteRecord.use"))
        }
    }

    /// A real server on 127.0.0.1 (an ephemeral port): a request still
    /// running when shutdown begins finishes, and its write reaches the
    /// store, before the stack closes.
    @Test func aRequestInFlightAtShutdownFinishesBeforeTheStackCloses() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-vapor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Inventory.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Product.self], migration: .automatic)
        let entered = AsyncStream.makeStream(of: Void.self)

        let app = try await Application.make(.testing)
        app.liteRecord.use(stack)
        app.post("slow") { req async throws -> HTTPStatus in
            entered.continuation.yield()
            try await Task.sleep(for: .milliseconds(300))
            try await req.liteRecord.stack.write { store in
                let product = Product()
                store.insert(product)
                product.sku = "late"
            }
            return .created
        }
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/slow")))
        request.httpMethod = "POST"
        request.timeoutInterval = 10
        do {
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            request.url = URL(string: "http://127.0.0.1:\(port)/slow")
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        let answer = Task { [request] in try await URLSession.shared.data(for: request) }
        var signals = entered.stream.makeAsyncIterator()
        await signals.next()
        try await app.asyncShutdown()

        let (_, response) = try await answer.value
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        await #expect(throws: LiteRecordError.self) { try await stack.read { try Product.count(in: $0) } }
        let reopened = try RecordStack(storeAt: url, entities: [Product.self], migration: .automatic)
        #expect(try await reopened.read { try Product.count(in: $0) } == 1)
        try reopened.close()
    }
}
