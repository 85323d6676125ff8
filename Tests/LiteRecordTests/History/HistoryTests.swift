import Foundation
import Testing
@testable import LiteRecord

/// Persistent history (Docs/History.md): one transaction per commit that changes
/// rows, written in that commit, read back by token.
@Suite struct HistoryTests {
    /// Tests that see the library only through its public API spell the
    /// history table by `StoreFormatNames`: it must stay the store's own name.
    @Test func testsSpellTheHistoryTableAsTheStoreNamesIt() {
        #expect(StoreFormatNames.historyTable == HistoryLog.table)
    }

    @Test func eachSaveIsOneTransactionWithItsChanges() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        #expect(stack.recordsHistory)
        let context = stack.newContext()
        context.transactionAuthor = "app"
        context.name = "editor"
        let a = Memo(serverID: "s1", title: "One")
        let b = Memo(serverID: "s2", title: "Two")
        context.insert(a)
        context.insert(b)
        try context.save()
        let ids = [try #require(a.recordID), try #require(b.recordID)] as [RecordID]
        a.stars = 5
        a.body = "text"
        try context.save()
        try b.delete(in: context)
        try context.save()
        try context.save()  // nothing to write: no transaction

        let history = try stack.fetchHistory(after: nil)
        #expect(history.count == 3)
        #expect(history.map(\.token.transactionNumber) == [1, 2, 3])
        #expect(history.allSatisfy { $0.author == "app" && $0.contextName == "editor" })
        #expect(history[0].changes.map(\.kind) == [.insert, .insert])
        #expect(history[0].changes.map(\.recordID) == ids)
        #expect(history[1].changes == [HistoryChange(recordID: ids[0], kind: .update, updatedAttributes: ["body", "stars"], tombstone: [:])])
        #expect(history[2].changes == [HistoryChange(recordID: ids[1], kind: .delete, updatedAttributes: [], tombstone: ["serverID": .text("s2"), "title": .text("Two")])])
        #expect(try stack.fetchHistory(after: history[1].token).map(\.token) == [history[2].token])
        #expect(try stack.fetchHistory(after: history[2].token).isEmpty)
        #expect(try stack.newestHistoryToken() == history[2].token)
    }

