import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// The history feed as a building block: `since`,
/// `latest`, `limit` and `next` read and computed once, and a 410 that
/// carries `next` through StoreErrorMiddleware.
@Suite struct HistoryFeedTests {
    struct Page: ResponseEncodable, Decodable {
        var next: String?
        var titles: [String]
    }

    struct Gone: Decodable {
        var next: String?
        var status: Int
        var type: String
        var detail: String
    }

    /// A `/changes` route over a store with history, and the stack.
    func withFeed(_ body: @Sendable (any TestClientProtocol, RecordStack) async throws -> Void) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try RecordStack(storeAt: temporary.url, entities: [Todo.self], migration: .automatic, history: .enabled)
        defer { try? stack.close() }
        let router = Router()
        router.add(middleware: StoreErrorMiddleware())
        router.get("/changes") { request, _ -> Page in
            let page = try await stack.historyFeed(try HistoryFeedQuery(parameters: request.uri.queryParameters, maximumLimit: 50),
                                                   matching: .entity(Todo.self))
            let titles = page.transactions.flatMap(\.changes).map { "\($0.kind)" }
            return Page(next: page.next.map { "\($0)" }, titles: titles)
        }
        try await Application(router: router).test(.router) { client in try await body(client, stack) }
    }

    func add(_ title: String, to stack: RecordStack) async throws {
        try await stack.write { db in
            let todo = Todo()
            todo.title = title
            db.insert(todo)
        }
    }

    func page(_ client: any TestClientProtocol, _ query: String) async throws -> Page {
        let response = try await client.execute(uri: "/changes\(query)", method: .get)
        #expect(response.status == .ok, "\(query): \(String(buffer: response.body))")
        return try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
    }

    @Test func pagesFollowNextAndLatestIsTheNewestToken() async throws {
        try await withFeed { client, stack in
            for title in ["a", "b", "c"] { try await add(title, to: stack) }
            let first = try await page(client, "?limit=2")
            #expect(first.titles.count == 2)
            let second = try await page(client, "?since=\(try #require(first.next))&limit=2")
            #expect(second.titles.count == 1)
            let newest = try #require(try stack.newestHistoryToken())
            #expect(second.next == "\(newest)")
            let latest = try await page(client, "?since=latest")
            #expect(latest.titles.isEmpty)
            #expect(latest.next == "\(newest)")
            // Nothing new: the same token back.
            #expect(try await page(client, "?since=\(newest)").next == "\(newest)")
        }
    }

    @Test func anExpiredTokenIs410WithTheNewestTokenAsNext() async throws {
        try await withFeed { client, stack in
            for title in ["a", "b", "c"] { try await add(title, to: stack) }
            let old = try #require(try await page(client, "?limit=1").next)
            let newest = try #require(try stack.newestHistoryToken())
            _ = try stack.deleteHistory(before: newest)
            let response = try await client.execute(uri: "/changes?since=\(old)", method: .get)
            #expect(response.status == .gone)
            #expect(response.headers[.contentType] == "application/problem+json")
            let gone = try JSONDecoder().decode(Gone.self, from: Data(response.body.readableBytesView))
            #expect(gone.next == "\(newest)", "\(String(buffer: response.body))")
            #expect(gone.status == 410)
            #expect(gone.type == ProblemDetails.StoreProblem.historyExpired)
            #expect(gone.detail.contains("no longer kept"))
        }
    }

    @Test func badParametersAre400() async throws {
        try await withFeed { client, _ in
            // A parameter sent twice has no one value.
            for query in ["?since=nonsense", "?limit=0", "?limit=51", "?limit=x", "?limit=5&limit=5", "?since=latest&since=latest"] {
                let response = try await client.execute(uri: "/changes\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
            }
        }
    }
}
