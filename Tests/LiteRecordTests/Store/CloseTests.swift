import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// `close()` and `cleanUp()` of a store: what a close waits for (reads,
/// backups and writes in flight or queued), and what it refuses (a close from
/// inside the write it would wait for). Each case is a suite of its own below.
@Suite(.tags(.threads)) struct CloseTests {
    /// `close()` (and `cleanUp()`) called from inside a `write` closure: it would
    /// wait for the write it is part of, so it is refused with a message that
    /// says so, and the write commits as if it had not been called.
    @Suite struct InsideAWrite {
        @Test func closeInsideWriteIsRefusedAndTheWriteCommits() async throws {
            let folder = try TemporaryDirectory()
            let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
            let refusal = Shared<LiteRecordError?>(nil)
            try await stack.write { context in
                context.insert(HandWrittenPerson(name: "Ann", age: 31))
                do {
                    try stack.close()
                } catch let error as LiteRecordError {
                    refusal.value = error
                }
                context.insert(HandWrittenPerson(name: "Bob", age: 42))
            }
            let error = try #require(refusal.value, "close() inside write returned without an error")
            #expect(error.kind == .storeUnavailable)
            #expect(error.message.contains("close() was called inside a write"), "\(error)")
            #expect(error.message.contains("Nothing was closed"), "\(error)")
            #expect(stack.isOpen)
            #expect(try await stack.read { context in try HandWrittenPerson.count(in: context) } == 2)
            try stack.close()
            #expect(!stack.isOpen)
        }

        @Test func cleanUpInsideWriteIsRefusedAndKeepsTheDefaultStack() async throws {
            let folder = try TemporaryDirectory()
            try await RecordStack.withDefault(nil) {
                try RecordStack.setup(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
                let refusal = Shared<LiteRecordError?>(nil)
                try await RecordStack.write { context in
                    context.insert(HandWrittenPerson(name: "Ann", age: 31))
                    do {
                        try RecordStack.cleanUp()
                    } catch let error as LiteRecordError {
                        refusal.value = error
                    }
                }
                #expect(refusal.value?.kind == .storeUnavailable)
                #expect(RecordStack.isSetUp, "cleanUp() removed the default stack although it did not close it")
                #expect(try await RecordStack.read { context in try HandWrittenPerson.count(in: context) } == 1)
                try RecordStack.cleanUp()
                #expect(!RecordStack.isSetUp)
            }
        }
    }

    /// `close()` returned while a backup was still copying.
    /// The backup's connection was then the file's last: closing it
    /// checkpointed and deleted `<store>-wal` and `-shm` by name, which after a
    /// restore (close, swap the files, reopen) are the restored store's. A
    /// backup's connection is tracked as the pool's readers are: `close()`
    /// waits for it.
    @Suite struct WaitsForBackups {
        @Test func closeReturnsAfterTheRunningBackupFinished() async throws {
            let folder = try TemporaryDirectory()
            let url = folder.file("People.sqlite")
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            try await stack.write { context in context.insert(HandWrittenPerson(name: "Ann", age: 31)) }
            let backupThread = Shared<UInt>(0)
            let inBackup = Shared(false)
            let pauseEnded = Shared(false)
            // The backup's first read (BackupFile.copySnapshot) pauses, holding its snapshot.
            let token = stack.store.addObserver { sql in
                guard ThreadIdentity.current == backupThread.value, sql.contains("sqlite_schema"), !inBackup.value else { return }
                inBackup.value = true
                Thread.sleep(forTimeInterval: 0.5)
                pauseEnded.value = true
            }
            defer { stack.store.removeObserver(token) }
            let backupDone = Shared(false)
            let copy = folder.file("Copy.sqlite")
            let backup = Task.detached {
                backupThread.value = ThreadIdentity.current
                try stack.backup(to: copy)
                backupDone.value = true
            }
            while !inBackup.value { try await Task.sleep(for: .milliseconds(5)) }
            // What close() waits for is the backup's connection: released once
            // the snapshot is copied, after the pause (publishing the copy under
            // its name comes after that, and may finish after close returns — it
            // touches no file of the store).
            let copiedAtClose = try await finishingOnThread(within: 20) { () throws -> Bool in
                try stack.close()
                return pauseEnded.value
            }
            #expect(copiedAtClose == true, "close() returned while the backup was still copying")
            try await backup.value
            #expect(backupDone.value)
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
            let restored = try RecordStack(storeAt: copy, entities: [HandWrittenPerson.self])
            defer { try? restored.close() }
            #expect(try HandWrittenPerson.count(in: restored.newContext()) == 1)
        }

        /// A backup begun after `close()` is refused, not run on a connection the
        /// closed store no longer tracks.
        @Test func aBackupAfterCloseIsRefused() throws {
            let folder = try TemporaryDirectory()
            let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
            try stack.close()
            #expect(throws: LiteRecordError.self) { try stack.backup(to: folder.file("Copy.sqlite")) }
            #expect(!FileManager.default.fileExists(atPath: folder.file("Copy.sqlite").path))
        }
    }

    /// `cleanUp()` closes the stack with "pending writes finish first"
    /// (Docs/Internals/Invariants.md, "Closing finishes what was queued"). Writes queued behind the one holding the
    /// writer when `close()` or `cleanUp()` is called must commit, not throw
    /// `.storeUnavailable` (`Task { try? await RecordStack.write { … } }` lost
    /// those saves without a word).
    @Suite struct WaitsForQueuedWrites {
        static let writes = 10

        /// Starts `writes` writes from detached tasks, the first holding the
        /// writer for a while, and returns once they are all made; `results`
        /// gets each write's outcome.
        static func startWrites(
            _ write: @escaping @Sendable (@escaping @Sendable (RecordContext) throws -> Void) async throws -> Void,
            results: Shared<[String]>
        ) async throws -> [Task<Void, Never>] {
            let firstRunning = Shared(false)
            var tasks: [Task<Void, Never>] = []
            for index in 0..<writes {
                tasks.append(
                    Task.detached {
                        do {
                            try await write { context in
                                if index == 0 {
                                    firstRunning.value = true
                                    Thread.sleep(forTimeInterval: 0.6)
                                }
                                context.insert(HandWrittenPerson(name: "P\(index)", age: index))
                            }
                            // One locked step: `value.append` reads, then writes, and
                            // two writes finishing together lost one (seen under TSan).
                            results.withLock { $0.append("ok") }
                        } catch {
                            let message = "\(error)"
                            results.withLock { $0.append(message) }
                        }
                    })
                if index == 0 {
                    while !firstRunning.value { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            // Let every other write reach the stack's queue.
            try await Task.sleep(for: .milliseconds(200))
            return tasks
        }

        @Test func closeLetsQueuedWritesFinish() async throws {
            let folder = try TemporaryDirectory()
            let url = folder.file("People.sqlite")
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let results = Shared<[String]>([])
            let tasks = try await Self.startWrites({ body in try await stack.write(body) }, results: results)
            let closed = try await finishingOnThread(within: 20) { () throws -> Bool in
                try stack.close(); return true
            }
            #expect(closed != nil, "close() did not return")
            for task in tasks { await task.value }
            #expect(results.value == Array(repeating: "ok", count: Self.writes), "\(results.value)")

            // A write made after close() returned is refused.
            let late = await #expect(throws: LiteRecordError.self) {
                try await stack.write { context in context.insert(HandWrittenPerson(name: "late", age: 0)) }
            }
            #expect(late?.kind == .storeUnavailable)

            let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            #expect(try await reopened.read { try HandWrittenPerson.count(in: $0) } == Self.writes)
            try reopened.close()
        }

        @Test func cleanUpLetsQueuedWritesFinish() async throws {
            let folder = try TemporaryDirectory()
            let url = folder.file("People.sqlite")
            let results = Shared<[String]>([])
            try await RecordStack.withDefault(nil) {
                try RecordStack.setup(storeAt: url, entities: [HandWrittenPerson.self])
                let stack = try RecordStack.current()
                let tasks = try await Self.startWrites(
                    { body in try await RecordStack.withDefault(stack) { try await RecordStack.write(body) } }, results: results)
                let cleaned = try await finishingOnThread(within: 20) { () throws -> Bool in
                    try RecordStack.withDefault(stack) { try RecordStack.cleanUp() }
                    return true
                }
                #expect(cleaned != nil, "cleanUp() did not return")
                for task in tasks { await task.value }
            }
            #expect(results.value == Array(repeating: "ok", count: Self.writes), "\(results.value)")
            let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            #expect(try await reopened.read { try HandWrittenPerson.count(in: $0) } == Self.writes)
            try reopened.close()
        }
    }

    /// `close()` returned while a `read` was still running; the
    /// busy reader connection closed later and, as the last connection, deleted
    /// `-wal` and `-shm` by name — after a restore (close, swap the files,
    /// reopen) those can be the restored store's. `close()` waits for reads in
    /// flight (up to ``Store/readDrainTimeout``).
    @Suite struct WaitsForReads {
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
}
