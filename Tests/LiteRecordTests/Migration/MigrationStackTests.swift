import Foundation
import Testing
@testable import LiteRecord

private enum WithEmail {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            Base.Person.attributes + [attr("email", .string, optional: true)]
        }
    }
}

@Suite("Migration: the stack facade")
struct MigrationStackTests {
    @Test func requiresMigrationIsFalseForAMissingStoreAndCreatesNothing() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self]))
        #expect(try store.files().isEmpty)
    }

    @Test func requiresMigrationComparesModelsWithoutTouchingTheFile() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self]))
        #expect(try RecordStack.requiresMigration(storeAt: store.url, entities: [WithEmail.Person.self]))
        #expect(try RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self, Base.Note.self]))
        #expect(try store.bytes() == bytes)
        #expect(try store.files() == ["Store.sqlite"])
    }

    @Test func requiresMigrationRejectsForeignDatabases() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("CREATE TABLE other (x)") }
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self])
        }
        #expect(error?.kind == .modelMismatch)
    }

    @Test func theSeedCodePatternChoosesTheRightSetup() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let entities: [any Entity.Type] = [WithEmail.Person.self]
        try RecordStack.withDefault(nil) {
            if try RecordStack.requiresMigration(storeAt: store.url, entities: entities) {
                try RecordStack.setupAutoMigrating(storeAt: store.url, entities: entities)
            } else {
                try RecordStack.setup(storeAt: store.url, entities: entities)
            }
            let report = try #require(try RecordStack.current().lastMigrationReport)
            #expect(report.alteredTables == ["Person"])
            #expect(report.actions.contains("added column Person.email"))
            try RecordStack.cleanUp()

            #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: entities))
            try RecordStack.setup(storeAt: store.url, entities: entities)
            #expect(try RecordStack.current().lastMigrationReport == nil)
            try RecordStack.cleanUp()
        }
    }

    @Test func plainSetupStillRefusesAnOlderStore() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack(storeAt: store.url, entities: [WithEmail.Person.self])
        }
        #expect(error?.kind == .modelMismatch)
        #expect(error?.message.contains("Person: attribute 'email' added") == true)
        #expect(try store.bytes() == bytes)
    }

    /// Adding a column loses nothing, so no copy is
    /// written (no disk, no time under the write lock).
    @Test func aMigrationThatLosesNothingTakesNoCopy() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([WithEmail.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.backupURL == nil && report.keptCopyURL == nil)
        #expect(!report.actions.contains { $0.hasPrefix("copied the store") })
        try stack.close()
        #expect(try store.files() == ["Store.sqlite"])
    }

    /// A migration that runs custom steps (any SQL) takes the copy first and
    /// keeps it, whether or not the steps deleted anything.
    @Test func aMigrationWithStepsKeepsItsCopy() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([WithEmail.Person.self], plan: MigrationPlan().step("noop") { _ in })
        let report = try #require(stack.lastMigrationReport)
        let copy = try #require(report.backupURL)
        #expect(copy.lastPathComponent == "Store.sqlite.pre-migration-" + Base.Person.fingerprint)
        #expect(report.actions.contains("copied the store to \(copy.path)"))
        let kept = try #require(report.keptCopyURL)
        #expect(FileManager.default.fileExists(atPath: kept.path))
        try stack.close()
        let old = try RecordStack(storeAt: kept, entities: [Base.Person.self])
        #expect(try old.all(Base.Person.self).count == 3)
        try old.close()
    }

    /// A step added without a model change is a migration
    /// that only the plan shows.
    @Test func requiresMigrationSeesAPlansPendingSteps() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let plan = MigrationPlan().step("age-up") { db in try db.execute("UPDATE Person SET age = age + 1") }
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self]))
        #expect(try RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self], plan: plan))
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self], plan: MigrationPlan()))
        try store.open([Base.Person.self], plan: plan).close()
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self], plan: plan))
        let twice = MigrationPlan().step("a") { _ in }.step("a") { _ in }
        _ = expectError(.migrationFailed) { try RecordStack.requiresMigration(storeAt: store.url, entities: [Base.Person.self], plan: twice) }
    }

    @Test func theReportDescribesWhatHappened() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let stack = try store.open([WithEmail.Person.self], plan: MigrationPlan().removeEntity("Note"))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.fromFingerprint == (try Model(entities: [Base.Person.self, Base.Note.self]).fingerprint))
        #expect(report.toFingerprint == WithEmail.Person.fingerprint)
        #expect(report.changes == ["Person: attribute 'email' added", "Note: entity removed"])
        #expect(report.description.contains("altered Person; dropped Note"))
        #expect(!report.isSchemaUnchanged)
        try stack.close()
    }
}
