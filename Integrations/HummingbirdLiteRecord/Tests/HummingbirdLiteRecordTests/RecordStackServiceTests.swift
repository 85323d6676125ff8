import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Logging
import ServiceLifecycle
import Testing

/// The stack as a service: it closes when the group shuts down, after the
/// services listed after it (the HTTP server) have stopped.
@Suite struct RecordStackServiceTests {
    /// A service that records when it stopped and whether the stack could
    /// still be written then.
    struct Probe: Service {
        let stack: RecordStack
        let stoppedWithOpenStack: @Sendable (Bool) -> Void

        func run() async throws {
            try? await gracefulShutdown()
            // Shut down before the stack: a write must still work now.
            do {
                try await stack.write { context in
                    let todo = Todo()
                    context.insert(todo)
                    todo.title = "written during shutdown"
                }
                stoppedWithOpenStack(true)
            } catch {
                stoppedWithOpenStack(false)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func closesTheStackAfterTheServicesListedAfterIt() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        let wrote = AsyncStream.makeStream(of: Bool.self)
        let group = ServiceGroup(configuration: .init(
            services: [RecordStackService(stack), Probe(stack: stack) { _ = wrote.continuation.yield($0) }],
            logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        var results = wrote.stream.makeAsyncIterator()
        #expect(await results.next() == true)
        // And the stack is closed now: a read throws.
        await #expect(throws: LiteRecordError.self) { try await stack.read { try Todo.count(in: $0) } }
        // What the probe wrote is in the file.
        let reopened = try temporary.openStack()
        #expect(try await reopened.read { try Todo.count(in: $0) } == 1)
        try reopened.close()
    }
}