    @Test func aFailedSaveLeavesNoTransaction() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let context = stack.newContext()
        let memo = Memo(serverID: "s", title: "t")
        context.insert(memo)
        try context.save()
        let other = stack.newContext()
        let stale = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "s", in: other))
        memo.stars = 1
        try context.save()
        stale.stars = 2
        #expect(throws: LiteRecordError.self) { try other.save() }  // a conflict: nothing written
        #expect(try stack.fetchHistory(after: nil).count == 2)
    }

    @Test func aWriteIsOneTransactionOfItsNetChanges() async throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        try await stack.write { context in
            context.transactionAuthor = "importer"
            let kept = Memo(serverID: "k", title: "kept")
            let gone = Memo(serverID: "g", title: "gone")
            context.insert(kept)
            context.insert(gone)
            try context.save()
            kept.stars = 3  // inserted then updated: an insert
            try gone.delete(in: context)  // inserted then deleted: nothing
        }
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await stack.write { context in
                context.insert(Memo(serverID: "x", title: "rolled back"))
                try context.save()
                throw Boom()
            }
        }
        let history = try stack.fetchHistory(after: nil)
        #expect(history.count == 1)
        #expect(history[0].author == "importer")
        #expect(history[0].changes.map(\.kind) == [.insert])
    }

    /// The tombstone triggers keep values in the order rows were deleted,
    /// which is not always the order of the transaction's net changes (an
    /// update netted with a later delete keeps the update's place): each
    /// delete must still get its own row's values.
    @Test func tombstonesFollowTheirRecordsWhateverOrderTheyWereDeletedIn() async throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let context = stack.newContext()
        let memos = (0..<20).map { Memo(serverID: "s\($0)", title: "t\($0)", stars: $0) }
        for memo in memos { context.insert(memo) }
        try context.save()
        var expected: [RecordID: [String: SQLValue]] = [:]
        for memo in memos {
            expected[try #require(memo.recordID)] = ["serverID": .text(memo.serverID), "title": .text(memo.title)]
        }
        try await stack.write { context in
            let objects = try Memo.findAll(sortedBy: [SortDescriptor(\Memo.stars)], in: context)
            for index in [3, 7, 12] { objects[index].stars += 100 }
            try context.save()
            for object in objects[0..<10].shuffled() {
                try object.delete(in: context)
                try context.save()
            }
            try Memo.deleteAll(matching: #Predicate<Memo> { $0.stars >= 15 }, in: context)
        }
        let last = try #require(try stack.fetchHistory(after: nil).last)
        #expect(last.changes.filter { $0.kind == .delete }.count == 16)  // 0–9, 12 (now 112 stars), 15–19
        for change in last.changes where change.kind == .delete {
            #expect(change.tombstone == expected[change.recordID], "\(change.recordID)")
        }
    }

    /// An import is recorded as what its save wrote: new records as inserts,
    /// records matched by their unique key as updates naming what changed.
    @Test func anImportIsRecordedAsItsSave() throws {
        let stack = try RecordStack(inMemoryWith: [HistoryContact.self], history: .enabled)
        let context = stack.newContext()
        context.transactionAuthor = "sync"
        _ = try HistoryContact.importObjects(from: Data(#"[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}]"#.utf8), in: context)
        try context.save()
        _ = try HistoryContact.importObjects(from: Data(#"[{"id": 1, "name": "Anne"}, {"id": 2, "name": "Bo"}]"#.utf8), in: context)
        try context.save()
        let history = try stack.fetchHistory(after: nil)
        #expect(history.count == 2)
        #expect(history.allSatisfy { $0.author == "sync" })
        #expect(history[0].changes.map(\.kind) == [.insert, .insert])
        #expect(history[1].changes.map(\.kind) == [.update], "the unchanged contact is not listed")
        #expect(history[1].changes.first?.updatedAttributes == ["name"])
    }

    @Test func setBasedDeletesKeepTombstones() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let context = stack.newContext()
        for index in 0..<4 { context.insert(Memo(serverID: "s\(index)", title: "t\(index)", stars: index)) }
        try context.save()
        let removed = try Memo.deleteAll(matching: #Predicate<Memo> { $0.stars >= 2 }, in: context)
        #expect(removed == 2)
        let last = try #require(try stack.fetchHistory(after: nil).last)
        #expect(last.changes.map(\.kind) == [.delete, .delete])
        #expect(Set(last.changes.compactMap { $0.tombstone["serverID"] }) == [.text("s2"), .text("s3")])
        #expect(last.changes.allSatisfy { $0.tombstone["stars"] == nil }, "only preserved attributes are kept")
        try Memo.truncateAll(in: context)
        #expect(try stack.fetchHistory(after: last.token).first?.changes.count == 2)
    }

    @Test func relationshipChangesNameTheRelationship() throws {
        let stack = try RecordStack(inMemoryWith: relationshipEntities, history: .enabled)
        let context = stack.newContext()
        let author = RAuthor("Ann")
        let book = RBook("B")
        let tag = RTag("t")
        context.insert(author)
        context.insert(book)
        context.insert(tag)
        try context.save()
        book.author = author
        book.tags = [tag]
        try context.save()
        let last = try #require(try stack.fetchHistory(after: nil).last)
        let byID = Dictionary(uniqueKeysWithValues: last.changes.map { ($0.recordID, $0) })
        let bookID = try #require(book.recordID)
        let tagID = try #require(tag.recordID)
        let bookChange = try #require(byID[bookID])
        #expect(bookChange.kind == .update)
        #expect(bookChange.updatedAttributes == ["author", "tags"])
        #expect(byID[tagID]?.updatedAttributes == ["books"])
        // Deleting the author cascades to the book, in the same transaction.
        try author.delete(in: context)
        try context.save()
        let deletion = try #require(try stack.fetchHistory(after: last.token).first)
        #expect(Set(deletion.changes.map(\.recordID.entityName)) == ["Author", "Book"])
        #expect(deletion.changes.allSatisfy { $0.kind == .delete })
    }

    @Test func findOrCreateIsRecorded() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let context = stack.newContext()
        let created = try Memo.findFirstOrCreate(byAttribute: "serverID", withValue: "x", in: context)
        let history = try stack.fetchHistory(after: nil)
        #expect(history.count == 1)
        #expect(history.first?.changes.first?.recordID == created.recordID)
        #expect(history.first?.changes.first?.kind == .insert)
    }

    @Test func filtersByAuthorEntityAndDate() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self] + relationshipEntities, history: .enabled)
        let app = stack.newContext()
        app.transactionAuthor = "app"
        app.insert(Memo(serverID: "a", title: "a"))
        try app.save()
        let sync = stack.newContext()
        sync.transactionAuthor = "sync"
        sync.insert(RTag("t"))
        try sync.save()
        let plain = stack.newContext()
        plain.insert(Memo(serverID: "p", title: "p"))
        plain.insert(RTag("u"))
        try plain.save()

        #expect(try stack.fetchHistory(after: nil, matching: .author("app")).map(\.author) == ["app"])
        #expect(try stack.fetchHistory(after: nil, matching: .notAuthor("app")).map(\.author) == ["sync", nil])
        let memos = try stack.fetchHistory(after: nil, matching: .entity(Memo.self))
        #expect(memos.count == 2)
        #expect(memos.allSatisfy { $0.changes.allSatisfy { $0.entityName == "Memo" } })
        #expect(try stack.fetchHistory(after: nil, matching: .entity(Memo.self).and(.notAuthor("app"))).count == 1)
        #expect(try stack.fetchHistory(after: nil, matching: .committed(from: Date().addingTimeInterval(60))).isEmpty)
        #expect(try stack.fetchHistory(after: nil, matching: .committed(before: Date().addingTimeInterval(60))).count == 3)
        #expect(try stack.fetchHistory(after: nil, limit: 2).count == 2)
    }

    @Test func deleteHistoryMakesOlderTokensExpire() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let context = stack.newContext()
        for index in 0..<5 {
            context.insert(Memo(serverID: "\(index)", title: ""))
            try context.save()
        }
        let history = try stack.fetchHistory(after: nil)
        #expect(try stack.deleteHistory(before: history[3].token) == 3)
        #expect(try stack.fetchHistory(after: nil).map(\.token) == [history[3].token, history[4].token])
        // The last token deleted is still a place to continue from; older ones are not.
        #expect(try stack.fetchHistory(after: history[2].token).count == 2)
        let error = #expect(throws: LiteRecordError.self) { try stack.fetchHistory(after: history[1].token) }
        #expect(error?.kind == .historyExpired)
        #expect(try stack.deleteHistory(before: history[0].token) == 0)
    }

    @Test func aTokenOfAnotherStoreIsExpired() throws {
        let first = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        let second = try RecordStack(inMemoryWith: [Memo.self], history: .enabled)
        for stack in [first, second] {
            let context = stack.newContext()
            context.insert(Memo(serverID: "x", title: ""))
            try context.save()
        }
        let token = try #require(try first.newestHistoryToken())
        let error = #expect(throws: LiteRecordError.self) { try second.fetchHistory(after: token) }
        #expect(error?.kind == .historyExpired)
        #expect(throws: LiteRecordError.self) { try second.deleteHistory(before: token) }
    }

    @Test func tokensRoundTripAsTextAndJSON() throws {
        let token = HistoryToken(transactionNumber: 42, storeID: "00ab")
        #expect(token.description == "42-00ab")
        #expect(HistoryToken("42-00ab") == token)
        #expect(HistoryToken("42") == nil)
        #expect(HistoryToken("-1-ab") == nil)
        #expect(HistoryToken("4x-ab") == nil)
        #expect(HistoryToken("4-AB") == nil)
        let data = try JSONEncoder().encode(token)
        #expect(String(decoding: data, as: UTF8.self) == "\"42-00ab\"")
        #expect(try JSONDecoder().decode(HistoryToken.self, from: data) == token)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HistoryToken.self, from: Data("\"nope\"".utf8)) }
        #expect(HistoryToken(transactionNumber: 9, storeID: "a") < HistoryToken(transactionNumber: 10, storeID: "a"))
    }

    @Test func aStoreWithoutHistoryRefusesToAnswer() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self])
        #expect(!stack.recordsHistory)
        let error = #expect(throws: LiteRecordError.self) { try stack.fetchHistory(after: nil) }
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.message.contains("history: .enabled") == true)
    }

    @Test func historyIsAPropertyOfTheFile() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("h.sqlite")
        let first = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        first.newContext().insert(Memo(serverID: "1", title: ""))
        try first.close()
        // Opened without `history:`, the store goes on recording.
        let second = try RecordStack(storeAt: url, entities: [Memo.self])
        #expect(second.recordsHistory)
        let context = second.newContext()
        context.insert(Memo(serverID: "2", title: ""))
        try context.save()
        let token = try #require(try second.newestHistoryToken())
        try second.close()
        let reopened = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        #expect(try reopened.newestHistoryToken() == token, "tokens are stable across reopening")
        try reopened.close()
        // `.disabled` turns it off and deletes it.
        let off = try RecordStack(storeAt: url, entities: [Memo.self], history: .disabled)
        #expect(!off.recordsHistory)
        #expect(throws: LiteRecordError.self) { try off.fetchHistory(after: nil) }
        try off.close()
        let again = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let error = #expect(throws: LiteRecordError.self) { try again.fetchHistory(after: token) }
        #expect(error?.kind == .historyExpired, "a new history has a new identifier: old tokens do not silently match")
        try again.close()
    }

    @Test func anotherStackEnablingHistoryIsFollowedAtTheNextWrite() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("h.sqlite")
        let plain = try RecordStack(storeAt: url, entities: [Memo.self])
        #expect(!plain.recordsHistory)
        let enabling = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let context = plain.newContext()
        context.insert(Memo(serverID: "p", title: ""))
        try context.save()
        #expect(plain.recordsHistory)
        #expect(try enabling.fetchHistory(after: nil).count == 1, "the other stack's commit has its transaction")
        try plain.close()
        try enabling.close()
    }

    @Test func tombstonesSurviveAFailedFirstWriteAfterAnotherStackEnabledHistory() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("h.sqlite")
        let plain = try RecordStack(storeAt: url, entities: [Memo.self])
        let context = plain.newContext()
        let memo = Memo(serverID: "kept", title: "t")
        context.insert(memo)
        try context.save()
        let enabling = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        // The plain stack's first write after that fails (a conflict) and rolls back.
        let other = enabling.newContext()
        try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "kept", in: other)).stars = 9
        try other.save()
        memo.stars = 1
        #expect(throws: LiteRecordError.self) { try context.save() }
        context.rollback()
        try memo.delete(in: context)
        try context.save()
        let last = try #require(try enabling.fetchHistory(after: nil).last)
        #expect(last.changes.first?.kind == .delete)
        #expect(last.changes.first?.tombstone["serverID"] == .text("kept"))
        try plain.close()
        try enabling.close()
    }

    @Test func deletingHistoryNeverTakesTheNewestTransaction() throws {
        let stack = try RecordStack(inMemoryWith: [Memo.self], history: .enabled(keepingFor: .zero))
        let storeID = try stack.store.withConnection("") { try stack.store.historyStoreID(on: $0) }
        let context = stack.newContext()
        context.insert(Memo(serverID: "1", title: ""))
        try context.save()
        // The retention (zero seconds) runs in that commit and keeps it: the
        // next transaction's number continues from the newest.
        #expect(try stack.fetchHistory(after: nil).map(\.token.transactionNumber) == [1])
        for serverID in ["2", "3"] {
            context.insert(Memo(serverID: serverID, title: ""))
            try context.save()
        }
        #expect(try stack.deleteHistory(before: HistoryToken(transactionNumber: 99, storeID: storeID)) == 2)
        #expect(try stack.fetchHistory(after: HistoryToken(transactionNumber: 2, storeID: storeID)).map(\.token.transactionNumber) == [3])
        let error = #expect(throws: LiteRecordError.self) {
            try stack.fetchHistory(after: HistoryToken(transactionNumber: 0, storeID: storeID))
        }
        #expect(error?.kind == .historyExpired)
        context.insert(Memo(serverID: "4", title: ""))
        try context.save()
        #expect(try stack.newestHistoryToken()?.transactionNumber == 4, "numbers are not handed out again")
    }

    @Test func mergeBringsAHeldObjectUpToDate() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("h.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let held = stack.newContext()
        let memo = Memo(serverID: "m", title: "old")
        held.insert(memo)
        let gone = Memo(serverID: "g", title: "gone")
        held.insert(gone)
        try held.save()
        let token = try #require(try stack.newestHistoryToken())
        // Another stack (as another process would) changes one and deletes the other.
        let other = try RecordStack(storeAt: url, entities: [Memo.self])
        let context = other.newContext()
        let theirs = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "m", in: context))
        theirs.title = "new"
        let doomed = try #require(try Memo.findFirst(byAttribute: "serverID", withValue: "g", in: context))
        try doomed.delete(in: context)
        try context.save()
        try other.close()
        let transactions = try stack.fetchHistory(after: token)
        #expect(transactions.count == 1)
        try held.merge(history: transactions[0])
        #expect(memo.title == "new")
        #expect(held.registeredObjects.count == 1, "the deleted record's object is forgotten")
        memo.stars = 1
        try held.save()  // no false conflict after the merge
        try stack.close()
    }

    /// A token past the newest transaction the file recorded names none of its
    /// transactions (the store was restored from an older copy, whose next
    /// commits would take the token's numbers again): it is refused with
    /// `.historyExpired` instead of answering nothing and later skipping
    /// transactions.
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

    /// History is the file's: a stack opened `.disabled` turns it off at open,
    /// but once another stack enables it again, the first one's commits are
    /// recorded too, so a reader following tokens never skips them.
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

    // A transaction names what its commit wrote: the attributes a
    // `.storeTrumps` resolution left to the save, and the author set partway
    // through a `write {}`.

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

