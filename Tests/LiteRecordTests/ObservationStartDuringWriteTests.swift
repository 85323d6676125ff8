import Dispatch
import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// Starting an observation never waits for another task's write (issue #64,
/// item 9): reads never wait behind a write, and the first value is the
/// state before the write commits.
@Suite struct ObservationStartDuringWriteTests {
    @Test @MainActor func subscribingDuringALongWriteReturnsAtOnce() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("Observe.sqlite"), entities: [HandWrittenPerson.self])
        defer { try? stack.close() }
        stack.mainContext.insert(HandWrittenPerson(name: "Ann", age: 31))
        try stack.mainContext.save()

        let entered = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        let writing = Task.detached {
            try await stack.write { context in
                context.insert(HandWrittenPerson(name: "Bob", age: 40))
                entered.store(true, ordering: .relaxed)
                // The write holds the writer (on the store's own queue) until
                // released, or for 5 s when a regression blocks the releaser.
                _ = release.wait(timeout: .now() + 5)
            }
        }
        while !entered.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }

        let started = ContinuousClock.now
        var iterator = stack.mainContext.observe(FetchRequest<HandWrittenPerson>()).makeAsyncIterator()
        let first = await iterator.next()
        let waited = ContinuousClock.now - started
        release.signal()
        try await writing.value

        #expect(first?.map(\.name) == ["Ann"], "the state before the write")
        #expect(waited < .seconds(2), "subscribing waited \(waited) for the write")
    }
}
