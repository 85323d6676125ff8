import Dispatch
import Foundation
import LiteRecordTesting
import Synchronization
import Testing
@testable import LiteRecord

/// An entity no observed request in these tests reads.
@Entity(name: "ObservedNote")
final class ObservedNote {
    var text = ""
    init() {}
    init(text: String) { self.text = text }
}

/// Closes `stack` after `seconds` unless cancelled first: an observation that
/// never produces what a test waits for then ends, and the test fails on its
/// `#require` instead of hanging. Generous, because a full parallel test run
/// on a small machine can hold every test up for minutes.
private func watchdog(_ stack: RecordStack, seconds: Double = 600) -> Task<Void, Never> {
    Task.detached {
        try? await Task.sleep(for: .seconds(seconds))
        if !Task.isCancelled { try? stack.close() }
    }
}

private let byName = FetchRequest<MacroPerson>(sortBy: [SortDescriptor(\.name)])

/// `context.observe(_:)`: observed fetch requests.
@Suite(.tags(.threads)) struct ObservedQueryTests {
    @Test @MainActor func seesABackgroundWriteWithinOneCommit() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let observation = stack.mainContext.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let firstElement = await iterator.next()
        let first = try #require(firstElement)
        #expect(first.isEmpty)

        try await stack.write { context in context.insert(MacroPerson(name: "Bob", age: 40)) }
        let secondElement = await iterator.next()
        let second = try #require(secondElement)
        #expect(second.map(\.name) == ["Bob"])
        #expect(second.first?.context === stack.mainContext, "objects of the observing context")
        #expect(observation.status.evaluations == 2, "one fetch for the one commit")
    }

    @Test @MainActor func skipsCommitsThatTouchOtherEntities() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self, ObservedNote.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let observation = stack.mainContext.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let valueElement = await iterator.next()
        _ = try #require(valueElement)

        let (_, statements) = try await stack.recordingSQL {
            for index in 0..<3 {
                try await stack.write { context in context.insert(ObservedNote(text: "note \(index)")) }
            }
            await Task.yield()
        }
        try await stack.write { context in context.insert(MacroPerson(name: "Ann", age: 30)) }
        let nextElement = await iterator.next()
        let next = try #require(nextElement)
        #expect(next.map(\.name) == ["Ann"])
        #expect(observation.status.evaluations == 2, "the three note commits caused no fetch")
        #expect(!statements.contains { $0.contains("FROM \"Person\"") })
    }

    @Test @MainActor func coalescesABurstOfCommits() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let observation = stack.mainContext.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let valueElement = await iterator.next()
        _ = try #require(valueElement)

        for index in 0..<20 {
            try await stack.write { context in context.insert(MacroPerson(name: "P\(index)", age: index)) }
        }
        let nextElement = await iterator.next()
        let next = try #require(nextElement)
        #expect(next.count == 20)
        #expect(observation.status.evaluations == 2, "twenty commits, one fetch")
    }

    @Test @MainActor func identicalResultsAreNotSentAgainButChangedValuesAre() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let annID = try await stack.write { context in
            let ann = MacroPerson(name: "Ann", age: 40)
            context.insert(ann)
            try context.save()
            return ann.recordID
        }
        let observation = stack.mainContext.observe(
            FetchRequest<MacroPerson>(predicate: #Predicate { $0.age > 30 }, sortBy: [SortDescriptor(\.name)]))
        var iterator = observation.makeAsyncIterator()
        let firstElement = await iterator.next()
        let first = try #require(firstElement)
        #expect(first.map(\.name) == ["Ann"])

        let status = observation.status
        let writer = Task.detached {
            // A Person commit that leaves the results as they were: fetched, not sent.
            try await stack.write { context in context.insert(MacroPerson(name: "Young", age: 10)) }
            while status.evaluations < 2 { try await Task.sleep(for: .milliseconds(5)) }
            // The same set of objects, one attribute changed: sent.
            try await stack.write { context in
                try context.object(with: #require(annID), as: MacroPerson.self)?.age = 41
            }
        }
        let secondElement = await iterator.next()
        let second = try #require(secondElement)
        try await writer.value
        #expect(second.map(\.name) == ["Ann"])
        #expect(second.first?.age == 41)
        #expect(second.first === first.first, "the same object, refreshed")
        #expect(status.evaluations == 3, "the unchanged results were fetched once and not sent")
    }

    @Test @MainActor func sameObjectsWithAChangedAttributeAreSentAgain() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let main = stack.mainContext
        let ann = MacroPerson(name: "Ann", age: 40)
        main.insert(ann)
        try main.save()
        let observation = main.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let valueElement = await iterator.next()
        _ = try #require(valueElement)

        ann.age = 50  // an edit of the observing context, saved
        try main.save()
        let secondElement = await iterator.next()
        let second = try #require(secondElement)
        #expect(second.first?.age == 50)
        #expect(observation.status.evaluations == 2)
    }

    @Test func cancellingTheTaskEndsTheObservationAndReleasesIt() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let probe = await Probe()
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task { @MainActor in
            let context = stack.newContext()
            probe.context = context
            for await _ in context.observe(byName) {
                probe.received += 1
                signal.yield()
            }
            probe.loopExited = true
        }
        var waiting = started.makeAsyncIterator()
        _ = await waiting.next()
        #expect(stack.store.observations.liveCount == 1)

        task.cancel()
        await task.value
        #expect(await probe.loopExited)
        #expect(await probe.received == 1)
        #expect(stack.store.observations.liveCount == 0, "the subscription was given back")
        #expect(await probe.contextIsGone, "nothing holds the context any more")
        // A commit after the end reaches no one and costs nothing.
        try await stack.write { context in context.insert(MacroPerson(name: "Late", age: 1)) }
        #expect(await probe.received == 1)
    }

    @Test @MainActor func leavingTheLoopReleasesTheSubscription() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        for await people in stack.mainContext.observe(byName) {
            #expect(people.isEmpty)
            #expect(stack.store.observations.liveCount == 1)
            break
        }
        #expect(stack.store.observations.liveCount == 0)
    }

    @Test(.inMemoryStack(entities: [MacroPerson.self]))
    @MainActor func cleanUpEndsTheSequenceCleanly() async throws {
        try MacroPerson(name: "Ann", age: 1).save()
        let observation = RecordStack.mainContext.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let firstElement = await iterator.next()
        let first = try #require(firstElement)
        #expect(first.map(\.name) == ["Ann"])
        try RecordStack.cleanUp()
        let ended = await iterator.next()
        #expect(ended == nil, "the for-await loop exits")
        #expect(observation.error == nil, "closing is not a failure")
        let stillEnded = await iterator.next()
        #expect(stillEnded == nil)
    }

    @Test(.inMemoryStack(entities: [MacroPerson.self]))
    @MainActor func observeAllOnTheMainContext() async throws {
        try MacroPerson(name: "Bob", age: 50).save()
        try MacroPerson(name: "Ann", age: 20).save()
        var iterator = MacroPerson.observeAll(
            matching: #Predicate { $0.age > 30 }, sortedBy: [SortDescriptor(\.name)]
        ).makeAsyncIterator()
        let firstElement = await iterator.next()
        #expect(try #require(firstElement).map(\.name) == ["Bob"])
    }

    @Test @MainActor func observeAllBeforeSetupEndsWithNotSetUp() async throws {
        await RecordStack.withDefault(nil) {
            let observation = MacroPerson.observeAll()
            var iterator = observation.makeAsyncIterator()
            let ended = await iterator.next()
            #expect(ended == nil)
            #expect(observation.error?.kind == .notSetUp)
        }
    }

    @Test @MainActor func observingAClosedStackEndsAtOnce() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        try stack.close()
        var iterator = stack.mainContext.observe(byName).makeAsyncIterator()
        let ended = await iterator.next()
        #expect(ended == nil)
    }

    @Test @MainActor func aRequestThatCannotBeTranslatedEndsWithItsError() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        try await stack.write { context in context.insert(MacroPerson(name: "Ann", age: 1)) }
        let observation = stack.mainContext.observe(
            FetchRequest<MacroPerson>(predicate: #Predicate { $0.email! == "ann@example.com" }))
        var iterator = observation.makeAsyncIterator()
        let ended = await iterator.next()
        #expect(ended == nil)
        #expect(observation.error?.kind == .unsupportedPredicate)
        #expect(stack.store.observations.liveCount == 0)
        #expect(try MacroPerson.count(in: stack.mainContext) == 1, "the store is intact")
    }

    @Test @MainActor func anotherStackOfTheSameFileIsSeenAtOnce() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        let observed = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let other = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let guardTask = watchdog(observed)
        defer { guardTask.cancel() }
        let observation = observed.mainContext.observe(byName)
        var iterator = observation.makeAsyncIterator()
        let valueElement = await iterator.next()
        _ = try #require(valueElement)
        try await other.write { context in context.insert(MacroPerson(name: "From the other stack", age: 1)) }
        let nextElement = await iterator.next()
        let next = try #require(nextElement)
        #expect(next.map(\.name) == ["From the other stack"])
        // Both the in-process hub and the poller may wake it; the fetch that
        // follows sends the new results, any later one finds them unchanged.
        #expect(observation.status.evaluations == 2)
        try other.close()
        try observed.close()
    }

    @Test @MainActor func anotherProcessCommitIsSeenWithinTheInterval() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("processes.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [CLINote.self])
        let guardTask = watchdog(stack)
        defer { guardTask.cancel() }
        let observation = stack.mainContext.observe(FetchRequest<CLINote>())
        var iterator = observation.makeAsyncIterator()
        let initial = await iterator.next()
        #expect(try #require(initial).isEmpty)

        let process = Process()
        process.executableURL = binary
        process.arguments = ["stress-write", url.path, "--rows", "1", "--label", "elsewhere"]
        process.standardOutput = Pipe()
        let finished = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(returning: -1) }
        }
        #expect(finished == 0)
        let committed = ContinuousClock.now
        let nextElement = await iterator.next()
        let next = try #require(nextElement)
        #expect(next.map(\.title) == ["elsewhere-0"])
        let waited = ContinuousClock.now - committed
        // Alone this takes about one interval (0.25 s); the bound leaves room
        // for a loaded machine, where a whole test run can stall for seconds.
        #expect(waited < RecordObservation<CLINote>.crossProcessInterval + .seconds(60), "seen by polling (\(waited))")
        #expect(observation.status.evaluations == 2, "one fetch for the other process's commit")
        try stack.close()
    }

    /// Closing a stack ends its observations cleanly, also
    /// when an observation fetches after the reader pool closed and before the
    /// writer did: no error kept, none logged.
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

    /// Starting an observation never waits for another task's write: reads never wait behind a write, and the first value is the
    /// state before the write commits.
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
                // released, or for 30 s when a regression blocks the releaser.
                _ = release.wait(timeout: .now() + 30)
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
        // Alone this takes milliseconds. A subscription that waited for the
        // write would wait the whole 30 s hold; the margin below it is for a
        // loaded test run, whose other tests can keep both of Swift Testing's
        // threads busy for seconds: a CI run failed the earlier 2 s bound.
        #expect(waited < .seconds(20), "subscribing waited \(waited) for the write")
    }
}

/// What an observing task leaves behind, read after it ended.
@MainActor private final class Probe {
    weak var context: RecordContext?
    var contextIsGone: Bool { context == nil }
    var received = 0
    var loopExited = false
}
