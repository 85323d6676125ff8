import Foundation
import Testing
@testable import LiteRecord

/// `close()` returned while a backup was still copying.
/// The backup's connection was then the file's last: closing it
/// checkpointed and deleted `<store>-wal` and `-shm` by name, which after a
/// restore (close, swap the files, reopen) are the restored store's. A
/// backup's connection is tracked as the pool's readers are: `close()`
/// waits for it.
@Suite(.tags(.threads)) struct CloseWaitsForBackupTests {
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
