import Foundation
import Testing
import LiteRecord

/// History is the file's: a stack opened `.disabled` turns it off at open,
/// but once another stack enables it again, the first one's commits are
/// recorded too, so a reader following tokens never skips them.
@Suite struct HistoryDisabledWriterTests {
    @Test func aStackOpenedDisabledRecordsOnceAnotherEnablesHistory() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("memos.sqlite")
        let quiet = try RecordStack(storeAt: url, entities: [Memo.self], history: .disabled)
        defer { try? quiet.close() }
        let recording = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        defer { try? recording.close() }

        let mine = recording.newContext()
        mine.insert(Memo(serverID: "1", title: "from the recording stack"))
        try mine.save()
        let theirs = quiet.newContext()
        theirs.insert(Memo(serverID: "2", title: "from the stack opened disabled"))
        try theirs.save()

        let transactions = try recording.fetchHistory(after: nil)
        #expect(transactions.count == 2, "the disabled stack's commit is in the history")
        #expect(transactions.last?.changes.count == 1)
    }
}
