import Foundation
import Synchronization
import Testing
@testable import LiteRecord

private enum WithInitials {
    /// Adds a non-optional attribute without a default: only a step can fill it.
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes + [attr("initial", .string)] }
    }
}

private enum NickLength {
    /// Replaces `nick` by its length: a step reads the removed column.
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("score", .double), attr("nickLength", .int),
            ]
        }
    }
}

private enum NickAsNumber {
    /// A type change no migration can infer (string → int).
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .int, optional: true), attr("score", .double),
            ]
        }
    }
}

private enum UniqueScore {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double, [.unique]),
            ]
        }
    }
}

private enum NoteCount {
    /// Drops the Note entity, keeping how many there were on each person.
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes + [attr("noteCount", .int)] }
    }
}

/// Counts how often steps ran, across the `@Sendable` step closures.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite("Migration: custom steps of a MigrationPlan")
struct MigrationPlanTests {
    @Test func stepsRunAfterInferredChangesAndOnlyOnce() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let runs = Counter()
        let plan = MigrationPlan()
            .step("fill-initial") { db in
                runs.increment()
                try db.execute("UPDATE Person SET initial = substr(name, 1, 1)")
            }
        let stack = try store.open([WithInitials.Person.self], plan: plan)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.customSteps == ["fill-initial"])
        #expect(try stack.all(WithInitials.Person.self).map { $0["initial"] } == [.text("A"), .text("B"), .text("C")])
        try stack.close()
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "fill-initial") } != nil)
        #expect(try store.inspect { try $0.columns("Person") }.first { $0.name == "initial" }?.notNull == true)

        // Reopening with the same plan runs nothing again.
        let again = try store.open([WithInitials.Person.self], plan: plan)
        #expect(again.lastMigrationReport == nil)
        try again.close()
        #expect(runs.count == 1)
    }

    @Test func aStepAddedWithoutModelChangeRunsOnce() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("double-ages") { db in try db.execute("UPDATE Person SET age = age * 2") }
        for _ in 0..<2 {
            let stack = try store.open([Base.Person.self], plan: plan)
            #expect(try stack.all(Base.Person.self).map { $0["age"] } == [.integer(62), .integer(84), .integer(14)])
            try stack.close()
        }
    }

    @Test func aNewStoreCountsItsPlanAsDone() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        let runs = Counter()
        let plan = MigrationPlan().step("old-fixup") { _ in runs.increment() }
        try store.open([Base.Person.self], plan: plan).close()
        try store.open([Base.Person.self], plan: plan).close()
        #expect(runs.count == 0)
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "old-fixup") } != nil)
    }

    @Test func aStepReadsARemovedColumnBeforeItIsDropped() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let plan = MigrationPlan().removeAttribute("nick", of: "Person").step("nick-length") { db in
            try db.execute("UPDATE Person SET nickLength = length(coalesce(nick, ''))")
        }
        let stack = try store.open([NickLength.Person.self], plan: plan)
        #expect(try stack.all(NickLength.Person.self).map { $0["nickLength"] } == [.integer(5), .integer(0), .integer(1)])
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person").map(\.name) } == ["Z_PK", "Z_OPT", "name", "age", "score", "nickLength"])
    }

    @Test func aStepReadsARemovedEntityBeforeItsTableIsDropped() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().removeEntity("Note").step("count-notes") { db in
            try db.execute("UPDATE Person SET noteCount = (SELECT COUNT(*) FROM Note)")
        }
        let stack = try store.open([NoteCount.Person.self], plan: plan)
        #expect(stack.lastMigrationReport?.droppedTables == ["Note"])
        #expect(try stack.all(NoteCount.Person.self).map { $0["noteCount"] } == Array(repeating: .integer(2), count: 3))
        try stack.close()
        #expect(try store.inspect { try $0.tableNames() } == ["Person", "literecord_metadata", "literecord_record_ids"])
    }

    @Test func aStepConvertsATypeThatCannotBeInferred() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("nick-to-number") { db in
            // While the steps run the column keeps its old text values.
            let rows = try db.rows("SELECT nick FROM Person ORDER BY Z_PK")
            #expect(rows.map(\.first) == [.text("annie"), .null, .text("c")])
            try db.execute("UPDATE Person SET nick = length(nick)")
        }
        let stack = try store.open([NickAsNumber.Person.self], plan: plan)
        #expect(try stack.all(NickAsNumber.Person.self).map { $0["nick"] } == [.integer(5), .null, .integer(1)])
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person") }.first { $0.name == "nick" }?.type == "INTEGER")
    }

    @Test func aStepThatLeavesWrongTypesFailsTheWholeMigration() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let plan = MigrationPlan().step("forgot-to-convert") { _ in }
        let error = #expect(throws: LiteRecordError.self) { try store.open([NickAsNumber.Person.self], plan: plan) }
        #expect(error?.message.contains("are not stored as int") == true, "\(error?.message ?? "")")
        #expect(try store.bytes() == bytes)
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "forgot-to-convert") } == nil)
    }

    @Test func aStepThatLeavesNullsFailsTheWholeMigration() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let plan = MigrationPlan().step("partial") { db in
            try db.execute("UPDATE Person SET initial = 'x' WHERE name = ?", arguments: ["Ann"])
        }
        let error = #expect(throws: LiteRecordError.self) { try store.open([WithInitials.Person.self], plan: plan) }
        #expect(error?.kind == .migrationFailed)
        #expect(error?.message.contains("left 2 record(s) without a value") == true, "\(error?.message ?? "")")
        #expect(try store.bytes() == bytes)
    }

    @Test func aThrowingStepRollsEverythingBack() throws {
        struct Oops: Error {}
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let plan = MigrationPlan()
            .step("first") { db in try db.execute("DELETE FROM Person") }
            .step("second") { _ in throw Oops() }
        let error = #expect(throws: LiteRecordError.self) { try store.open([WithInitials.Person.self], plan: plan) }
        #expect(error?.message.contains("custom migration step 'second' failed") == true, "\(error?.message ?? "")")
        #expect(try store.bytes() == bytes)
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "first") } == nil)
    }

    @Test func aStepCanRemoveDuplicatesBeforeAUniqueIndexIsBuilt() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("UPDATE Person SET score = 1") }
        let plan = MigrationPlan().step("dedupe-scores") { db in try db.execute("UPDATE Person SET score = Z_PK") }
        let stack = try store.open([UniqueScore.Person.self], plan: plan)
        #expect(stack.lastMigrationReport?.createdIndexes == ["literecord_unique:Person.score"])
        try stack.close()
        #expect(try indexNames(store, "Person").contains("!literecord_unique:Person.score"))
    }

    #if os(Linux)
    // Docs/Internals/Invariants.md, "A migration is one transaction; each step
    // runs once": each step of a plan runs exactly once per store, even when
    // several processes open it at the same moment. Which steps are pending is
    // read again under the write lock, so an open that was overtaken plans anew.

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
    #endif
}

#if os(Linux)

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

#endif
