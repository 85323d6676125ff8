import Foundation
import Testing
@testable import LiteRecord

/// The store's files: a reader never creates one, and moving a store aside
/// (`onModelMismatch: .moveAsideAndRecreate`) takes every companion file with
/// it and happens only when nothing else has the store open.
@Suite struct StoreFileSafetyTests {
    @Test func aReaderOpenedAfterTheFileWasMovedFailsAndCreatesNothing() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        // The writer only: the pool opens its readers at the first read.
        try await stack.write { context in context.insert(HandWrittenPerson(name: "Ann", age: 31)) }
        let elsewhere = folder.file("Elsewhere.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.moveItem(atPath: url.path + suffix, toPath: elsewhere.path + suffix)
        }
        let error = await #expect(throws: LiteRecordError.self) {
            try await stack.read { context in try HandWrittenPerson.count(in: context) }
        }
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.message.contains("moved or deleted") == true, "\(String(describing: error))")
        #expect(
            !FileManager.default.fileExists(atPath: url.path),
            "a reader created an empty database where the store was, which the next open would take for a new store")
        try stack.close()
    }

    @Test func moveAsideIsRefusedWhileAnotherStackHasTheStoreOpen() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let first = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        try await first.write { context in context.insert(HandWrittenPerson(name: "Ann", age: 31)) }
        #expect(try await first.read { context in try HandWrittenPerson.count(in: context) } == 1)

        let error = expectError(.storeUnavailable) {
            try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
        }
        #expect(error?.message.contains("another connection has it open") == true, "\(String(describing: error))")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!names.contains { $0.contains(".mismatch-") }, "files were moved: \(names)")

        // The first stack still works on the store at the path.
        try await first.write { context in context.insert(HandWrittenPerson(name: "Bob", age: 42)) }
        try first.close()
        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.count(in: reopened.newContext()) == 2)
        try reopened.close()
    }

    @Test func moveAsideTakesTheRollbackJournalAlong() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = stack.newContext()
            context.insert(HandWrittenPerson(name: "Ann", age: 31))
            try context.save()
            try stack.close()
        }
        // A store left in a rollback-journal mode that keeps its -journal file.
        do {
            let connection = try Connection(path: url.path)
            try connection.execute("PRAGMA journal_mode = PERSIST")
            try connection.execute("PRAGMA user_version = 7")
            connection.close()
        }
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"))
        let before = try Data(contentsOf: url)

        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
        let moved = stack.movedAsideFiles
        let main = try #require(moved.first)
        #expect(main.lastPathComponent.hasPrefix("People.sqlite.mismatch-"))
        #expect(moved.contains { $0.path == main.path + "-journal" }, "\(moved.map(\.lastPathComponent))")
        #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"), "the old journal stayed beside the new store")
        #expect(try Data(contentsOf: main) == before, "the file moved aside was changed")
        #expect(try HandWrittenPersonV2.findAll(in: stack.newContext()).isEmpty)
        try stack.close()

        let old = try RecordStack(storeAt: main, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.count(in: old.newContext()) == 1)
        try old.close()
    }
}
