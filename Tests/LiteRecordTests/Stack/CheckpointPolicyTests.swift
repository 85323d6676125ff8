import Foundation
import Testing
import LiteRecord

/// `checkpoints: .leftToReplicator`: LiteRecord never
/// copies the WAL into the main file, neither after commits nor when the
/// stack closes; `.automatic` does both.
@Suite struct CheckpointPolicyTests {
    /// About 1,500 pages of notes (6 MB), past SQLite's automatic checkpoint
    /// at 1,000 pages, in 15 saves.
    static func writeManyPages(_ stack: RecordStack) throws {
        let payload = Data(repeating: 7, count: 4000)
        for save in 0..<15 {
            let context = stack.newContext()
            for index in 0..<100 {
                context.insert(HandWrittenNote(text: "\(save)-\(index)", payload: payload))
            }
            try context.save()
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func leftToReplicatorNeverCheckpoints() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("replicated.sqlite")
        let stack = try RecordStack(
            storeAt: url, entities: [HandWrittenNote.self], migration: .none, onModelMismatch: .fail,
            checkpoints: .leftToReplicator)
        let mainBefore = Self.size(url.path)
        try Self.writeManyPages(stack)
        #expect(Self.size(url.path) == mainBefore, "nothing reached the main file")
        #expect(Self.size(url.path + "-wal") > 1000 * 4096, "every page is still in the WAL")
        let walBeforeClose = Self.size(url.path + "-wal")
        try stack.close()
        #expect(Self.size(url.path) == mainBefore, "close() did not checkpoint")
        #expect(Self.size(url.path + "-wal") == walBeforeClose, "closing the last connection did not checkpoint")

        // Nothing is lost: the next open reads the WAL.
        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        #expect(try HandWrittenNote.count(in: reopened.newContext()) == 1500)
        try reopened.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "an .automatic stack checkpoints at close")
    }

    @Test func automaticCheckpointsAfterCommitsAndAtClose() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("plain.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        try Self.writeManyPages(stack)
        #expect(Self.size(url.path) > 1000 * 4096, "the automatic checkpoint at 1,000 pages ran")
        try stack.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }
}
