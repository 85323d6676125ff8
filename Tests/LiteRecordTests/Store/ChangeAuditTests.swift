import Foundation
import Testing
@testable import LiteRecord

/// Every kind of write the library makes, with the change audit on
/// (``ChangeAudit``): each commit's change set — what subscribers,
/// observers, merges and the persistent history receive — must be exactly
/// the rows SQLite changed. `make test` runs every test with the audit on
/// (`LITERECORD_AUDIT_CHANGES=1`); this suite turns it on for its own
/// stores, so that it finds a write path that forgets its rows whatever the
/// environment.
@Suite struct ChangeAuditTests {
    @Test func everyKindOfWriteReportsExactlyWhatItChanged() async throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self] + relationshipEntities, history: .enabled)
        stack.store.startAuditingChanges()
        let context = stack.newContext()
        // Inserts, updates, deletes.
        let memos = (0..<6).map { Memo(serverID: "s\($0)", title: "t\($0)", stars: $0) }
        for memo in memos { context.insert(memo) }
        try context.save()
        memos[0].stars = 10
        try memos[1].delete(in: context)
        try context.save()
        // Relationships: to-ones, many-to-many links, cascades, nullify.
        let author = RAuthor("A")
        let books = (0..<3).map { RBook("B\($0)") }
        let tag = RTag("t")
        context.insert(author)
        context.insert(tag)
        for book in books {
            book.author = author
            book.tags = [tag]
        }
        try context.save()
        books[0].tags = []
        try context.save()
        try books[1].delete(in: context)
        try context.save()
        try author.delete(in: context)
        try context.save()
        // Set-based deletes, with and without relationships; findOrCreate.
        _ = try Memo.deleteAll(matching: #Predicate<Memo> { $0.stars >= 4 }, in: context)
        _ = try RTag.truncateAll(in: context)
        _ = try Memo.findFirstOrCreate(byAttribute: "serverID", withValue: "new", in: context)
        // A write, and a child context's push then save.
        try await stack.write { writer in
            writer.insert(Memo(serverID: "w", title: "w"))
            try writer.save()
            let first = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s2", in: writer))
            first.title = "changed in a write"
        }
        let child = context.makeChildContext()
        child.insert(Memo(serverID: "c", title: "child"))
        try child.save()
        try context.save()
        // Conflicts resolved by each policy, and a deletion another context beat.
        for policy in [MergePolicy.objectTrumps, .storeTrumps] {
            let mine = stack.newContext()
            mine.mergePolicy = policy
            let theirs = stack.newContext()
            let a = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s3", in: mine))
            let b = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s3", in: theirs))
            b.stars += 1
            try theirs.save()
            a.title = "mine \(policy)"
            try mine.save()
        }
        let one = stack.newContext()
        let two = stack.newContext()
        let early = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s2", in: one))
        let late = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s2", in: two))
        try early.delete(in: one)
        try one.save()
        try late.delete(in: two)
        try two.save()  // found gone: forgotten, but not this commit's deletion
        #expect(late.context == nil)
        let last = try #require(try stack.fetchHistory(after: nil).last)
        #expect(last.changes.map(\.kind) == [.delete], "only the first deletion is in the history")
        try stack.close()
    }

    @Test func aWriteThatHidesItsRowsFailsItsCommit() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self])
        stack.store.startAuditingChanges()
        let context = stack.newContext()
        context.insert(Memo(serverID: "x", title: ""))
        try context.save()
        // Library code that changed rows without noting them would fail like this.
        let error = #expect(throws: LiteRecordError.self) {
            try stack.store.write("an unnoted update") { try $0.execute("UPDATE Memo SET stars = 1") }
        }
        #expect(error?.message.contains("change audit") == true)
        #expect(try Memo.findFirst(byAttribute: "serverID", withValue: "x", in: stack.newContext())?.stars == 0, "nothing was committed")
    }
}
