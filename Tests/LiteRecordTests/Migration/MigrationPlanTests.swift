import Foundation
import Synchronization
import Testing
@testable import LiteRecord

private enum WithInitials {
    /// Adds a non-optional attribute without a default: only a step can fill it.
    final class Person: Versioned {
        let recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes + [attr("initial", .string)] }
    }
}

private enum NickLength {
    /// Replaces `nick` by its length: a step reads the removed column.
    final class Person: Versioned {
        let recordState = RecordState()
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
        let recordState = RecordState()
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
        let recordState = RecordState()
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
        let recordState = RecordState()
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
}
