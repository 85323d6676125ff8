import Foundation
import Testing
import LiteRecord

/// A store on a small tmpfs that fills up. Skipped, with the reason printed,
/// where a tmpfs cannot be mounted (not root, or a container without the
/// permission).
@Suite struct DiskFullTests {
    static func count(_ url: URL) throws -> Int {
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self], readOnly: true)
        defer { try? stack.close() }
        return try HandWrittenNote.count(in: stack.newContext())
    }

    /// The save fails naming the cause, the context keeps its changes, the
    /// store holds only whole saves, and a retry after freeing space succeeds.
    @Test func saveOnAFullDiskFailsCleanlyAndSucceedsOnRetry() throws {
        _ = try Reliability.withSmallDisk(bytes: 8 << 20) { disk in
            let url = disk.appendingPathComponent("full.sqlite")
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            let context = stack.newContext()
            for index in 0..<10 { context.insert(HandWrittenNote(text: "before \(index)")) }
            try context.save()
            let filler = try Reliability.fill(disk)

            // About 1.5 MB: room for it in the WAL and the main file once the filler is gone.
            for index in 0..<1000 {
                context.insert(HandWrittenNote(text: "big \(index)", payload: Data(repeating: 7, count: 1500)))
            }
            var message = ""
            do {
                try context.save()
                Issue.record("the save on a full disk succeeded")
            } catch let error as LiteRecordError {
                message = error.message
                #expect(error.kind == .storeUnavailable, "\(error)")
                #expect(error.message.contains("full"), "names the cause: \(error.message)")
                #expect(error.message.contains(url.path), "names the store: \(error.message)")
            }
            #expect(context.hasChanges, "the context keeps its changes")
            #expect(context.insertedObjects.count == 1000)
            #expect(try HandWrittenNote.count(in: stack.newContext()) == 10, "only whole saves in the store")
            #expect(try StoreCheck(storeAt: url).isHealthy)

            try FileManager.default.removeItem(at: filler)
            try context.save()
            #expect(!context.hasChanges)
            #expect(try HandWrittenNote.count(in: stack.newContext()) == 1010)
            try stack.close()
            #expect(try Self.count(url) == 1010)
            Reliability.report(
                "disk full: 8 MiB tmpfs filled up, a 1,000-row save failed with \"\(message)\", the 10 rows saved before stayed, the retry after freeing space saved all 1,010")
        }
    }

    /// `close()` reports a final checkpoint that failed, says the data is safe
    /// in the WAL, and the next open finds every row.
    @Test func closeReportsAFailedCheckpoint() throws {
        _ = try Reliability.withSmallDisk(bytes: 8 << 20) { disk in
            let url = disk.appendingPathComponent("checkpoint.sqlite")
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            let context = stack.newContext()
            // About 3 MB in the WAL, below the 1,000-page automatic checkpoint.
            for index in 0..<700 {
                context.insert(HandWrittenNote(text: "row \(index)", payload: Data(repeating: UInt8(index % 200), count: 3500)))
            }
            try context.save()
            let walBefore = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            let filler = try Reliability.fill(disk)
            var message = ""
            do {
                try stack.close()
                Issue.record("close() reported success although the checkpoint could not grow the main file")
            } catch let error as LiteRecordError {
                message = error.message
                #expect(error.kind == .storeUnavailable, "\(error)")
                #expect(error.message.contains("checkpoint"), "\(error.message)")
                #expect(error.message.contains("safe in \(url.path)-wal"), "\(error.message)")
            }
            #expect(!stack.isOpen, "the stack is closed all the same")
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "the WAL stays with the data")
            try FileManager.default.removeItem(at: filler)

            let reopened = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            let notes = try HandWrittenNote.findAll(in: reopened.newContext())
            #expect(notes.count == 700)
            #expect(notes.allSatisfy { $0.payload.count == 3500 })
            try reopened.close()
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "a successful close checkpoints and removes the WAL")
            Reliability.report("failed checkpoint: 8 MiB tmpfs, \(walBefore / 1024) KiB WAL, close() threw \"\(message)\"; reopened with all 700 rows")
        }
    }
}
