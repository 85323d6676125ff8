import Foundation
import Testing
import LiteRecord

/// Every error about a store file names that file.
@Suite struct StoreErrorPathTests {
    @Test func readingADamagedStoreNamesTheFile() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("damaged.sqlite")
        try DamagedFileTests.healthyStore(at: url)
        try DamagedFileTests.damage(url, .middlePage)
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
        defer { try? stack.close() }
        let error = try #require(throws: LiteRecordError.self) {
            _ = try HandWrittenNote.findAll(in: stack.newContext()).map(\.payload)
        }
        #expect(error.kind == .corruptStore, "\(error)")
        #expect(error.message.contains("fetching"), "\(error.message)")
        #expect(error.message.contains(url.path), "\(error.message)")
    }

    @Test func errorsOfAnOpenStoreNameTheFile() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let context = stack.newContext()
        let id = UUID()
        let first = HandWrittenPerson(name: "Ann", age: 1)
        first.identifier = id
        context.insert(first)
        try context.save()

        // A constraint, through a context and through `write`.
        let duplicate = HandWrittenPerson(name: "Bob", age: 2)
        duplicate.identifier = id
        let other = stack.newContext()
        other.insert(duplicate)
        let constraint = try #require(throws: LiteRecordError.self) { try other.save() }
        #expect(constraint.kind == .constraintViolation)
        #expect(constraint.message.contains(url.path), "\(constraint.message)")
        let inWrite = await #expect(throws: LiteRecordError.self) {
            try await stack.write { context in
                let copy = HandWrittenPerson(name: "Cy", age: 3)
                copy.identifier = id
                context.insert(copy)
            }
        }
        #expect(inWrite?.message.contains(url.path) == true, "\(String(describing: inWrite))")

        // Bad SQL in a raw fetch, read through the pool.
        let sql = try #require(throws: LiteRecordError.self) {
            _ = try HandWrittenPerson.fetch(sql: "no_such_column > ?", arguments: [1], in: stack.newContext())
        }
        #expect(sql.message.contains(url.path), "\(sql.message)")

        // Anything after close.
        try stack.close()
        let closed = try #require(throws: LiteRecordError.self) { _ = try HandWrittenPerson.count(in: context) }
        #expect(closed.kind == .storeUnavailable)
        #expect(closed.message.contains(url.path), "\(closed.message)")
    }
}
