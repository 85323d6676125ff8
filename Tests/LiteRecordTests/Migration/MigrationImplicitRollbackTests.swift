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

/// A statement can end the migration transaction without
/// `COMMIT` or `ROLLBACK` (an `INSERT OR ROLLBACK` hitting a constraint, a
/// trigger's `RAISE(ROLLBACK)`). A step that swallows that error and goes on
/// must not commit its remaining statements one by one; the migration fails
/// and the store holds what it held before, as the error says.
@Suite struct MigrationImplicitRollbackTests {
    /// Steps that end the transaction through an implicit rollback, swallow
    /// the error, and go on writing.
    static let steps: [(label: String, body: @Sendable (MigrationDatabase) throws -> Void)] = [
        (
            "INSERT OR ROLLBACK, then UPDATE",
            { db in
                try? db.execute("INSERT OR ROLLBACK INTO Note(Z_PK, title) SELECT Z_PK, title FROM Note LIMIT 1")
                try db.execute("UPDATE Note SET title = 'changed'")
            }
        ),
        (
            "RAISE(ROLLBACK) in a trigger, then UPDATE",
            { db in
                try db.execute("CREATE TRIGGER refuse BEFORE UPDATE OF body ON Note BEGIN SELECT RAISE(ROLLBACK, 'refused'); END")
                try? db.execute("UPDATE Note SET body = 'x'")
                try db.execute("UPDATE Note SET title = 'changed'")
            }
        ),
        (
            "every error swallowed",
            { db in
                try? db.execute("INSERT OR ROLLBACK INTO Note(Z_PK, title) SELECT Z_PK, title FROM Note LIMIT 1")
                try? db.execute("UPDATE Note SET title = 'changed'")
                try? db.execute("INSERT INTO Note(title) VALUES ('third')")
            }
        ),
    ]

    @Test(arguments: MigrationImplicitRollbackTests.steps.indices)
    func aStepWhoseTransactionEndsChangesNothing(_ index: Int) throws {
        let (label, body) = Self.steps[index]
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("touch-titles", body)

        let error = #expect(throws: LiteRecordError.self, "\(label)") {
            try store.open([WithEmail.Person.self, Base.Note.self], plan: plan)
        }
        #expect(error?.kind == .migrationFailed, "\(label)")
        let message = error?.message ?? ""
        #expect(message.contains("custom migration step 'touch-titles' ended the migration transaction"), "\(label): \(message)")
        #expect(message.contains("is as it was before"), "\(label): \(message)")

        // The error's word holds: nothing of the step or the migration reached the file.
        #expect(try store.inspect { try $0.values("Note", ["title"]).map { $0[1] } } == [.text("first"), .text("second")], "\(label)")
        #expect(try store.inspect { try $0.columns("Person").map(\.name) }.contains("email") == false, "\(label)")
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "touch-titles") } == nil, "\(label)")
        let stack = try RecordStack(storeAt: store.url, entities: [Base.Person.self, Base.Note.self])
        #expect(try stack.all(Base.Note.self).map { $0["title"] } == [.text("first"), .text("second")], "\(label)")
        try stack.close()
    }

    /// A step-only migration (the model unchanged) is refused the same way.
    @Test func aStepOnlyMigrationWhoseTransactionEndsChangesNothing() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("touch-titles", Self.steps[0].body)
        let error = #expect(throws: LiteRecordError.self) { try store.open([Base.Person.self, Base.Note.self], plan: plan) }
        #expect(error?.message.contains("ended the migration transaction") == true, "\(error?.message ?? "")")
        #expect(try store.inspect { try $0.values("Note", ["title"]).map { $0[1] } } == [.text("first"), .text("second")])
        #expect(try store.inspect { try $0.metadata(MetadataKey.migrationStepPrefix + "touch-titles") } == nil)
    }

    /// A constraint error that does not end the transaction (plain `INSERT`,
    /// `INSERT OR ABORT`) is still the step's to catch: the migration goes on.
    @Test func aCaughtErrorThatKeepsTheTransactionStillMigrates() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("touch-titles") { db in
            try? db.execute("INSERT INTO Note(Z_PK, title) SELECT Z_PK, title FROM Note LIMIT 1")
            try db.execute("UPDATE Note SET title = 'changed'")
        }
        let stack = try store.open([WithEmail.Person.self, Base.Note.self], plan: plan)
        #expect(stack.lastMigrationReport?.customSteps == ["touch-titles"])
        #expect(try stack.all(Base.Note.self).map { $0["title"] } == [.text("changed"), .text("changed")])
        try stack.close()
    }
}
