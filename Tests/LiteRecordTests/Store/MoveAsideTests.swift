import Foundation
import Testing
@testable import LiteRecord

/// Moving a store aside (`onModelMismatch: .moveAsideAndRecreate`): the order
/// the files move in, and what the moved main file holds.
@Suite(.tags(.threads)) struct MoveAsideTests {
    // Move-aside renamed the main file first, one file at a
    // time, and never synced the folder. An opener between two renames made a
    // new database at the path whose `-wal` and `-shm` the next renames carried
    // off beside the old main file; and a power loss after the move could undo
    // it. Now the companions move first, the main file last, then the folder
    // is synced.

    static func makeOldStore(_ url: URL) throws {
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        context.insert(HandWrittenPerson(name: "Bob", age: 40))
        try context.save()
        try stack.close()
    }

    static func movedAside(in folder: TemporaryDirectory) throws -> URL? {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.hasPrefix("People.sqlite.mismatch-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .first.map { folder.file($0) }
    }

    /// A newcomer (another process, say) opens the path after the first
    /// rename, makes it a WAL database and writes, and keeps its connection.
    @Test func anOpenerBetweenTwoRenamesIsNotPairedWithTheOldStore() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        try Self.makeOldStore(url)
        let newcomer = FaultLock<Connection?>(nil)
        let files = CrashingFileOperations { _ in
            guard newcomer.withLock({ $0 == nil }) else { return }
            let connection = try? Connection(path: url.path, options: Connection.OpenOptions(busyTimeout: .zero))
            // Busy while the old store, locked by the move, is still at the path.
            try? connection?.execute("PRAGMA journal_mode = WAL")
            try? connection?.execute("CREATE TABLE newcomer (x)")
            newcomer.withLock { $0 = connection }
        }
        let stack = try FileOperations.$current.withValue(files) {
            try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
        }
        try stack.close()
        let main = try #require(try Self.movedAside(in: folder))
        let old = try RecordStack(storeAt: main, entities: [HandWrittenPerson.self], readOnly: true)
        defer { try? old.close() }
        let tables = try old.store.withConnection("listing") { connection in
            try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let name)? = row.first { name } else { nil }
            }
        }
        #expect(!tables.contains("newcomer"), "the moved-aside store was paired with a newcomer's -wal: \(files.log)")
        #expect(try HandWrittenPerson.count(in: old.newContext()) == 2)
        newcomer.withLock { $0?.close() }
    }

    /// Every rename the move made is synced before the stack opens: a power
    /// loss right after it (which undoes whatever a folder sync did not make
    /// durable) leaves the old store moved aside, whole.
    @Test func theMoveSurvivesAPowerLossRightAfterIt() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        try Self.makeOldStore(url)
        let files = CrashingFileOperations()
        let stack = try FileOperations.$current.withValue(files) {
            try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
        }
        try stack.close()
        #expect(files.unsynced.isEmpty, "not durable: \(files.unsynced)")
        files.crash()
        let main = try #require(try Self.movedAside(in: folder), "the move was undone by the crash")
        let old = try RecordStack(storeAt: main, entities: [HandWrittenPerson.self], readOnly: true)
        defer { try? old.close() }
        #expect(try HandWrittenPerson.count(in: old.newContext()) == 2)
    }

    /// `moveAside` renames the main file and its `-wal` one
    /// after the other; an opener arriving between the two creates a new
    /// database at the path and SQLite deletes the old `-wal` beside it — with
    /// `.leftToReplicator`, every committed frame not yet checkpointed. So the
    /// WAL is checkpointed (`TRUNCATE`) under the exclusive lock first: the
    /// renamed main file alone holds every committed change.
    @Test func theMovedMainFileAloneHoldsEveryCommit() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Store.sqlite")
        let old = try RecordStack(
            storeAt: url, entities: [Base.Note.self], migration: .none, onModelMismatch: .fail, checkpoints: .leftToReplicator)
        let context = old.newContext()
        for index in 0..<20 { context.insert(Base.Note(["title": .text("note \(index)")])) }
        try context.save()
        try old.close()
        let walBefore = (try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(walBefore > 0, "the commits are in the -wal (left to a replicator)")

        let fresh = try RecordStack(storeAt: url, entities: [Base.Person.self], onModelMismatch: .moveAsideAndRecreate)
        let moved = fresh.movedAsideFiles
        try fresh.close()
        let main = try #require(moved.first { !$0.path.hasSuffix("-wal") && !$0.path.hasSuffix("-shm") })
        let movedWAL = moved.first { $0.path.hasSuffix("-wal") }
        let walAfter = movedWAL.map { ((try? FileManager.default.attributesOfItem(atPath: $0.path))?[.size] as? NSNumber)?.intValue ?? 0 } ?? 0
        #expect(walAfter == 0, "the moved -wal still holds \(walAfter) bytes of commits")

        // Only the main file, as an opener racing the renames would leave it.
        let alone = folder.file("Alone.sqlite")
        try FileManager.default.copyItem(at: main, to: alone)
        let reopened = try RecordStack(storeAt: alone, entities: [Base.Note.self])
        #expect(try reopened.all(Base.Note.self).count == 20)
        try reopened.close()
    }
}
