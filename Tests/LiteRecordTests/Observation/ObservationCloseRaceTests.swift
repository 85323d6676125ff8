import Dispatch
import Foundation
import Synchronization
import Testing
@testable import LiteRecord

/// Closing a stack ends its observations cleanly, also
/// when an observation fetches after the reader pool closed and before the
/// writer did: no error kept, none logged.
@Suite struct ObservationCloseRaceTests {
    @Test @MainActor func aFetchBetweenTheReadersAndTheWriterClosingIsACleanEnd() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Close.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let other = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        defer { try? other.close() }
        let observation = stack.mainContext.observe(FetchRequest<HandWrittenPerson>())
        var iterator = observation.makeAsyncIterator()
        #expect(await iterator.next()?.isEmpty == true)

        // A read in flight keeps close() waiting with its reader pool closed
        // and its writer open.
        let reading = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        let read = Task.detached {
            try await stack.read { _ in
                reading.store(true, ordering: .relaxed)
                _ = release.wait(timeout: .now() + 10)
            }
        }
        while !reading.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        let closing = Task.detached { try stack.close() }
        while stack.store.readers?.isClosing != true { try await Task.sleep(for: .milliseconds(5)) }

        // Another stack's commit wakes the observation, whose fetch meets the
        // closed pool.
        try await other.write { context in context.insert(HandWrittenPerson(name: "Bob", age: 40)) }
        let endedEarly = Atomic<Bool>(false)
        let next = Task { @MainActor [iterator] in
            var iterator = iterator
            let ended = await iterator.next() == nil
            endedEarly.store(true, ordering: .relaxed)
            return ended
        }
        // The woken observation fetches, meets the closed pool and ends, all
        // while close() still waits for the read.
        let deadline = ContinuousClock.now + .seconds(10)
        while !endedEarly.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let endedWhileClosing = endedEarly.load(ordering: .relaxed)
        #expect(endedWhileClosing, "the observation fetched while the store was closing")
        release.signal()
        try await read.value
        try await closing.value
        let ended = await next.value
        #expect(ended, "the observation ended")
        #expect(observation.error == nil, "closing is a clean end: \(String(describing: observation.error))")
    }
}
