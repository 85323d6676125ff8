import Foundation
import Testing
@testable import LiteRecord

/// Opening a new store while another connection holds its write lock (as
/// another process creating the same store does) waits for it: `PRAGMA
/// journal_mode = WAL` reads the file and then needs the write lock, and
/// SQLite answers that conflict with "database is locked" at once, without
/// its busy handler. Two processes creating one store failed that way
/// about one time in three.
@Suite struct NewStoreWALRaceTests {
    @Test func openingANewStoreWaitsForAnotherConnectionsWriteLock() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("new.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let other = try Connection(path: url.path)
        try other.execute("BEGIN IMMEDIATE TRANSACTION")

        async let opened = finishingOnThread(within: 30) {
            try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        }
        try await Task.sleep(for: .milliseconds(300))
        try other.execute("ROLLBACK TRANSACTION")
        other.close()

        let stack = try #require(try await opened, "the open did not end within 30 s")
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        #expect(try stack.newContext().count(HandWrittenPerson.self, whereSQL: nil, arguments: []) == 1)
        try stack.close()
    }
}
