import Foundation
import Testing
import LiteRecord

/// `RecordStack.checkpoint(_:)`, in each of SQLite's modes.
@Suite(.tags(.threads)) struct CheckpointAPITests {
    static func size(_ path: String) -> Int { WALBoundTests.size(path) }

    @Test func checkpointCopiesTheWALIntoTheMainFile() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Store.sqlite")
        let stack = try RecordStack(
            storeAt: url, entities: [Base.Note.self], migration: .none, onModelMismatch: .fail, checkpoints: .leftToReplicator)
        try await stack.write { context in
            for index in 0..<50 { context.insert(Base.Note(["title": .text("note \(index)")])) }
        }
        let passive = try stack.checkpoint(.passive)
        #expect(passive.walFrames > 0)
        #expect(passive.checkpointedFrames == passive.walFrames)
        #expect(passive.isComplete)
        #expect(Self.size(url.path + "-wal") > 0)
        let truncated = try stack.checkpoint(.truncate)
        #expect(truncated.isComplete)
        #expect(Self.size(url.path + "-wal") == 0)

        let inside = await #expect(throws: LiteRecordError.self) {
            try await stack.write { _ in _ = try stack.checkpoint(.full) }
        }
        #expect(inside?.kind == .storeUnavailable)
        try stack.close()
        #expect(throws: LiteRecordError.self) { try stack.checkpoint() }

        let memory = try RecordStack(inMemoryWith: [Base.Note.self])
        #expect(try memory.checkpoint(.restart).isComplete)
        try memory.close()
    }
}
