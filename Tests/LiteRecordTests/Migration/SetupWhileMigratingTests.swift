import Foundation
import Testing
@testable import LiteRecord

/// `setup…` opens and migrates the store without holding the default slot's
/// lock: a migration step may call the facade, another thread may read the
/// default stack meanwhile, and of two setups at once the second still gets
/// `.alreadySetUp`. Each setup runs on a thread of its own, awaited with a
/// time limit, so a regression fails instead of hanging.
@Suite(.tags(.threads)) struct SetupWhileMigratingTests {
    /// What the migration step saw.
    struct Seen: Sendable {
        var stepRan = false
        var otherThreadAnswered = false
        var otherThreadSawSetUp: Bool?
        var ownCallError: LiteRecordError.Kind?
    }

    /// A store written by the model, so that a plan's new step runs at the next setup.
    private func makeStore(in folder: TemporaryDirectory) throws -> URL {
        let url = folder.file("People.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        try stack.close()
        return url
    }

    @Test func aMigrationStepMayCallTheFacadeWhileOthersReadIt() async throws {
        let folder = try TemporaryDirectory()
        let url = try makeStore(in: folder)
        let seen = Shared(Seen())
        let plan = MigrationPlan().step("asks the facade") { _ in
            seen.value.stepRan = true
            // Another thread of the same scope asks whether a default stack is set
            // up: it must be answered now, not after the migration.
            let slot = RecordStack.slot
            let answered = DispatchSemaphore(value: 0)
            Thread {
                let isSetUp = RecordStack.$taskSlot.withValue(slot) { RecordStack.isSetUp }
                seen.value.otherThreadSawSetUp = isSetUp
                answered.signal()
            }.start()
            seen.value.otherThreadAnswered = answered.wait(timeout: .now() + 20) == .success
            // The step's own thread: not set up yet, said with an error, not a
            // trap or a wait for itself.
            do {
                _ = try RecordStack.current()
            } catch let error as LiteRecordError {
                seen.value.ownCallError = error.kind
            }
        }
        let setUp = try await finishingOnThread(within: 60) { () throws -> Bool in
            try RecordStack.withDefault(nil) {
                try RecordStack.setupAutoMigrating(storeAt: url, entities: [HandWrittenPerson.self], plan: plan)
                defer { try? RecordStack.cleanUp() }
                return RecordStack.isSetUp
            }
        }
        #expect(setUp == true, "the setup did not finish within 60 s: it waits for its own migration step")
        #expect(seen.value.stepRan)
        #expect(seen.value.otherThreadAnswered, "another thread waited for the whole migration to ask whether LiteRecord is set up")
        #expect(seen.value.otherThreadSawSetUp == false)
        #expect(seen.value.ownCallError == .notSetUp)
    }

    @Test func aSetupThatLosesTheRaceClosesItsStoreAndThrowsAlreadySetUp() async throws {
        let folder = try TemporaryDirectory()
        let url = try makeStore(in: folder)
        // While the file store migrates, another setup of the same scope
        // installs an in-memory stack first.
        let plan = MigrationPlan().step("another setup gets there first") { _ in
            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
        }
        let outcome = try await finishingOnThread(within: 60) { () -> (kind: LiteRecordError.Kind?, defaultIsInMemory: Bool) in
            RecordStack.withDefault(nil) {
                var kind: LiteRecordError.Kind?
                do {
                    try RecordStack.setupAutoMigrating(storeAt: url, entities: [HandWrittenPerson.self], plan: plan)
                } catch let error as LiteRecordError {
                    kind = error.kind
                } catch {}
                let current = try? RecordStack.current()
                defer { try? RecordStack.cleanUp() }
                return (kind, current != nil && current?.storeURL == nil)
            }
        }
        let result = try #require(outcome, "the setup did not finish within 60 s")
        #expect(result.kind == .alreadySetUp)
        #expect(result.defaultIsInMemory, "the stack installed first stays the default")
        // The losing setup's store was closed: closing its last connection
        // checkpointed and removed the -wal file.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }
}
