import Foundation
import Testing
import LiteRecord

/// The in-memory backup under a steady stream of commits, and the backup of
/// a read-only stack whose file a writer changed.
@Suite(.tags(.threads)) struct BackupRaceTests {
    /// A writer commits between (nearly) every two steps of an in-memory
    /// backup: each commit makes SQLite start the copy over at its first
    /// page, so `remaining` never grows past its last value — the restarts
    /// were not counted and the copy never finished. It must finish, in a
    /// bounded time, with whole batches only.
    @Test func anInMemoryBackupFinishesUnderSteadyCommits() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        defer { try? stack.close() }
        try BackupTests.seed(stack, rows: 3000)  // about 4 MB, 16 steps
        let stop = Shared(false)
        let writer = Thread {
            var number = 0
            while !stop.withLock({ $0 }) {
                number += 1
                let context = stack.newContext()
                for row in 0..<BackupTests.batch { context.insert(HandWrittenPerson(name: "w-\(number)", age: row)) }
                try? context.save()
            }
        }
        writer.start()
        defer { stop.withLock { $0 = true } }
        let copy = folder.file("copy.sqlite")
        let finished: Bool? = try await finishingOnThread(within: 60) {
            try stack.backup(to: copy)
            return true
        }
        stop.withLock { $0 = true }
        #expect(finished != nil, "the backup did not finish in 60 s under steady commits")
        guard finished != nil else { return }
        let (_, partial) = try BackupTests.batches(in: copy)
        #expect(partial.isEmpty, "partial batches \(partial)")
    }

    /// A read-only stack opened while nothing else had the store open reads
    /// it `immutable`, without locks. A writer that opens the store later and
    /// checkpoints changes the file under it: its backup must refuse, not
    /// copy pages of two states.
    @Test func aReadOnlyStackRefusesToBackUpAFileAWriterChanged() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        try ReadOnlyStackTests.makeStore(at: url)
        let reader = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        defer { try? reader.close() }
        try reader.backup(to: folder.file("before.sqlite"))

        let writer = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        let context = writer.newContext()
        for index in 0..<50 { context.insert(HandWrittenNote(text: "later \(index)")) }
        try context.save()
        try writer.close()  // checkpoints into the file the reader has open

        let destination = folder.file("after.sqlite")
        let error = try #require(throws: LiteRecordError.self) { try reader.backup(to: destination) }
        #expect(error.kind == .storeUnavailable, "\(error)")
        #expect(error.message.contains("was written since") && error.message.contains("read-only"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
