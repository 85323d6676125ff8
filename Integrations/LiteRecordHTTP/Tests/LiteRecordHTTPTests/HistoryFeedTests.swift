import Foundation
import LiteRecord
import LiteRecordHTTP
import Testing

/// The history feed every integration serves: the query read from a query
/// string's values, and the 410's body with `next`.
@Suite struct HistoryFeedTests {
    func query(_ parameters: [String: [String]], maximumLimit: Int = 50) throws -> HistoryFeedQuery {
        try HistoryFeedQuery(values: { parameters[$0] ?? [] }, defaultLimit: 10, maximumLimit: maximumLimit)
    }

    @Test func readsSinceLatestAndLimit() throws {
        #expect(try query([:]) == HistoryFeedQuery(limit: 10))
        #expect(try query(["since": ["latest"]]) == HistoryFeedQuery(latest: true, limit: 10))
        let token = try #require(HistoryToken("42-9f2c61d0a4b8e7f1"))
        #expect(try query(["since": ["42-9f2c61d0a4b8e7f1"], "limit": ["50"]]) == HistoryFeedQuery(since: token, limit: 50))
        // An empty parameter is absent.
        #expect(try query(["since": [""], "limit": [""]]) == HistoryFeedQuery(limit: 10))
    }

    @Test func refusesWhatItCannotRead() {
        for parameters in [["since": ["nonsense"]], ["limit": ["0"]], ["limit": ["51"]], ["limit": ["x"]],
                           ["limit": ["5", "5"]], ["since": ["latest", "latest"]]] {
            let problem = #expect(throws: HTTPProblem.self, "\(parameters)") { try query(parameters) }
            #expect(problem?.status == 400)
        }
    }

    @Test func theGoneBodyCarriesNextNullIncluded() throws {
        let token = try #require(HistoryToken("9-9f2c61d0a4b8e7f1"))
        let body = String(decoding: try HistoryFeedGone(reason: "gone", next: token).json(), as: UTF8.self)
        #expect(body == #"{"detail":"gone","error":{"message":"gone"},"next":"9-9f2c61d0a4b8e7f1","status":410,"title":"Gone","type":"tag:literecord,2026:history-expired"}"#)
        let none = String(decoding: try HistoryFeedGone(reason: "gone", next: nil).json(), as: UTF8.self)
        #expect(none.contains(#""next":null"#))
    }

    @Test func aPageContinuesFromTheNewestTokenWhenNotFull() async throws {
        let stack = try RecordStack(inMemoryWith: [Item.self], history: .enabled)
        defer { try? stack.close() }
        for code in ["a", "b", "c"] {
            try await stack.write { store in
                let item = Item()
                store.insert(item)
                item.code = code
            }
        }
        let full = try await stack.historyFeed(HistoryFeedQuery(limit: 2))
        #expect(full.transactions.count == 2)
        #expect(full.next == full.transactions.last?.token)
        let rest = try await stack.historyFeed(HistoryFeedQuery(since: full.next, limit: 2))
        #expect(rest.transactions.count == 1)
        #expect(rest.next == (try stack.newestHistoryToken()))
    }
}