/// A custom migration step's changes are one transaction of the history.
@Suite struct HistoryMigrationStepTests {
    @Test func aStepsChangesAreOneTransaction() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("m.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let context = stack.newContext()
        for index in 0..<4 { context.insert(Memo(serverID: "s\(index)", title: "t\(index)", stars: index)) }
        try context.save()
        let before = try #require(try stack.newestHistoryToken())
        try stack.close()
        let plan = MigrationPlan()
            .step("bump") { db in
                try db.execute("UPDATE Memo SET stars = stars + 10 WHERE stars >= 2")
                try db.execute("DELETE FROM Memo WHERE stars = 0")
                try db.execute("INSERT INTO Memo (Z_OPT, serverID, title, stars) VALUES (2, 'new', 'added', 0)")
                // A failing statement the step catches takes its rows with it.
                // (abs of the smallest integer overflows at row 4, after rows 2 and 3 changed.)
                do {
                    try db.execute("UPDATE Memo SET stars = stars + 1 WHERE Z_PK >= 2 AND CASE WHEN Z_PK = 4 THEN abs(-9223372036854775807 - 1) ELSE 1 END")
                    Issue.record("the overflowing statement did not fail")
                } catch {}
            }
        let migrated = try RecordStack(storeAt: url, entities: [Memo.self], migration: .plan(plan))
        let transactions = try migrated.fetchHistory(after: before)
        #expect(transactions.count == 1)
        let step = try #require(transactions.first)
        #expect(step.author == HistoryLog.migrationAuthor)
        #expect(step.contextName == "migration step bump")
        let kinds = Dictionary(uniqueKeysWithValues: step.changes.map { ($0.recordID.rowID, $0) })
        #expect(kinds[3]?.kind == .update && kinds[3]?.updatedAttributes == ["stars"])
        #expect(kinds[4]?.kind == .update)
        #expect(kinds[1]?.kind == .delete && kinds[1]?.tombstone == ["serverID": .text("s0"), "title": .text("t0")])
        #expect(kinds[5]?.kind == .insert)
        #expect(kinds[2] == nil, "an unchanged row is not listed")
        // Later saves are recorded as before.
        let after = migrated.newContext()
        after.insert(Memo(serverID: "x", title: ""))
        try after.save()
        #expect(try migrated.fetchHistory(after: step.token).count == 1)
        try migrated.close()
    }
}

