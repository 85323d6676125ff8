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

    // A stack released without `close()` ends its `changes`
    // streams (a `for await` over them never returned), and a subscriber that
    // never reads does not keep every change set in memory.

    /// Everything `stream` delivers until it ends, or `nil` when it has not
    /// ended within `seconds`.
    static func collect(_ stream: AsyncStream<ChangeSet>, within seconds: Double) async -> [ChangeSet]? {
        await withTaskGroup(of: [ChangeSet]?.self) { group in
            group.addTask {
                var received: [ChangeSet] = []
                for await change in stream { received.append(change) }
                return Task.isCancelled ? nil : received
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func releasingTheStackEndsItsChangeStreams() async throws {
        let folder = try TemporaryDirectory()
        var stack: RecordStack? = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        let stream = try #require(stack).changes
        try await stack?.write { context in context.insert(HandWrittenPerson(name: "Ann", age: 31)) }
        stack = nil
        let received = await Self.collect(stream, within: 10)
        #expect(received?.count == 1, "the change stream did not end when the stack was released")
    }

    /// A subscriber that falls `limit` change sets behind is ended rather
    /// than buffering without bound; what it got before is kept, in order.
    @Test func aSubscriberThatFallsTooFarBehindIsEnded() async throws {
        let broadcaster = ChangeBroadcaster(limit: 3)
        let stream = broadcaster.subscribe()
        for index in 0..<10 {
            broadcaster.publish(ChangeSet(inserted: [RecordID(entityName: "Note", rowID: Int64(index))]))
        }
        let received = await Self.collect(stream, within: 10)
        #expect(received?.flatMap { $0.inserted.map(\.rowID) } == [0, 1, 2])
    }
}
