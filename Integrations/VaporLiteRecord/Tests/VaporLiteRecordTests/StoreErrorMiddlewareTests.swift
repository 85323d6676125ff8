import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// Every error a route throws answered as problem details with the status it
/// means; a 500 tells the client nothing of paths or SQL, only the request id.
@Suite(.timeLimit(.minutes(1))) struct StoreErrorMiddlewareTests {
    struct Boom: Error, CustomStringConvertible { var description: String { "boom at /secret/path" } }

    func withRoutes(_ body: (any TestingApplicationTester) async throws -> Void) async throws {
        let stack = try RecordStack(inMemoryWith: [Product.self])
        try await withApp(configure: { app in
            app.liteRecord.use(stack)
            app.middleware.use(StoreErrorMiddleware())
            app.put("conflict") { req async throws -> HTTPStatus in
                // Two contexts edit one row; the second save meets a conflict.
                let stack = try req.liteRecord.stack
                try await stack.write { store in
                    let product = Product()
                    store.insert(product)
                    product.sku = "shared"
                }
                let first = stack.newContext()
                let second = stack.newContext()
                let mine = try Product.findFirst(byAttribute: "sku", withValue: "shared", in: first)
                let theirs = try Product.findFirst(byAttribute: "sku", withValue: "shared", in: second)
                theirs?.quantity = 1
                try second.save()
                mine?.quantity = 2
                try first.save()
                return .ok
            }
            app.get("closed") { _ async throws -> String in
                let closed = try RecordStack(inMemoryWith: [Product.self])
                try closed.close()
                return try await closed.read { try Product.count(in: $0) }.description
            }
            app.get("expired") { _ async throws -> HTTPStatus in
                // A token of another store's history: as expired as an old one.
                let other = try RecordStack(inMemoryWith: [Product.self], history: .enabled)
                defer { try? other.close() }
                guard let token = HistoryToken("1-abc") else { return .ok }
                _ = try other.fetchHistory(after: token)
                return .ok
            }
            app.get("abort") { _ async throws -> String in throw Abort(.gone, reason: "moved away for good") }
            app.get("boom") { _ async throws -> String in throw Boom() }
            app.get("not-modified") { _ async throws -> String in throw Abort(.notModified) }
        }) { app in
            try await body(try app.testing())
        }
    }

    @Test func anOptimisticLockingConflictIs412() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.PUT, "/conflict")
            #expect(answer.status == .preconditionFailed)
            #expect(try Problem(answer).type == StoreProblem.conflict)
        }
    }

    @Test func aClosedStoreIs503WithRetryAfter() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.GET, "/closed")
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.headers.first(name: "Retry-After") == "1")
            #expect(try Problem(answer).type == StoreProblem.storeUnavailable)
        }
    }

    @Test func anExpiredHistoryTokenIs410() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.GET, "/expired")
            #expect(answer.status == .gone)
            #expect(try Problem(answer).type == StoreProblem.historyExpired)
        }
    }

    @Test func anAbortKeepsItsStatusAndReason() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.GET, "/abort")
            #expect(answer.status == .gone)
            let problem = try Problem(answer)
            #expect(problem.type == "about:blank")
            #expect(problem.title == "Gone")
            #expect(problem.detail == "moved away for good")
            #expect(problem.error.message == "moved away for good")
            let notModified = try await client.send(.GET, "/not-modified")
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)
        }
    }

    @Test func aPathNoRouteTakesIs404ProblemDetails() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.GET, "/nowhere")
            #expect(answer.status == .notFound)
            #expect(try Problem(answer).status == 404)
        }
    }

    @Test func anyOtherErrorIs500QuotingTheRequestIdOnly() async throws {
        try await withRoutes { client in
            let answer = try await client.send(.GET, "/boom", headers: ["X-Request-Id": "req-42"])
            #expect(answer.status == .internalServerError)
            let problem = try Problem(answer)
            #expect(problem.detail == "the server could not answer this request (request id req-42)")
            #expect(!answer.text.contains("secret"))
        }
    }
}
