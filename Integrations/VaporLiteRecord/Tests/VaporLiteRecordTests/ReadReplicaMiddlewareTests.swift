import Foundation
import Synchronization
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// On a read replica, a write goes to the primary: 307 with `Location`
/// (method and body kept by a client that follows it), or 421 when the
/// primary is not known; never the 503 that invites retries here, as
/// HummingbirdLiteRecord's middleware answers.
@Suite(.timeLimit(.minutes(1))) struct ReadReplicaMiddlewareTests {
    /// A `things` service behind the middleware; `writes` counts the writes
    /// that reached a route.
    func withReplica(primary: URL?, _ body: (any TestingApplicationTester, WriteCount) async throws -> Void) async throws {
        let writes = WriteCount()
        try await withApp(configure: { app in
            app.middleware.use(StoreErrorMiddleware())
            app.middleware.use(UnmatchedRouteMiddleware())
            app.middleware.use(ReadReplicaMiddleware(primary: primary))
            app.get("things") { _ in "[]" }
            app.post("things") { req async throws -> HTTPStatus in
                writes.add()
                _ = try req.content.decode([String: String].self)
                return .created
            }
            app.delete("things", ":id") { _ async throws -> HTTPStatus in
                writes.add()
                return .noContent
            }
        }) { app in
            try await body(try app.testing(), writes)
        }
    }

    @Test func aWriteIsRedirectedWith307ToTheSamePathOnThePrimary() async throws {
        try await withReplica(primary: URL(string: "http://10.0.0.5:8080/")) { client, writes in
            let post = try await client.send(.POST, "/things?dry=1", json: #"{"name":"x"}"#)
            #expect(post.status == .temporaryRedirect)
            #expect(post.headers.first(name: .location) == "http://10.0.0.5:8080/things?dry=1")
            let problem = try Problem(post)
            #expect(problem.status == 307)
            #expect(problem.detail.contains("read replica"))
            let delete = try await client.send(.DELETE, "/things/7")
            #expect(delete.status == .temporaryRedirect)
            #expect(delete.headers.first(name: .location) == "http://10.0.0.5:8080/things/7")
            #expect(writes.value == 0)
            // Reads pass.
            let list = try await client.send(.GET, "/things")
            #expect(list.status == .ok)
            #expect(list.text == "[]")
        }
    }

    @Test func withoutAPrimaryAWriteIs421() async throws {
        try await withReplica(primary: nil) { client, writes in
            let post = try await client.send(.POST, "/things", json: "{}")
            #expect(post.status == .misdirectedRequest)
            #expect(post.headers.first(name: .location) == nil)
            #expect(try Problem(post).status == 421)
            #expect(writes.value == 0)
        }
    }

    @Test func aWriteNoRouteTakesIsStill404Or405() async throws {
        try await withReplica(primary: URL(string: "http://10.0.0.5:8080")) { client, _ in
            #expect(try await client.send(.POST, "/elsewhere", json: "{}").status == .notFound)
            let wrongMethod = try await client.send(.PUT, "/things", json: "{}")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers.first(name: .allow) == "GET, HEAD, POST")
        }
    }
}

/// A count shared with a route.
final class WriteCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
