import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// The reader pool (`ReaderPool`) under contention: readers looping over
/// `read` leave a writer its turn, and reads that hold every reader never
/// wait forever for one more.
@Suite(.tags(.threads)) struct ReaderPoolTests {
    /// `RecordStack.read` runs its body synchronously on a cooperative thread;
    /// readers looping over it must still leave a writer its turn.
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

    // Reads that hold every reader connection and then wait for something that
    // needs a reader must not wait forever. Each party runs on a thread of its
    // own (the synchronous cores of `read` and `write`), awaited with a time
    // limit, so a regression fails instead of hanging the run.
    /// The pool's size (ReaderPool's maximumCount in Store).
    static let readers = 4

    @Test func readsThatSaveWhileAWriteReadsThroughAPooledContextAllFinish() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        let readsHold = DispatchSemaphore(value: 0)
        let writeHolds = DispatchSemaphore(value: 0)
        let finished = try await withThrowingTaskGroup(of: Bool?.self) { group in
            for index in 0..<Self.readers {
                group.addTask {
                    try await finishingOnThread(within: 60) { () throws -> Bool in
                        try stack.performRead { context in
                            _ = try HandWrittenPerson.count(in: context)
                            readsHold.signal()
                            // Save (which needs the writer) only once the write holds it.
                            _ = writeHolds.wait(timeout: .now() + 30)
                            context.insert(HandWrittenPerson(name: "Reader \(index)", age: index))
                            try context.save()
                        }
                        return true
                    }
                }
            }
            group.addTask {
                try await finishingOnThread(within: 60) { () throws -> Bool in
                    _ = try stack.performWrite { context in
                        for _ in 0..<Self.readers { _ = readsHold.wait(timeout: .now() + 30) }
                        for _ in 0..<Self.readers { writeHolds.signal() }
                        // Every reader is held by a read that waits for this write.
                        _ = try HandWrittenPerson.count(in: stack.newContext())
                        context.insert(HandWrittenPerson(name: "Writer", age: 99))
                    }
                    return true
                }
            }
            var finished: [Bool?] = []
            for try await result in group { finished.append(result) }
            return finished
        }
        #expect(finished.count == Self.readers + 1)
        #expect(finished.allSatisfy { $0 == true }, "a read or the write did not finish within 60 s: they wait for each other")
        guard finished.allSatisfy({ $0 == true }) else { return }
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == Self.readers + 1)
        try stack.close()
    }

    @Test func readsThatFetchThroughAPooledContextWhileHoldingEveryReaderFinish() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        let everyReaderHeld = DispatchGroup()
        for _ in 0..<Self.readers { everyReaderHeld.enter() }
        let finished = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<Self.readers {
                group.addTask {
                    try await finishingOnThread(within: 60) { () throws -> Int in
                        try stack.performRead { _ in
                            // Fetch through a pooled context only once every reader is held.
                            everyReaderHeld.leave()
                            _ = everyReaderHeld.wait(timeout: .now() + 30)
                            return try HandWrittenPerson.count(in: stack.newContext())
                        }
                    }
                }
            }
            var finished: [Int?] = []
            for try await result in group { finished.append(result) }
            return finished
        }
        #expect(finished == Array(repeating: 1, count: Self.readers), "a read did not finish within 60 s: \(finished)")
        if finished.allSatisfy({ $0 != nil }) { try stack.close() }
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
