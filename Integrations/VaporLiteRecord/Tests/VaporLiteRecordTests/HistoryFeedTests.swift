import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// A changes feed route from the integration alone: `since`, `latest`,
/// `limit` and `next` read and computed as HummingbirdLiteRecord does (both
/// are LiteRecordHTTP's), and a 410 that carries `next`.
@Suite(.timeLimit(.minutes(1))) struct HistoryFeedTests {
    struct Page: Content {
        var next: String?
        var count: Int
    }

    struct Gone: Decodable {
        var next: String?
        var status: Int
        var type: String
        var detail: String
    }

    /// `GET /changes` over an in-memory store that keeps its history.
    func withFeed(_ body: (any TestingApplicationTester, RecordStack) async throws -> Void) async throws {
        let stack = try RecordStack(inMemoryWith: [Product.self], history: .enabled)
        try await withApp(configure: { app in
            app.liteRecord.use(stack)
            app.middleware.use(StoreErrorMiddleware())
            app.get("changes") { req async throws -> Page in
                let page = try await req.liteRecord.stack.historyFeed(try HistoryFeedQuery(req, maximumLimit: 50),
                                                                      matching: .entity(Product.self))
                return Page(next: page.next.map { "\($0)" }, count: page.transactions.count)
            }
        }) { app in
            try await body(try app.testing(), stack)
        }
    }

    func add(_ sku: String, to stack: RecordStack) async throws {
        try await stack.write { store in
            let product = Product()
            store.insert(product)
            product.sku = sku
        }
    }

    func page(_ client: any TestingApplicationTester, _ query: String) async throws -> Page {
        let response = try await client.send(.GET, "/changes\(query)")
        #expect(response.status == .ok, "\(query): \(response.text)")
        return try JSONDecoder().decode(Page.self, from: Data(response.body.readableBytesView))
    }

    @Test func pagesFollowNextAndLatestIsTheNewestToken() async throws {
        try await withFeed { client, stack in
            for sku in ["a", "b", "c"] { try await add(sku, to: stack) }
            let first = try await page(client, "?limit=2")
            #expect(first.count == 2)
            let second = try await page(client, "?since=\(try #require(first.next))&limit=2")
            #expect(second.count == 1)
            let newest = try #require(try stack.newestHistoryToken())
            #expect(second.next == "\(newest)")
            let latest = try await page(client, "?since=latest")
            #expect(latest.count == 0)
            #expect(latest.next == "\(newest)")
            // Nothing new: the same token back; an empty parameter is absent.
            #expect(try await page(client, "?since=\(newest)").next == "\(newest)")
            #expect(try await page(client, "?since=&limit=").count == 3)
        }
    }

    @Test func anExpiredTokenIs410WithTheNewestTokenAsNext() async throws {
        try await withFeed { client, stack in
            for sku in ["a", "b", "c"] { try await add(sku, to: stack) }
            let old = try #require(try await page(client, "?limit=1").next)
            let newest = try #require(try stack.newestHistoryToken())
            _ = try stack.deleteHistory(before: newest)
            let response = try await client.send(.GET, "/changes?since=\(old)")
            #expect(response.status == .gone)
            #expect(response.headers.first(name: .contentType) == "application/problem+json")
            let gone = try JSONDecoder().decode(Gone.self, from: Data(response.body.readableBytesView))
            #expect(gone.next == "\(newest)", "\(response.text)")
            #expect(gone.status == 410)
            #expect(gone.type == StoreProblem.historyExpired)
            #expect(gone.detail.contains("no longer kept"))
        }
    }

    @Test func badParametersAre400() async throws {
        try await withFeed { client, _ in
            // A parameter sent twice has no one value.
            for query in ["?since=nonsense", "?limit=0", "?limit=51", "?limit=x", "?limit=5&limit=5", "?since=latest&since=latest"] {
                let response = try await client.send(.GET, "/changes\(query)")
                #expect(response.status == .badRequest, "\(query)")
                #expect(try Problem(response).status == 400, "\(query)")
            }
        }
    }
}
