import Foundation
import Testing
import LiteRecord

/// A transaction names what its commit wrote: the attributes a
/// `.storeTrumps` resolution left to the save, and the author set partway
/// through a `write {}`.
@Suite struct HistoryWrittenNamesTests {
    /// The store wins `title` (changed elsewhere since the read): the save
    /// writes only `stars`, and its transaction names only `stars`. Before,
    /// it named `title` too, from the plan.
    @Test func aStoreTrumpsResolutionNamesOnlyWhatItWrote() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        defer { try? stack.close() }
        let seed = stack.newContext()
        seed.insert(Memo(serverID: "1", title: "first"))
        try seed.save()

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let memo = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "1", in: context))
        let other = stack.newContext()
        let elsewhere = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "1", in: other))
        elsewhere.title = "theirs"
        try other.save()

        memo.title = "mine"
        memo.stars = 5
        try context.save()
        let last = try #require(try stack.fetchHistory(after: nil).last)
        #expect(last.changes.map(\.updatedAttributes) == [["stars"]])
        let stored = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "1", in: stack.newContext()))
        #expect(stored.title == "theirs" && stored.stars == 5)
    }

    /// An author set after the write's first save (whose context had a
    /// name) names the transaction. Before, the first save's missing author
    /// was taken.
    @Test func anAuthorSetPartwayThroughAWriteNamesItsTransaction() async throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        defer { try? stack.close() }
        try await stack.write { context in
            context.name = "nightly"
            context.insert(Memo(serverID: "1", title: "one"))
            try context.save()
            context.transactionAuthor = "importer"
            context.insert(Memo(serverID: "2", title: "two"))
            try context.save()
        }
        let transactions = try stack.fetchHistory(after: nil)
        #expect(transactions.count == 1)
        #expect(transactions.first?.author == "importer")
        #expect(transactions.first?.contextName == "nightly")
    }
}
