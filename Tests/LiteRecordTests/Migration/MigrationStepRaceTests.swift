#if os(Linux)
import Foundation
import Testing
@testable import LiteRecord

/// The two-process test runs `LiteRecordTestChild open-with-new-step`
/// twice, which opens the store with its copies of `Base.Person` and
/// ``Race/plan``.
private enum Race {
    /// A step added without a model change: it adds one to every age, so
    /// running it twice shows.
    static let plan = MigrationPlan().step("age-up") { db in try db.execute("UPDATE Person SET age = age + 1") }
    /// `Base.people()`'s ages after the step ran once.
    static let agesAfterOneRun: [SQLValue] = [.integer(32), .integer(43), .integer(8)]

    static func ages(_ store: TemporaryStore) throws -> [SQLValue] {
        try store.inspect { try $0.values("Person", ["age"]).map { $0[1] } }
    }

    /// A child that says it is ready (a file `go.ready-<pid>`), waits for
    /// the go file, then opens the store with the plan's new step.
    static func child(store: URL, go: URL) throws -> Process {
        let process = Process()
        process.executableURL = try BuiltExecutables.testChild()
        process.arguments = ["open-with-new-step", store.path, "--go", go.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }
}

/// Docs/Internals/Invariants.md, "A migration is one transaction; each step
/// runs once": each step of a plan runs exactly once per store, even when
/// several processes open it at the same moment. Which steps are pending is
/// read again under the write lock, so an open that was overtaken plans anew.
@Suite struct MigrationStepRaceTests {
    /// Deterministic: another connection runs the new step and commits after
    /// this open planned it and before its transaction began. Before the fix
    /// this open ran the step a second time (every age went up by two).
    @Test func aStepRunByAnotherConnectionWhileThisOpenPlannedRunsOnce() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let overtaken: @Sendable () -> Void = {
            Migrator.$afterPlanning.withValue(nil) {
                do {
                    let other = try store.open([Base.Person.self], plan: Race.plan)
                    #expect(other.lastMigrationReport?.customSteps == ["age-up"])
                    try other.close()
                } catch {
                    Issue.record(error, "the other connection's open failed")
                }
            }
        }
        let stack = try Migrator.$afterPlanning.withValue(overtaken) { try store.open([Base.Person.self], plan: Race.plan) }
        #expect(stack.lastMigrationReport == nil, "this open found the step done and ran nothing")
        #expect(try stack.all(Base.Person.self).map { $0["age"] } == Race.agesAfterOneRun)
        try stack.close()
        #expect(try Race.ages(store) == Race.agesAfterOneRun)
    }

    /// The same when the other connection migrated the model too: this open
    /// plans again, finds the store matching, and changes nothing.
    @Test func aMigrationOvertakenByTheSameMigrationChangesNothing() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().removeEntity("Note").step("age-up") { db in try db.execute("UPDATE Person SET age = age + 1") }
        let overtaken: @Sendable () -> Void = {
            Migrator.$afterPlanning.withValue(nil) {
                do {
                    try store.open([Base.Person.self], plan: plan).close()
                } catch {
                    Issue.record(error, "the other connection's open failed")
                }
            }
        }
        let stack = try Migrator.$afterPlanning.withValue(overtaken) { try store.open([Base.Person.self], plan: plan) }
        #expect(stack.lastMigrationReport == nil)
        try stack.close()
        #expect(try Race.ages(store) == Race.agesAfterOneRun)
        #expect(PreMigrationCopies.kept(of: store.url).count == 1, "one migration kept one copy")
    }

    /// Two processes open the store at the same moment with a new step and an
    /// unchanged model, several times over: both opens succeed and the step
    /// runs once. Before the fix one of them either ran the step again or
    /// failed with "another connection changed … while the migration started".
    @Test(.timeLimit(.minutes(3)))
    func twoProcessesOpeningWithANewStepRunItOnce() async throws {
        for trial in 0..<6 {
            let store = try Base.store()
            defer { store.cleanUp() }
            let go = store.folder.appendingPathComponent("go")
            let children = try (0..<2).map { _ in try Race.child(store: store.url, go: go) }
            for child in children { try child.run() }
            // Both children are up (loading the test binary takes a while) and
            // polling for the go file before it appears.
            func readyCount() throws -> Int {
                try store.files().filter { $0.hasPrefix("go.ready-") }.count
            }
            while try readyCount() < 2 && children.allSatisfy(\.isRunning) {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(FileManager.default.createFile(atPath: go.path, contents: Data()))
            while children.contains(where: \.isRunning) { try await Task.sleep(for: .milliseconds(10)) }
            #expect(children.map(\.terminationStatus) == [0, 0], "trial \(trial): both opens succeeded")
            #expect(try Race.ages(store) == Race.agesAfterOneRun, "trial \(trial): the step ran once")
            #expect(
                try store.inspect { try $0.metadata(MetadataKey.fingerprint) } == Base.Person.fingerprint,
                "trial \(trial): the children opened with this model")
        }
    }
}
#endif
