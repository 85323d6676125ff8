import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import HummingbirdLiteRecordTesting
import Synchronization
import Testing

/// The testing helpers a service's tests use: a store
/// per test with history, reopened for a restart, and requests that really
/// overlap.
@Suite struct TestStoreTests {
    func router(_ stack: RecordStack) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/todos/:title") { _, context -> HTTPResponse.Status in
            let title = try context.parameters.require("title")
            try await stack.write { db in
                let todo = Todo()
                todo.title = title
                db.insert(todo)
            }
            return .created
        }
        router.get("/todos") { _, _ -> String in
            try await stack.read { db in try Todo.findAll(in: db).map(\.title).sorted().joined(separator: ",") }
        }
        return router
    }

    @Test func aStoreOutlivesARestartWithItsHistoryAndIsRemovedAfter() async throws {
        let folder = try await withTestStore(named: "Todos.sqlite") { store in
            let first = try store.open(entities: [Todo.self])
            try await Application(router: router(first)).test(.router) { client in
                let response = try await client.execute(uri: "/todos/kept", method: .post)
                #expect(response.status == .created)
            }
            try first.close()
            let second = try store.open(entities: [Todo.self])
            defer { try? second.close() }
            try await Application(router: router(second)).test(.router) { client in
                let response = try await client.execute(uri: "/todos", method: .get)
                #expect(String(buffer: response.body) == "kept")
            }
            #expect(try second.fetchHistory(after: nil).count == 1)
            #expect(store.url.lastPathComponent == "Todos.sqlite")
            return store.folder
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentRequestsOverlapThroughAHC() async throws {
        // A route that counts the requests inside it at once.
        let inside = Mutex((now: 0, most: 0))
        let router = Router()
        router.get("/slow") { _, _ -> HTTPResponse.Status in
            inside.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            try await Task.sleep(for: .milliseconds(200))
            inside.withLock { $0.now -= 1 }
            return .ok
        }
        try await Application(router: router).test(.ahc(.http)) { client in
            let answers = try await concurrently(4) { _ in try await client.execute(uri: "/slow", method: .get) }
            #expect(answers.count == 4)
            #expect(answers.allSatisfy { $0.status == .ok })
        }
        #expect(inside.withLock { $0.most } > 1, "the requests never overlapped")
    }
}
