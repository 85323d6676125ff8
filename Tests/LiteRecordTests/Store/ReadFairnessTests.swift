import Foundation
import Synchronization
import Testing
import LiteRecord

/// `RecordStack.read` runs its body synchronously on a cooperative thread;
/// readers looping over it must still leave a writer its turn.
@Suite(.tags(.threads)) struct ReadFairnessTests {
    @Test func writerProgressesWhileMoreReadersThanCoresLoop() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("fair.sqlite"), entities: [HandWrittenPerson.self])
        // More reader tasks than the cooperative pool has threads, each
        // reading in a tight loop with no suspension point of its own.
        let readers = ProcessInfo.processInfo.activeProcessorCount + 2
        let writes = 20
        // Fairness is judged by how many reads the readers finish before the
        // writer's 20 writes are done, not by the clock: under `make test`
        // other suites' synchronous tests can hold both cooperative threads
        // for a minute, which delays readers and writer alike. A fair stack
        // lets the writer through after a few reads per write (about 10²
        // in all here); a starved writer waits while the readers run up to
        // the cap (the bug this guards against). The clock only bounds the
        // run if something hangs.
        let readCap = 100_000
        let limit = Duration.seconds(300)
        let writerDone = Flag()
        let reads = Counter()
        let started = ContinuousClock.now
        let readsBeforeWriterDone = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<readers {
                group.addTask {
                    var last = 0
                    while !writerDone.isSet, reads.value < readCap, ContinuousClock.now - started < limit {
                        let count = try await stack.read { context in try HandWrittenPerson.count(in: context) }
                        #expect(count >= last)
                        last = count
                        reads.increment()
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
                return reads.value
            }
            var readsSeen: Int?
            for try await value in group { if let value { readsSeen = value } }
            return readsSeen
        }
        let readsSeen = try #require(readsBeforeWriterDone)
        #expect(readsSeen < readCap, "the writer waited while the readers ran \(readsSeen) reads")
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

/// A count shared by tasks.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}
