import Foundation
import Testing
@testable import LiteRecord

@Suite(.tags(.threads)) struct ConcurrencyTests {
    @Test func eightWritersAndConcurrentReaders() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("stress.sqlite"), entities: [HandWrittenPerson.self])
        let writers = 8
        let writesEach = 500
        let observed = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<writesEach {
                        try await stack.write { context in
                            context.insert(HandWrittenPerson(name: "w\(writer)-\(index)", age: index))
                        }
                    }
                    return 0
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    var last = 0
                    for _ in 0..<50 {
                        let count = try await stack.read { context in try HandWrittenPerson.count(in: context) }
                        // Counts only grow: every read sees a committed state.
                        #expect(count >= last)
                        last = count
                        await Task.yield()
                    }
                    return last
                }
            }
            var maximum = 0
            for try await value in group { maximum = max(maximum, value) }
            return maximum
        }
        #expect(observed <= writers * writesEach)
        let count = try await stack.read { context in try HandWrittenPerson.count(in: context) }
        #expect(count == writers * writesEach)
        let names = try await stack.read { context in Set(try HandWrittenPerson.findAll(in: context).map(\.name)) }
        #expect(names.count == writers * writesEach)
        try stack.close()
    }

    @Test func readsDoNotWaitBehindAWrite() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("readers.sqlite"), entities: [HandWrittenPerson.self])
        let setup = stack.newContext()
        setup.insert(HandWrittenPerson(name: "Ann", age: 1))
        try setup.save()

        let writing = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let writer = Thread {
            _ = try? stack.performWrite { context in
                context.insert(HandWrittenPerson(name: "Uncommitted", age: 2))
                try context.save()
                writing.signal()
                // Hold the write transaction open until the read has finished
                // (or give up after 10 s, which the test then reports).
                _ = readDone.wait(timeout: .now() + 10)
            }
        }
        writer.start()
        writing.wait()
        let started = Date()
        let names = try HandWrittenPerson.findAll(in: stack.newContext()).map(\.name)
        let waited = Date().timeIntervalSince(started)
        readDone.signal()
        #expect(names == ["Ann"], "the reader sees the last commit, not the open write")
        #expect(waited < 5, "the read did not wait for the writer")
        while writer.isExecuting { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 2)
        try stack.close()
    }
}
