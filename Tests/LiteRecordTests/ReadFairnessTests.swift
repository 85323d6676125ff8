import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// `RecordStack.read` runs its body synchronously on a cooperative thread;
/// readers looping over it must still leave a writer its turn.
@Suite struct ReadFairnessTests {
    @Test func writerProgressesWhileMoreReadersThanCoresLoop() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("fair.sqlite"), entities: [HandWrittenPerson.self])
        // More reader tasks than the cooperative pool has threads, each
        // reading in a tight loop with no suspension point of its own.
        let readers = ProcessInfo.processInfo.activeProcessorCount + 2
        let writes = 20
        // Alone this finishes in well under a second; starved (the bug this
        // guards against) the writer waits for the readers to give up at the
        // limit. The limit is generous because under `make test` other suites'
        // synchronous tests can hold both cooperative threads for half a
        // minute (seen twice at 30 s: 35 s and 66 s), which is not starvation
        // by these readers.
        let limit = Duration.seconds(120)
        let writerDone = Flag()
        let started = ContinuousClock.now
        let writerFinishedAfter = try await withThrowingTaskGroup(of: Duration?.self) { group in
            for _ in 0..<readers {
                group.addTask {
                    var last = 0
                    while !writerDone.isSet, ContinuousClock.now - started < limit {
                        let count = try await stack.read { context in try HandWrittenPerson.count(in: context) }
                        #expect(count >= last)
                        last = count
                    }
                    return nil
                }
            }
            group.addTask {
                for index in 0..<writes {
                    try await stack.write { context in
                        context.insert(HandWrittenPerson(name: "w\(index)", age: index))
                    }
                }
                writerDone.set()
                return ContinuousClock.now - started
            }
            var finished: Duration?
            for try await value in group { if let value { finished = value } }
            return finished
        }
        let elapsed = try #require(writerFinishedAfter)
        #expect(elapsed < limit)
        let count = try await stack.read { context in try HandWrittenPerson.count(in: context) }
        #expect(count == writes)
        try stack.close()
    }
}

/// A flag shared by tasks.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
