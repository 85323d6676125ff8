import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// `cleanUp()` closes the stack with "pending writes finish first"
/// (Docs/Internals/Invariants.md, "Closing finishes what was queued"). Writes queued behind the one holding the
/// writer when `close()` or `cleanUp()` is called must commit, not throw
/// `.storeUnavailable` (`Task { try? await RecordStack.write { … } }` lost
/// those saves without a word).
@Suite(.tags(.threads)) struct CloseWaitsForQueuedWritesTests {
    static let writes = 10

    /// Starts `writes` writes from detached tasks, the first holding the
    /// writer for a while, and returns once they are all made; `results`
    /// gets each write's outcome.
    static func startWrites(
        _ write: @escaping @Sendable (@escaping @Sendable (RecordContext) throws -> Void) async throws -> Void,
        results: Shared<[String]>
    ) async throws -> [Task<Void, Never>] {
        let firstRunning = Shared(false)
        var tasks: [Task<Void, Never>] = []
        for index in 0..<writes {
            tasks.append(Task.detached {
                do {
                    try await write { context in
                        if index == 0 {
                            firstRunning.value = true
                            Thread.sleep(forTimeInterval: 0.6)
                        }
                        context.insert(HandWrittenPerson(name: "P\(index)", age: index))
                    }
                    // One locked step: `value.append` reads, then writes, and
                    // two writes finishing together lost one (seen under TSan).
                    results.withLock { $0.append("ok") }
                } catch {
                    let message = "\(error)"
                    results.withLock { $0.append(message) }
                }
            })
            if index == 0 {
                while !firstRunning.value { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        // Let every other write reach the stack's queue.
        try await Task.sleep(for: .milliseconds(200))
        return tasks
    }

    @Test func closeLetsQueuedWritesFinish() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let results = Shared<[String]>([])
        let tasks = try await Self.startWrites({ body in try await stack.write(body) }, results: results)
        let closed = try await finishingOnThread(within: 20) { () throws -> Bool in try stack.close(); return true }
        #expect(closed != nil, "close() did not return")
        for task in tasks { await task.value }
        #expect(results.value == Array(repeating: "ok", count: Self.writes), "\(results.value)")

        // A write made after close() returned is refused.
        let late = await #expect(throws: LiteRecordError.self) {
            try await stack.write { context in context.insert(HandWrittenPerson(name: "late", age: 0)) }
        }
        #expect(late?.kind == .storeUnavailable)

        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try await reopened.read { try HandWrittenPerson.count(in: $0) } == Self.writes)
        try reopened.close()
    }

    @Test func cleanUpLetsQueuedWritesFinish() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let results = Shared<[String]>([])
        try await RecordStack.withDefault(nil) {
            try RecordStack.setup(storeAt: url, entities: [HandWrittenPerson.self])
            let stack = try RecordStack.current()
            let tasks = try await Self.startWrites(
                { body in try await RecordStack.withDefault(stack) { try await RecordStack.write(body) } }, results: results)
            let cleaned = try await finishingOnThread(within: 20) { () throws -> Bool in
                try RecordStack.withDefault(stack) { try RecordStack.cleanUp() }
                return true
            }
            #expect(cleaned != nil, "cleanUp() did not return")
            for task in tasks { await task.value }
        }
        #expect(results.value == Array(repeating: "ok", count: Self.writes), "\(results.value)")
        let reopened = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try await reopened.read { try HandWrittenPerson.count(in: $0) } == Self.writes)
        try reopened.close()
    }
}
