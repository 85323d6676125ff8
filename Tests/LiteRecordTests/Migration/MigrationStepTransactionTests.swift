import Foundation
import Testing
@testable import LiteRecord

private enum WithEmail {
    /// Base.Person with a new optional `email`: a schema change the migration
    /// makes before the steps run.
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes + [attr("email", .string, optional: true)] }
    }
}

/// A custom step runs inside the migration's one transaction: the rule
/// (Docs/Internals/Invariants.md, "A migration is one transaction; each step runs once") says
/// it may not control that transaction, and that trying fails the migration
/// naming the step with the store as it was.
@Suite struct MigrationStepTransactionTests {
    struct Oops: Error {}

    /// Ways a step could end, restart or nest the migration transaction,
    /// through each entry point `MigrationDatabase` has.
    static let attempts: [(label: String, body: @Sendable (MigrationDatabase) throws -> Void)] = [
        ("COMMIT; BEGIN", { db in try db.execute("UPDATE Note SET title = 'changed'; COMMIT; BEGIN;") }),
        ("END; BEGIN", { db in try db.execute("UPDATE Note SET title = 'changed'; END; BEGIN;") }),
        ("ROLLBACK; BEGIN", { db in try db.execute("UPDATE Note SET title = 'changed'; ROLLBACK; BEGIN;") }),
        ("SAVEPOINT/RELEASE", { db in try db.execute("SAVEPOINT x; UPDATE Note SET title = 'changed'; RELEASE x;") }),
        ("ROLLBACK TO", { db in try db.execute("SAVEPOINT x; ROLLBACK TO x; UPDATE Note SET title = 'changed'") }),
        (
            "bound UPDATE, then COMMIT",
            { db in
                try db.execute("UPDATE Note SET title = ?", arguments: ["changed"])
                try db.execute("COMMIT")
                try db.execute("BEGIN")
            }
        ),
        (
            "COMMIT through rows",
            { db in
                try db.execute("UPDATE Note SET title = 'changed'")
                _ = try db.rows("COMMIT")
                _ = try db.rows("BEGIN IMMEDIATE")
            }
        ),
        (
            "COMMIT with the error caught",
            { db in
                try db.execute("UPDATE Note SET title = 'changed'")
                try? db.execute("COMMIT")
                try? db.execute("BEGIN")
            }
        ),
    ]

    /// The issue's scenario: a step commits and begins again, and a later
    /// step fails. Before the fix the error said "rolled back" while every
    /// title was `changed` in the file.
    @Test(arguments: MigrationStepTransactionTests.attempts.indices)
    func aStepThatControlsTheTransactionFailsTheMigrationAndChangesNothing(_ index: Int) throws {
        let (label, body) = Self.attempts[index]
        for followedByFailingStep in [true, false] {
            let store = try Base.store(withNotes: true)
            defer { store.cleanUp() }
            let bytes = try store.bytes()
            var plan = MigrationPlan().step("touch-titles", body)
            if followedByFailingStep { plan = plan.step("fail") { _ in throw Oops() } }

            let error = #expect(throws: LiteRecordError.self, "\(label)") {
                try store.open([WithEmail.Person.self, Base.Note.self], plan: plan)
            }
            #expect(error?.kind == .migrationFailed, "\(label)")
            let message = error?.message ?? ""
            #expect(message.contains("custom migration step 'touch-titles' tried to control the transaction"), "\(label): \(message)")

            #expect(try store.inspect { try $0.values("Note", ["title"]).map { $0[1] } } == [.text("first"), .text("second")], "\(label)")
            #expect(try store.inspect { try $0.columns("Person").map(\.name) }.contains("email") == false, "\(label)")
            #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "touch-titles") } == nil, "\(label)")
            #expect(try store.bytes() == bytes, "\(label): the file is byte-identical")
            // Still the old model: it opens without migrating.
            let stack = try RecordStack(storeAt: store.url, entities: [Base.Person.self, Base.Note.self])
            #expect(try stack.all(Base.Note.self).map { $0["title"] } == [.text("first"), .text("second")], "\(label)")
            try stack.close()
        }
    }

    /// The same refusal when the model is unchanged and the step is all the
    /// migration does.
    @Test func aStepOnlyMigrationThatCommitsIsRefusedToo() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("touch-titles") { db in try db.execute("UPDATE Note SET title = 'changed'; COMMIT") }
        let error = #expect(throws: LiteRecordError.self) { try store.open([Base.Person.self, Base.Note.self], plan: plan) }
        #expect(error?.message.contains("custom migration step 'touch-titles' tried to control the transaction (COMMIT)") == true, "\(error?.message ?? "")")
        #expect(try store.inspect { try $0.values("Note", ["title"]).map { $0[1] } } == [.text("first"), .text("second")])
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "touch-titles") } == nil)
    }

    /// The refusal lasts only while steps run: the rest of the stack still
    /// uses transactions, and a step that does not control them still runs.
    @Test func transactionsWorkAgainAfterTheSteps() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("touch-titles") { db in try db.execute("UPDATE Note SET title = title || '!'") }
        let stack = try store.open([WithEmail.Person.self, Base.Note.self], plan: plan)
        #expect(stack.lastMigrationReport?.customSteps == ["touch-titles"])
        let context = stack.newContext()
        context.insert(Base.Note(["title": .text("third")]))
        try context.save()
        #expect(try stack.all(Base.Note.self).map { $0["title"] } == [.text("first!"), .text("second!"), .text("third")])
        try stack.close()
    }
}
