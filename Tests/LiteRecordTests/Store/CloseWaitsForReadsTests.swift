import Foundation
import Testing
@testable import LiteRecord

/// `close()` returned while a `read` was still running; the
/// busy reader connection closed later and, as the last connection, deleted
/// `-wal` and `-shm` by name — after a restore (close, swap the files,
/// reopen) those can be the restored store's. `close()` waits for reads in
/// flight (up to ``Store/readDrainTimeout``).
@Suite(.tags(.threads)) struct CloseWaitsForReadsTests {
    @Test func closeReturnsAfterTheRunningReadFinished() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        try await stack.write { context in context.insert(HandWrittenPerson(name: "Ann", age: 31)) }
        let inRead = Shared(false)
        let readDone = Shared(false)
        let read = Task.detached {
            try await stack.read { context in
                inRead.value = true
                Thread.sleep(forTimeInterval: 0.5)
                _ = try HandWrittenPerson.count(in: context)
                readDone.value = true
            }
        }
        while !inRead.value { try await Task.sleep(for: .milliseconds(5)) }
        let doneAtClose = try await finishingOnThread(within: 20) { () throws -> Bool in
            try stack.close()
            return readDone.value
        }
        #expect(doneAtClose == true, "close() returned while the read was still running")
        try await read.value
        // No connection of the closed stack is left to delete the next store's files.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    /// A read that calls `close()` itself does not wait for itself.
    @Test func closeInsideAReadDoesNotWaitForItself() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        let closed = try await finishingOnThread(within: 20) { () throws -> Bool in
            try stack.performRead { _ in try stack.close() }
            return true
        }
        #expect(closed != nil, "close() inside a read waited for itself")
        #expect(!stack.isOpen)
    }
}
