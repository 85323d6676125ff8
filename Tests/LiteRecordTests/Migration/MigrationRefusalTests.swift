import Foundation
import Testing
@testable import LiteRecord

private enum AddedRequired {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes + [attr("city", .string)] }
    }
}

private enum StringToInt {
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

private enum IntToString {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .string, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double),
            ]
        }
    }
}

private enum DoubleToDate {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .date),
            ]
        }
    }
}

private enum NonOptionalWithoutDefault {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string), attr("score", .double),
            ]
        }
    }
}

private enum NarrowedOutOfRange {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .uint8, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double),
            ]
        }
    }
}

private enum UniqueOverDuplicates {
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

private enum TwoRefusals {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .data, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double), attr("city", .string),
            ]
        }
    }
}

@Suite("Migration: refused changes leave the store byte-identical")
struct MigrationRefusalTests {
    /// Writes `Base`, tries to open it with `entities`, and checks that the
    /// open fails with `.migrationFailed` mentioning `reason`, and that the
    /// file and folder are exactly as before.
    func expectRefusal(
        _ entities: [any Entity.Type], plan: MigrationPlan? = nil, mentioning reason: String,
        prepare: (TemporaryStore) throws -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try prepare(store)
        let bytes = try store.bytes()
        let files = try store.files()
        let error = #expect(throws: LiteRecordError.self, sourceLocation: sourceLocation) {
            try store.open(entities, plan: plan)
        }
        #expect(error?.kind == .migrationFailed, sourceLocation: sourceLocation)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(try store.bytes() == bytes, "the store file changed", sourceLocation: sourceLocation)
        #expect(try store.files() == files, sourceLocation: sourceLocation)
        // Still the old model, fully readable.
        let old = try RecordStack(storeAt: store.url, entities: [Base.Person.self])
        #expect(try old.all(Base.Person.self).count >= 2, sourceLocation: sourceLocation)
        try old.close()
    }

    @Test func nonOptionalAttributeAddedWithoutDefault() throws {
        try expectRefusal(
            [AddedRequired.Person.self], mentioning: "attribute 'city' was added as non-optional without a default value")
    }

    @Test func stringBecomingInteger() throws {
        try expectRefusal([StringToInt.Person.self], mentioning: "attribute 'nick' changed type from string to int")
    }

    @Test func integerBecomingString() throws {
        try expectRefusal([IntToString.Person.self], mentioning: "attribute 'age' changed type from int to string")
    }

    @Test func doubleBecomingDate() throws {
        try expectRefusal([DoubleToDate.Person.self], mentioning: "changed type from double to date")
    }

    @Test func optionalBecomingNonOptionalWithoutDefaultOverNulls() throws {
        try expectRefusal(
            [NonOptionalWithoutDefault.Person.self], mentioning: "1 stored record(s) hold no value for it")
    }

    @Test func optionalBecomingNonOptionalWithoutDefaultIsFineWithoutNulls() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("UPDATE Person SET nick = 'b' WHERE nick IS NULL") }
        let stack = try store.open([NonOptionalWithoutDefault.Person.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        #expect(try stack.all(NonOptionalWithoutDefault.Person.self).map { $0["nick"] } == [.text("annie"), .text("b"), .text("c")])
        try stack.close()
    }

    @Test func integerNarrowedBelowStoredValues() throws {
        try expectRefusal(
            [NarrowedOutOfRange.Person.self], mentioning: "record Person Z_PK = 2 cannot be held exactly by uint8",
            prepare: { store in try store.inspect { try $0.execute("UPDATE Person SET age = 300 WHERE name = 'Bob'") } })
    }

    @Test func everyRefusalIsListedAtOnce() throws {
        try expectRefusal([TwoRefusals.Person.self], mentioning: "attribute 'city' was added")
        try expectRefusal([TwoRefusals.Person.self], mentioning: "attribute 'name' changed type from string to data")
    }

    @Test func uniqueOverDuplicatesFailsCleanly() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("UPDATE Person SET score = 2.25") }
        let bytes = try store.bytes()
        let error = #expect(throws: LiteRecordError.self) { try store.open([UniqueOverDuplicates.Person.self]) }
        #expect(error?.kind == .migrationFailed)
        let message = error?.message ?? ""
        #expect(message.contains("attribute 'score' cannot become unique"), "\(message)")
        #expect(message.contains("rolled back"))
        #expect(try store.bytes() == bytes)
        // A migration that can lose nothing takes no copy: the rolled-back
        // transaction is the way back, and the message names no copy.
        #expect(!message.contains("pre-migration"), "\(message)")
        #expect(try store.files() == ["Store.sqlite"])
    }

    @Test func planWithDuplicateStepNamesIsRefused() throws {
        let plan = MigrationPlan().step("a") { _ in }.step("a") { _ in }
        try expectRefusal([AddedRequired.Person.self], plan: plan, mentioning: "two steps named 'a'")
    }
}
