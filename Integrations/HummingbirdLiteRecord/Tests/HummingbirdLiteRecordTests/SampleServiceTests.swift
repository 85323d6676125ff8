import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// A small service built from the integration alone, the pieces a second
/// service would otherwise copy from Examples/Bookmarks: a tagged read, a
/// write that finds its object and checks its preconditions inside the
/// transaction, and a replica's redirect of writes.
@Suite struct SampleServiceTests {
    struct TodoOutput: ResponseEncodable, Sendable {
        var title: String
        var done: Bool
    }

    func withService(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let stack = try RecordStack(inMemoryWith: [Todo.self])
        try await stack.write { context in
            let todo = Todo()
            context.insert(todo)
            todo.title = "Write the docs"
        }
        let options: RouterOptions = [.autoGenerateHeadEndpoints]
        let router = Router(options: options)
        router.add(middleware: StoreErrorMiddleware())
        router.get("/todos/:id") { request, context -> Response in
            let id = try context.parameters.require("id", as: Int64.self)
            let (output, tag) = try await stack.read { store in
                guard let todo = try Todo.find(rowID: id, in: store), let tag = EntityTag(for: todo) else {
                    throw HTTPError(.notFound, message: "no todo \(id)")
                }
                return (TodoOutput(title: todo.title, done: todo.done), tag)
            }
            return try request.taggedResponse(output, tag: tag, context: context)
        }
        router.patch("/todos/:id") { request, context -> HTTPResponse.Status in
            let id = try context.parameters.require("id", as: Int64.self)
            let preconditions = try Preconditions(request)
            try preconditions.requireIfMatch()
            try await stack.write { store in
                let todo = try preconditions.existing(Todo.self, rowID: id, in: store)
                todo.done = true
            }
            return .noContent
        }
        router.add(middleware: UnmatchedRouteMiddleware(router: router, options: options))
        try await Application(router: router).test(.router, body)
        try stack.close()
    }

    @Test func aTaggedReadAndAConditionalWrite() async throws {
        try await withService { client in
            let read = try await client.execute(uri: "/todos/1", method: .get)
            #expect(read.status == .ok)
            let tag = try #require(read.headers[.eTag])
            #expect(tag == #""1.2""#)
            #expect(String(buffer: read.body).contains("Write the docs"))
            #expect(try await client.execute(uri: "/todos/1", method: .get, headers: [.ifNoneMatch: tag]).status == .notModified)
            #expect(try await client.execute(uri: "/todos/1", method: .head).status == .ok)
            #expect(try await client.execute(uri: "/todos/1", method: .patch).status == .preconditionRequired)
            #expect(try await client.execute(uri: "/todos/1", method: .patch, headers: [.ifMatch: #""1.1""#]).status == .preconditionFailed)
            let missing = try await client.execute(uri: "/todos/9", method: .patch, headers: [.ifMatch: "*"])
            #expect(missing.status == .notFound)
            #expect(String(buffer: missing.body).contains("no Todo 9"))
            #expect(try await client.execute(uri: "/todos/1", method: .patch, headers: [.ifMatch: tag]).status == .noContent)
            let after = try await client.execute(uri: "/todos/1", method: .get)
            #expect(after.headers[.eTag] == #""1.3""#)
        }
    }

    @Test func aReplicaRedirectsWritesKeepingTheMethodOr421() async throws {
        for primary in [URL(string: "http://127.0.0.1:8080/"), nil] {
            let router = Router()
            router.add(middleware: StoreErrorMiddleware())
            router.add(middleware: ReadReplicaMiddleware(primary: primary))
            router.get("/todos") { _, _ in "[]" }
            router.post("/todos") { _, _ in HTTPResponse.Status.created }
            try await Application(router: router).test(.router) { client in
                let write = try await client.execute(uri: "/todos?x=1", method: .post)
                if primary != nil {
                    #expect(write.status == .temporaryRedirect)
                    #expect(write.headers[.location] == "http://127.0.0.1:8080/todos?x=1")
                } else {
                    #expect(write.status == .misdirectedRequest)
                }
                #expect(try await client.execute(uri: "/todos", method: .get).status == .ok)
            }
        }
    }
}

/// A request's writes are recorded under the author its middleware chose,
/// without a line in each write.
@Suite struct TransactionAuthorTests {
    @Test func theMiddlewaresAuthorIsRecordedInTheHistory() async throws {
        let stack = try RecordStack(inMemoryWith: [Todo.self], history: .enabled)
        let router = Router()
        router.add(middleware: StoreErrorMiddleware())
        router.add(middleware: TransactionAuthorMiddleware { request, _ in request.headers[.userAgent] ?? "anonymous" })
        router.post("/todos/:title") { _, context -> HTTPResponse.Status in
            let title = try context.parameters.require("title")
            try await stack.authoredWrite { store in
                let todo = Todo()
                store.insert(todo)
                todo.title = title
            }
            return .created
        }
        try await Application(router: router).test(.router) { client in
            let named = try await client.execute(uri: "/todos/a", method: .post, headers: [.userAgent: "ann"])
            #expect(named.status == .created)
            let anonymous = try await client.execute(uri: "/todos/b", method: .post)
            #expect(anonymous.status == .created)
        }
        // Outside a request: no author.
        try await stack.authoredWrite { store in store.insert(Todo()) }
        let authors = try stack.fetchHistory(after: nil).map(\.author)
        #expect(authors == ["ann", "anonymous", nil])
        try stack.close()
    }
}
