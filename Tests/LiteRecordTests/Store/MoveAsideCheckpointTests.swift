import Foundation
import Testing
import LiteRecord

/// `moveAside` renames the main file and its `-wal` one
/// after the other; an opener arriving between the two creates a new
/// database at the path and SQLite deletes the old `-wal` beside it — with
/// `.leftToReplicator`, every committed frame not yet checkpointed. So the
/// WAL is checkpointed (`TRUNCATE`) under the exclusive lock first: the
/// renamed main file alone holds every committed change.
@Suite struct MoveAsideCheckpointTests {
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
