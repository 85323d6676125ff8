import Foundation
import Testing
@testable import LiteRecord

@Suite(.tags(.threads)) struct ChangeStreamTests {
    @Test func oneChangeSetPerCommittedWriteInOrder() async throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let stream = stack.changes
        var iterator = stream.makeAsyncIterator()

        let first = try await stack.write { context in
            let ann = HandWrittenPerson(name: "Ann", age: 1)
            context.insert(ann)
            try context.save()
            ann.age = 2  // saved again at the end of write: same transaction
            return 0
        }
        #expect(first == 0)
        let context = stack.newContext()
        let bob = HandWrittenPerson(name: "Bob", age: 2)
        context.insert(bob)
        try context.save()
        let bobID = try #require(bob.recordID)
        struct Boom: Error {}
        _ = try? await stack.write { context -> Int in
            context.insert(HandWrittenPerson(name: "Rolled back", age: 0))
            try context.save()
            throw Boom()
        }
        try HandWrittenPerson.truncateAll(in: context)

        let a = try #require(await iterator.next())
        #expect(a.inserted.map(\.rowID) == [1])
        #expect(a.updated.isEmpty, "inserted and updated in one transaction is an insert")
        let b = try #require(await iterator.next())
        #expect(b.inserted == [bobID])
        let c = try #require(await iterator.next())
        #expect(c.deleted.count == 2, "the rolled-back write published nothing")
        #expect(c.entityNames == ["Person"])
        try stack.close()
        #expect(await iterator.next() == nil, "the stream ends when the stack closes")
    }

    @Test func mergingKeepsNetEffect() {
        let a = RecordID(entityName: "P", rowID: 1)
        let b = RecordID(entityName: "P", rowID: 2)
        let merged = ChangeSet(merging: [
            ChangeSet(inserted: [a]), ChangeSet(updated: [a, b]), ChangeSet(deleted: [a]),
        ])
        #expect(merged == ChangeSet(updated: [b]))
    }
}
