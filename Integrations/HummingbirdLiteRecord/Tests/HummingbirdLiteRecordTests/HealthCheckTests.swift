import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// `/health` as a building block: 200 with what the
/// read returned and `"status":"ok"` while the stack reads, 503 problem
/// details when it is closed or the read fails.
@Suite struct HealthCheckTests {
    struct Broken: Error {}

    /// A `/health` route over a fresh store, running `read`.
    func withHealth<Details: Encodable & Sendable>(
        closingFirst: Bool = false,
        read: @escaping @Sendable (RecordContext) throws -> Details,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        try await stack.write { context in
            let todo = Todo()
            todo.title = "one"
            context.insert(todo)
        }
        let health = HealthCheck(stack: stack, read: read)
        let router = Router()
        router.add(middleware: StoreErrorMiddleware())
        router.get("/health") { request, context in try await health.response(from: request, context: context) }
        if closingFirst { try stack.close() }
        try await Application(router: router).test(.router) { client in try await body(client) }
    }

    @Test func aReadableStackIs200WithTheReadsFieldsAndStatus() async throws {
        try await withHealth(read: { ["todos": try Todo.count(in: $0)] }) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(String(buffer: response.body) == #"{"todos":1,"status":"ok"}"#)
        }
    }

    @Test func aClosedStackIs503ProblemDetails() async throws {
        try await withHealth(closingFirst: true, read: { ["todos": try Todo.count(in: $0)] }) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(response.headers[.retryAfter] == "5")
            let text = String(buffer: response.body)
            #expect(text.contains(ProblemDetails.StoreProblem.storeUnavailable), "\(text)")
            #expect(errorMessage(response) == "the store is closed")
        }
    }

    @Test func aFailingReadIs503() async throws {
        try await withHealth(read: { _ -> [String: Int] in throw Broken() }) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(errorMessage(response) == "the store cannot be read")
        }
    }

    @Test func detailsThatAreNoObjectOrTakeItsKeysGoUnderDetails() async throws {
        try await withHealth(read: { try Todo.count(in: $0) }) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(String(buffer: response.body) == #"{"details":1,"status":"ok"}"#)
        }
        try await withHealth(read: { _ in ["status": "mine"] }) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(String(buffer: response.body) == #"{"details":{"status":"mine"},"status":"ok"}"#)
        }
    }

    @Test func headIsServedToo() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let health = HealthCheck(stack: stack) { _ in [String: Int]() }
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.get("/health") { request, context in try await health.response(from: request, context: context) }
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/health", method: .head)
            #expect(response.status == .ok)
            #expect(try await health.report() == #"{"status":"ok"}"#)
        }
    }
}
