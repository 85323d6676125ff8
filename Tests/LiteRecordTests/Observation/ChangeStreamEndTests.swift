import Foundation
import Testing
@testable import LiteRecord

/// A stack released without `close()` ends its `changes`
/// streams (a `for await` over them never returned), and a subscriber that
/// never reads does not keep every change set in memory.
@Suite(.tags(.threads)) struct ChangeStreamEndTests {
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
