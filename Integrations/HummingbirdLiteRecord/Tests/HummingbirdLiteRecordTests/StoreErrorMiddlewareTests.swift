import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// Store errors answered with the status they mean, every error with the
/// same JSON body, 405 with `Allow`, and a 500 that logs the library's
/// message and tells the client nothing of paths or SQL.
@Suite struct StoreErrorMiddlewareTests {
    struct Boom: Error, CustomStringConvertible { var description: String { "boom at /secret/path" } }

    /// A router over a fresh store with routes that fail in each way, and a
    /// second stack that stays open to make conflicts.
    func withRouter(
        _ body: @Sendable (any TestClientProtocol, RecordStack, CapturedLog) async throws -> Void
    ) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        let closed = try RecordStack(storeAt: temporary.folder.appendingPathComponent("Closed.sqlite"), entities: [Todo.self],
                                     migration: .automatic)
        try closed.close()
        let log = CapturedLog()
        let router = Router()
        router.add(middleware: StoreErrorMiddleware<BasicRequestContext>())
        router.post("/todos/:title") { _, context in
            let title = context.parameters.get("title") ?? ""
            try await stack.write { context in
                let todo = Todo()
                context.insert(todo)
                todo.title = title
            }
            return HTTPResponse.Status.created
        }
        router.put("/conflict") { _, _ in
            // Two contexts edit one row; the second save meets a conflict.
            try await stack.write { context in
                let todo = Todo()
                context.insert(todo)
                todo.title = "shared"
            }
            let first = stack.newContext()
            let second = stack.newContext()
            let mine = try #require(try Todo.findFirst(byAttribute: "title", withValue: "shared", in: first))
            let theirs = try #require(try Todo.findFirst(byAttribute: "title", withValue: "shared", in: second))
            theirs.done = true
            try second.save()
            mine.title = "mine"
            try first.save()
            return HTTPResponse.Status.ok
        }
        router.get("/expired") { _, _ in
            // A token of another store's history: as expired as an old one.
            let other = try RecordStack(inMemoryWith: [Todo.self], history: .enabled)
            let token = try #require(HistoryToken("1-abc"))
            _ = try other.fetchHistory(after: token)
            return HTTPResponse.Status.ok
        }
        router.get("/closed") { _, _ in
            _ = try await closed.read { context in try Todo.count(in: context) }
            return HTTPResponse.Status.ok
        }
        router.get("/unknown-attribute") { _, _ in
            _ = try await stack.read { context in try Todo.findFirst(byAttribute: "secretColumn", withValue: 1, in: context) != nil }
            return HTTPResponse.Status.ok
        }
        router.get("/boom") { _, _ -> HTTPResponse.Status in throw Boom() }
        router.get("/missing/:id") { _, _ -> HTTPResponse.Status in throw HTTPError(.notFound) }
        router.get("/todos") { _, _ in "[]" }
        router.add(middleware: UnmatchedRouteMiddleware(router: router))
        let app = Application(router: router, logger: log.logger())
        do {
            try await app.test(.router) { client in try await body(client, stack, log) }
        } catch {
            try? stack.close()
            throw error
        }
        try stack.close()
    }

    @Test func uniqueConstraintIs409NamingTheAttribute() async throws {
        try await withRouter { client, _, _ in
            #expect(try await client.execute(uri: "/todos/a", method: .post).status == .created)
            let again = try await client.execute(uri: "/todos/a", method: .post)
            #expect(again.status == .conflict)
            let message = try #require(errorMessage(again))
            #expect(message.contains("unique"))
            // The attribute, so the client knows which value to change.
            #expect(message.contains("Todo.title"), "\(message)")
            // RFC 9457 problem details with a type a program can match.
            #expect(again.headers[.contentType] == "application/problem+json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(again.body.readableBytesView)) as? [String: Any])
            #expect(object["type"] as? String == ProblemDetails.StoreProblem.uniqueViolation)
            #expect(object["status"] as? Int == 409)
            #expect(object["detail"] as? String == message)
            // Nothing of the file, the value or the SQL reaches the client.
            for secret in [".sqlite", "INSERT", "UNIQUE constraint", "'a'"] {
                #expect(!message.contains(secret), "\(message)")
            }
        }
    }

    @Test func optimisticLockingConflictIs412() async throws {
        try await withRouter { client, _, _ in
            let response = try await client.execute(uri: "/conflict", method: .put)
            #expect(response.status == .preconditionFailed, "\(String(buffer: response.body))")
            let message = try #require(errorMessage(response))
            #expect(!message.contains("Z_OPT") && !message.contains("refresh"), "\(message)")
        }
    }

    @Test func anExpiredHistoryTokenIs410() async throws {
        try await withRouter { client, _, _ in
            let response = try await client.execute(uri: "/expired", method: .get)
            #expect(response.status == .gone, "\(String(buffer: response.body))")
            let message = try #require(errorMessage(response))
            #expect(message.contains("read the records again"), "\(message)")
        }
    }

    @Test func closedStoreIs503WithRetryAfterAndNoPath() async throws {
        try await withRouter { client, _, _ in
            let response = try await client.execute(uri: "/closed", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "1")
            let message = try #require(errorMessage(response))
            #expect(!message.contains("Closed.sqlite"), "\(message)")
        }
    }

    @Test func otherStoreErrorsAre500GenericToTheClientAndLoggedWhole() async throws {
        try await withRouter { client, _, log in
            let response = try await client.execute(uri: "/unknown-attribute", method: .get)
            #expect(response.status == .internalServerError)
            let message = try #require(errorMessage(response))
            #expect(!message.contains("secretColumn"), "\(message)")
            #expect(message.contains("request id"))
            #expect(log.text.contains("secretColumn"), "\(log.text)")

            let boom = try await client.execute(uri: "/boom", method: .get)
            #expect(boom.status == .internalServerError)
            #expect(errorMessage(boom).map { !$0.contains("/secret/path") } == true)
            #expect(log.text.contains("/secret/path"))
        }
    }

    @Test func wrongMethodIs405WithAllowAndUnknownRouteIs404WithTheSameBody() async throws {
        try await withRouter { client, _, _ in
            let wrong = try await client.execute(uri: "/todos", method: .delete)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "GET")
            #expect(errorMessage(wrong)?.contains("DELETE") == true)
            let withParameter = try await client.execute(uri: "/todos/x", method: .get)
            #expect(withParameter.status == .methodNotAllowed)
            #expect(withParameter.headers[.allow] == "POST")
            // A route's own bare 404 (no such record) stays a 404.
            let missing = try await client.execute(uri: "/missing/7", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.allow] == nil)
            let unknown = try await client.execute(uri: "/nothing/here", method: .get)
            #expect(unknown.status == .notFound)
            #expect(errorMessage(unknown)?.contains("/nothing/here") == true)
        }
    }
}