/// `Store.netChanges` writes one write's change set without netting it (a
/// fast path); the result must be what netting the same changes gives.
@Suite struct HistoryNettingTests {
    /// A batch by the names of its changes rather than their list indexes.
    private func described(_ batch: HistoryBatch) -> [String] {
        batch.changes.map { "\($0.kind) \($0.id) \(batch.lists[$0.names])" }
    }

    @Test func oneWritesChangesNetToWhatTheFastPathWrites() {
        var generator = SystemRandomNumberGenerator()
        var fastRuns = 0
        for _ in 0..<300 {
            let ids = (1...60).map { RecordID(entityName: Bool.random(using: &generator) ? "A" : "B", rowID: Int64($0)) }.shuffled()
            let inserted = Array(ids[0..<Int.random(in: 0...15)])
            let deleted = Array(ids[15..<Int.random(in: 15...30)])
            // Updates as a save lists them (by entity, then row id), at times
            // with a record listed twice, as a set-based delete may.
            var updated = Array(ids[30..<Int.random(in: 30...60)])
                .sorted { ($0.entityName, $0.rowID) < ($1.entityName, $1.rowID) }
            if Bool.random(using: &generator), let first = updated.first { updated.append(first) }
            var names = Bool.random(using: &generator) ? UpdatedNames(everyRecordWrote: ["title"]) : UpdatedNames()
            for id in updated { names.add([Bool.random(using: &generator) ? "title" : "body"], to: id) }
            let note = HistoryNote(
                changes: ChangeSet(inserted: inserted, updated: updated, deleted: deleted), updatedNames: names,
                author: nil, contextName: nil)
            if Store.listsEachRecordOnce(updated) { fastRuns += 1 }
            let fast = Store.netChanges([note])
            var events: [HistoryEvent] = []
            for id in inserted { events.append(HistoryEvent(id: id, kind: .insert, names: [])) }
            for id in updated { events.append(HistoryEvent(id: id, kind: .update, names: Set(names.names(for: id)))) }
            for id in deleted { events.append(HistoryEvent(id: id, kind: .delete, names: [])) }
            #expect(described(fast) == described(HistoryEvent.net(events)))
        }
        #expect(fastRuns > 50, "the fast path was taken")
    }

