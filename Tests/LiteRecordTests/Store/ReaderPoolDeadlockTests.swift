import Foundation
import Testing
@testable import LiteRecord

/// Reads that hold every reader connection and then wait for something that
/// needs a reader must not wait forever. Each party runs on a thread of its
/// own (the synchronous cores of `read` and `write`), awaited with a time
/// limit, so a regression fails instead of hanging the run.
@Suite(.tags(.threads)) struct ReaderPoolDeadlockTests {
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
