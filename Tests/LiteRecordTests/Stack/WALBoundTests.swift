import Foundation
import Testing
@testable import LiteRecord

private enum BodyRequired {
    /// Base.Note with `body` non-optional (default ""): the migration
    /// rebuilds the table, writing every page of it.
    final class Note: Versioned {
        let recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [attr("title", .string, [.indexed]), attr("body", .string, default: .text(""))]
        }
    }
}

/// The WAL is bounded and checkpointed on request, and
/// what only reads a store (`requiresMigration`) opens it read-only, so that
/// it never checkpoints or deletes a WAL that is left to a replicator.
@Suite(.tags(.threads)) struct WALBoundTests {
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    /// A store left to a replicator, closed with its commits still in the -wal.
    static func replicatedStore(_ url: URL, notes: Int, body: String = "") throws {
        let stack = try RecordStack(
            storeAt: url, entities: [Base.Note.self], migration: .none, onModelMismatch: .fail, checkpoints: .leftToReplicator)
        let context = stack.newContext()
        for index in 0..<notes { context.insert(Base.Note(["title": .text("note \(index)"), "body": .text(body)])) }
        try context.save()
        try stack.close()
    }

    @Test func requiresMigrationLeavesTheWALAlone() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Store.sqlite")
        try Self.replicatedStore(url, notes: 50)
        let wal = Self.size(url.path + "-wal")
        let main = try Data(contentsOf: url)
        #expect(wal > 0)
        #expect(try RecordStack.requiresMigration(storeAt: url, entities: [Base.Note.self]) == false)
        #expect(Self.size(url.path + "-wal") == wal, "requiresMigration checkpointed or deleted the -wal")
        #expect(try Data(contentsOf: url) == main, "requiresMigration wrote to the main file")
    }

    /// `literecord backup` (``RecordStack/backup(storeAt:to:)``) only reads:
    /// as the store's one connection it must not checkpoint or delete a
    /// -wal left to a replicator, and the copy holds what the -wal holds.
    @Test func aBackupOfTheFileLeavesTheWALAlone() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Store.sqlite")
        try Self.replicatedStore(url, notes: 50)
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        let main = try Data(contentsOf: url)
        #expect(!wal.isEmpty)
        let copy = folder.file("Copy.sqlite")
        try RecordStack.backup(storeAt: url, to: copy)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) == wal, "the backup checkpointed or deleted the -wal")
        #expect(try Data(contentsOf: url) == main, "the backup wrote to the main file")
        let restored = try RecordStack(storeAt: copy, entities: [Base.Note.self])
        defer { try? restored.close() }
        #expect(try restored.newContext().count(Base.Note.self, whereSQL: nil, arguments: []) == 50)
    }

    /// With `.leftToReplicator`, no commit checkpoints, the migration's
    /// included: the main file is exactly as it was until the replicator
    /// checkpoints.
    @Test func aMigrationOfAReplicatedStoreNeverCheckpoints() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Store.sqlite")
        try Self.replicatedStore(url, notes: 3000, body: String(repeating: "b", count: 2000))
        // Fold the WAL in first, as the replicator would, so the main file holds it all.
        let folding = try RecordStack(storeAt: url, entities: [Base.Note.self])
        try folding.close()
        let main = try Data(contentsOf: url)
        let stack = try RecordStack(
            storeAt: url, entities: [BodyRequired.Note.self], migration: .automatic, onModelMismatch: .fail,
            checkpoints: .leftToReplicator)
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Note"])
        try stack.close()
        #expect(try Data(contentsOf: url) == main, "a commit of the migration checkpointed into the main file")
        #expect(Self.size(url.path + "-wal") > 0)
    }
}