    /// `UpdatedNames` answers, for each record, the union of the names added
    /// for it (and those every record wrote), as a set per record would.
    @Test func updatedNamesKeepWhatEachRecordWrote() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let common: [String] = Bool.random(using: &generator) ? ["a", "b"] : []
            var names = common.isEmpty ? UpdatedNames() : UpdatedNames(everyRecordWrote: common)
            var reference: [RecordID: Set<String>] = [:]
            let ids = (1...8).map { RecordID(entityName: "E", rowID: Int64($0)) }
            for id in ids { reference[id] = Set(common) }
            for _ in 0..<Int.random(in: 0...20, using: &generator) {
                let id = ids.randomElement(using: &generator) ?? ids[0]
                let added = Set((0..<Int.random(in: 0...3, using: &generator)).map { _ in ["a", "b", "c", "d"].randomElement(using: &generator) ?? "a" })
                names.add(added, to: id)
                reference[id, default: []].formUnion(added)
            }
            for id in ids { #expect(names.names(for: id) == reference[id, default: []].sorted()) }
            #expect(Set(names.lists.map { $0 }).count == names.lists.count, "each list is kept once")
        }
    }

    /// The fast path's check never calls a list with a repeated record distinct.
    @Test func theCheckForRepeatedRecordsIsSound() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let ids = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                RecordID(entityName: ["A", "B", "C"].randomElement(using: &generator)!, rowID: Int64.random(in: 1...6, using: &generator))
            }
            if Store.listsEachRecordOnce(ids) { #expect(Set(ids).count == ids.count, "\(ids)") }
        }
        #expect(Store.listsEachRecordOnce([RecordID(entityName: "A", rowID: 1), RecordID(entityName: "A", rowID: 2)]))
        #expect(!Store.listsEachRecordOnce([RecordID(entityName: "A", rowID: 1), RecordID(entityName: "B", rowID: 1), RecordID(entityName: "A", rowID: 2)]))
    }
}
