import Foundation
import Testing
@testable import LiteRecord

/// What of the history lives in the file, not in the stack that writes it:
/// the preserved attributes, the identity a copy does not share, the
/// entity names a rename changes, and the format another reader relies on.
@Suite struct HistoryFileTests {
    /// A writer declared without `.preserveValueOnDeletion` (an older
    /// release, a widget) deletes with the tombstone the file's list asks
    /// for, whether it opened before or after the declaring stack. Before,
    /// its triggers came from its own declaration: the tombstone was empty.
    @Test(arguments: [false, true])
    func aWriterDeclaredWithoutTheOptionKeepsTheTombstone(undeclaredOpensFirst: Bool) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("memos.sqlite")
        var undeclared: RecordStack?
        if undeclaredOpensFirst {
            undeclared = try RecordStack(storeAt: url, entities: [UndeclaredMemo.self], history: .enabled)
        }
        let declaring = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        try declaring.close()
        let widget = try undeclared ?? RecordStack(storeAt: url, entities: [UndeclaredMemo.self])
        defer { try? widget.close() }
        let context = widget.newContext()
        let memo = UndeclaredMemo()
        memo.serverID = "srv-7"
        memo.title = "kept"
        context.insert(memo)
        try context.save()
        context.delete(memo)
        try context.save()
        let deletion = try #require(try widget.fetchHistory(after: nil).last?.changes.first)
        #expect(deletion.kind == .delete)
        #expect(deletion.tombstone == ["serverID": .text("srv-7"), "title": .text("kept")])
    }

    /// Every copy LiteRecord writes has a history of its own: a token of the
    /// original that the copy's later commits would number again is
    /// `.historyExpired` on the restored copy. Before, the copy kept the
    /// original's identifier and answered the token by skipping them.
    @Test func aBackupHasAHistoryIdentityOfItsOwn() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("memos.sqlite")
        let copy = folder.file("copy.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [Memo.self], history: .enabled)
        let context = stack.newContext()
        context.insert(Memo(serverID: "1", title: "before the copy"))
        try context.save()
        try stack.backup(to: copy)
        for index in 2...3 {
            context.insert(Memo(serverID: "\(index)", title: "original only"))
            try context.save()
        }
        let held = try #require(try stack.newestHistoryToken())
        try stack.close()

        let restored = try RecordStack(storeAt: copy, entities: [Memo.self], history: .enabled)
        defer { try? restored.close() }
        let writer = restored.newContext()
        for index in 2...4 {
            writer.insert(Memo(serverID: "\(index)", title: "copy only"))
            try writer.save()
        }
        #expect(try restored.newestHistoryToken()?.storeID != held.storeID)
        let error = expectError(.historyExpired) { _ = try restored.fetchHistory(after: held) }
        #expect(error?.message.contains("is not from") == true, "\(String(describing: error))")
        #expect(try restored.fetchHistory(after: nil).count == 4)
    }

    /// The copy kept before a migration that removed an entity has its own
    /// identity too; the migrated store keeps its tokens when the removed
    /// entity held no records.
    @Test func theCopyKeptBeforeAMigrationHasAHistoryIdentityOfItsOwn() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("jottings.sqlite")
        let first = try RecordStack(storeAt: url, entities: [Jottings.Jotting.self, Jottings.Scribble.self], history: .enabled)
        let context = first.newContext()
        let jotting = Jottings.Jotting()
        jotting.text = "one"
        context.insert(jotting)
        try context.save()
        let token = try #require(try first.newestHistoryToken())
        try first.close()

        let second = try RecordStack(
            storeAt: url, entities: [Jottings.Jotting.self], migration: .plan(MigrationPlan().removeEntity("Scribble")),
            history: .enabled)
        defer { try? second.close() }
        let kept = try #require(second.lastMigrationReport?.keptCopyURL)
        #expect(try second.fetchHistory(after: token).isEmpty)
        let old = try RecordStack(storeAt: kept, entities: [Jottings.Jotting.self, Jottings.Scribble.self], history: .enabled)
        defer { try? old.close() }
        #expect(try old.newestHistoryToken()?.storeID != token.storeID)
        expectError(.historyExpired) { _ = try old.fetchHistory(after: token) }
    }

    /// After an entity rename, the transactions recorded before name the
    /// new entity: `.entity(_:)` finds them and `merge(history:)` applies
    /// them. Before, they kept the old name and both skipped them.
    @Test func anEntityRenameRenamesItInTheRecordedTransactions() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("jottings.sqlite")
        let first = try RecordStack(storeAt: url, entities: [Jottings.Jotting.self], history: .enabled)
        let context = first.newContext()
        let jotting = Jottings.Jotting()
        jotting.text = "one"
        context.insert(jotting)
        try context.save()
        jotting.text = "two"
        try context.save()
        try first.close()

        let second = try RecordStack(storeAt: url, entities: [Jottings.Entry.self], migration: .automatic, history: .enabled)
        defer { try? second.close() }
        #expect(second.lastMigrationReport?.renamedTables.map(\.to) == ["Entry"])
        let found = try second.fetchHistory(after: nil, matching: .entity(Jottings.Entry.self))
        #expect(found.map { $0.changes.map(\.kind) } == [[.insert], [.update]])
        #expect(found.first?.changes.first?.recordID.entityName == "Entry")
        #expect(try second.fetchHistory(after: nil, matching: .entity(Jottings.Jotting.self)).isEmpty)
    }

    /// A transaction in a format this release cannot read is refused with
    /// an error that names the format found and the one read.
    @Test func aNewerFormatIsNamedInTheError() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("memos.sqlite"), entities: [Memo.self], history: .enabled)
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(Memo(serverID: "1", title: "one"))
        try context.save()
        try stack.store.rawWrite("writing a newer format") { connection in
            try connection.execute("UPDATE literecord_history SET changes = x'02' || substr(changes, 2)")
        }
        let error = expectError(.corruptStore) { _ = try stack.fetchHistory(after: nil) }
        #expect(error?.message.contains("format 2") == true, "\(String(describing: error))")
        #expect(error?.message.contains("reads format 1") == true, "\(String(describing: error))")
    }
}
