import Foundation
import Testing
import LiteRecord

/// A token past the newest transaction the file recorded names none of its
/// transactions (the store was restored from an older copy, whose next
/// commits would take the token's numbers again): it is refused with
/// `.historyExpired` instead of answering nothing and later skipping
/// transactions.
@Suite struct HistoryTokenAheadTests {
    @Test func aTokenPastTheNewestTransactionHasExpired() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("memos.sqlite")
        let copy = folder.file("copy.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let context = stack.newContext()
        context.insert(Memo(serverID: "1", title: "first"))
        try context.save()
        try stack.backup(to: copy)
        for index in 2...3 {
            context.insert(Memo(serverID: "\(index)", title: "later"))
            try context.save()
        }
        let held = try #require(try stack.fetchHistory(after: nil).last?.token)
        try stack.close()

        let restored = try RecordStack(storeAt: copy, entities: [Memo.self], history: .enabled)
        defer { try? restored.close() }
        let error = expectError(.historyExpired) { _ = try restored.fetchHistory(after: held) }
        #expect(error?.message.contains("is not from") == true, "\(String(describing: error))")
        #expect(try restored.fetchHistory(after: nil).count == 1)
    }
}
