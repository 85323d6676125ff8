import Foundation
import Testing
@testable import LiteRecord

@Suite struct StoreTests {
    @Test func fileStoreReopenedFindsWhatWasSaved() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = stack.newContext()
            context.insert(HandWrittenPerson(name: "Ann", age: 31, email: "ann@example.com"))
            context.insert(HandWrittenPerson(name: "Bob", age: 40))
            try context.save()
            try stack.close()
        }
        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let people = try HandWrittenPerson.findAll(sortedBy: "name", in: reopened.newContext())
        #expect(people.map(\.name) == ["Ann", "Bob"])
        #expect(people.map(\.email) == ["ann@example.com", nil])
        try reopened.close()
    }

    @Test func fileStoreUsesWAL() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("wal.sqlite"), entities: [HandWrittenPerson.self])
        let mode = try stack.store.withConnection("test") { try $0.scalar("PRAGMA journal_mode") }
        #expect(mode == .text("wal"))
        try stack.close()
    }

    @Test func storeCreatesItsFolder() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("a/b/c/store.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        try stack.close()
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func changedModelIsRefusedAndTheFileIsUntouched() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = stack.newContext()
            context.insert(HandWrittenPerson(name: "Ann", age: 31))
            try context.save()
            try stack.close()
        }
        let before = try Data(contentsOf: url)
        let error = expectError(.modelMismatch) { try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self]) }
        #expect(error?.message.contains("Person: attribute 'nick' added; attribute 'email' removed") == true)
        #expect(try Data(contentsOf: url) == before)
        // The original model still opens it, data intact.
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 1)
        try stack.close()
    }

    @Test func moveAsideRenamesTheOldFileAndStartsEmpty() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = stack.newContext()
            context.insert(HandWrittenPerson(name: "Ann", age: 31))
            try context.save()
            try stack.close()
        }
        let before = try Data(contentsOf: url)
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
        #expect(try HandWrittenPersonV2.findAll(in: stack.newContext()).isEmpty)
        let moved = stack.movedAsideFiles
        #expect(moved.count >= 1)
        let main = try #require(moved.first)
        #expect(main.lastPathComponent.hasPrefix("People.sqlite.mismatch-"))
        #expect(try Data(contentsOf: main) == before)
        try stack.close()
        // Nothing was deleted: the old store still opens with its model.
        let old = try RecordStack(storeAt: main, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.count(in: old.newContext()) == 1)
        try old.close()
    }

    @Test func foreignDatabaseIsRefusedUntouched() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("foreign.sqlite")
        do {
            let db = try Connection(path: url.path)
            try db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
            db.close()
        }
        let before = try Data(contentsOf: url)
        let error = expectError(.modelMismatch) { try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]) }
        #expect(error?.message.contains("customers") == true)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func garbageFileIsACorruptStore() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("garbage.sqlite")
        let garbage = Data(repeating: 0x42, count: 4096)
        try garbage.write(to: url)
        expectError(.corruptStore) { try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]) }
        #expect(try Data(contentsOf: url) == garbage)
    }

    @Test func unwritableLocationIsStoreUnavailable() throws {
        let folder = try TemporaryDirectory()
        // A regular file where the store's folder should be.
        let blocker = folder.file("blocker")
        try Data("x".utf8).write(to: blocker)
        let url = blocker.appendingPathComponent("store.sqlite")
        expectError(.storeUnavailable) { try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]) }
    }

    @Test func closedStackThrowsStoreUnavailable() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        try stack.close()
        #expect(!stack.isOpen)
        expectError(.storeUnavailable) { try HandWrittenPerson.findAll(in: context) }
    }

    @Test func inMemoryStoresAreIndependent() throws {
        let a = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let b = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = a.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 1))
        try context.save()
        #expect(try HandWrittenPerson.count(in: a.newContext()) == 1)
        #expect(try HandWrittenPerson.count(in: b.newContext()) == 0)
        #expect(a.storeURL == nil)
    }

    @Test func createsUniqueAndPlainIndexes() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let rows = try stack.store.withConnection("test") { try $0.rows("PRAGMA index_list(\"Person\")") }
        let names = rows.compactMap { row -> String? in if case .text(let name) = row[1] { name } else { nil } }
        #expect(Set(names) == ["literecord_unique:Person.identifier", "literecord_index:Person.name"])
    }
}
