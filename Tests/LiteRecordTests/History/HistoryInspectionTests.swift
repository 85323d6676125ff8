import Foundation
import Testing
import LiteRecord

/// `StoreInspection` and `literecord inspect` report a store's history, and
/// take its table for the store's own, not one the model lacks.
@Suite struct HistoryInspectionTests {
    @Test func theReportSummarisesTheHistory() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("h.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let context = stack.newContext()
        for index in 0..<3 {
            context.insert(Memo(serverID: "\(index)", title: ""))
            try context.save()
        }
        let tokens = try stack.fetchHistory(after: nil).map(\.token)
        try stack.deleteHistory(before: tokens[1])
        try stack.close()

        let report = try StoreInspection(storeAt: url)
        #expect(report.schemaDifferences.isEmpty, "the history table is the store's own")
        #expect(!report.tables.contains { $0.name == StoreFormatNames.historyTable })
        let history = try #require(report.history)
        #expect(history.transactionCount == 2)
        #expect(history.oldest == tokens[1] && history.newest == tokens[2])
        #expect(history.purgedThrough == tokens[0])
        #expect(history.changeBytes > 0)

        let text = try await Reliability.run(Reliability.binary(), ["inspect", url.path])
        #expect(text.standardOutput.contains("history:      2 transactions (tokens \(tokens[1]) … \(tokens[2]); deleted through \(tokens[0]);"))
        let json = try await Reliability.run(Reliability.binary(), ["inspect", url.path, "--json"]).standardOutput
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let facts = try #require(object["history"] as? [String: Any])
        #expect(facts["transactions"] as? Int == 2)
        #expect(facts["newestToken"] as? String == tokens[2].description)
        #expect(facts["purgedThrough"] as? String == tokens[0].description)
    }

    @Test func aStoreWithoutHistoryReportsNone() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("plain.sqlite")
        try RecordStack(storeAt: url, entities: [Memo.self]).close()
        #expect(try StoreInspection(storeAt: url).history == nil)
        let json = try await Reliability.run(Reliability.binary(), ["inspect", url.path, "--json"]).standardOutput
        #expect(json.contains("\"history\" : null"))
    }
}
