import Foundation
import Testing
@testable import LiteRecord

// Model versions N+1 for each inferable row of Docs/Migration.md's table of
// inferred changes.
// Each store is written by `Base` (version N) and reopened with these.

private enum EntityAdded {
    final class Note: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string, [.unique])] }
    }
}

private enum EntityRenamed {
    final class Human: Versioned {
        static let entityOriginalName: String? = "Person"
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Base.Person.attributes }
    }
}

private enum AttributeAdded {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            Base.Person.attributes + [
                attr("email", .string, optional: true),
                attr("level", .int, default: .integer(7)),
                attr("motto", .string, default: .text("it's")),
                attr("ratio", .double, optional: true, default: .real(0.5)),
                attr("tag", .data, [.indexed], default: .blob(Data([1, 2]))),
            ]
        }
    }
}

private enum AttributeAddedUnliteralDefault {
    final class Person: Versioned {
        // ADD COLUMN cannot take a default with a NUL byte: this goes through a rebuild.
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            Base.Person.attributes + [attr("code", .string, default: .text("a\u{0}b"))]
        }
    }
}

private enum AttributeRemoved {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [attr("name", .string, [.unique]), attr("age", .int, [.indexed]), attr("score", .double)]
        }
    }
}

private enum IndexedAttributeRemoved {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [attr("name", .string, [.unique]), attr("nick", .string, optional: true), attr("score", .double)]
        }
    }
}

private enum AttributeRenamed {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]),
                attr("years", .int, [.indexed], was: "age"),
                attr("nickname", .string, optional: true, was: "nick"),
                attr("score", .double),
            ]
        }
    }
}

private enum BecameNonOptional {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, default: .text("none")), attr("score", .double),
            ]
        }
    }
}

private enum BecameOptional {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double, optional: true),
            ]
        }
    }
}

private enum NumericTypes {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .double, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .int),
            ]
        }
    }
}

private enum IntegerWidth {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int8, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .float),
            ]
        }
    }
}

private enum IndexesChanged {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.indexed]), attr("age", .int, [.unique]),
                attr("nick", .string, optional: true, [.unique, .indexed]), attr("score", .double),
            ]
        }
    }
}

private enum CaseOnly {
    enum V1 {
        final class Person: Versioned {
            static let entityName = "person"
            var recordState = RecordState()
            var values: [SQLValue]
            init(values: [SQLValue]) { self.values = values }
            static var attributes: [AttributeDescription] { [attr("name", .string), attr("nick", .string, optional: true, [.indexed])] }
        }
    }

    enum V2 {
        final class Person: Versioned {
            static let entityOriginalName: String? = "person"
            var recordState = RecordState()
            var values: [SQLValue]
            init(values: [SQLValue]) { self.values = values }
            static var attributes: [AttributeDescription] {
                [attr("name", .string), attr("Nick", .string, optional: true, [.indexed], was: "nick")]
            }
        }
    }
}

@Suite("Migration: every inferable change")
struct MigrationInferenceTests {
    /// Names, ages, nicks and scores of `Base.people()`, in row order.
    let names: [SQLValue] = [.text("Ann"), .text("Bob"), .text("Cid")]

    @Test func entityAddedCreatesItsTableAndIndexes() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([Base.Person.self, EntityAdded.Note.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdTables == ["Note"])
        #expect(report.createdIndexes == ["literecord_unique:Note.title"])
        #expect(try stack.all(Base.Person.self).map { $0["name"] } == names)
        let context = stack.newContext()
        context.insert(EntityAdded.Note(["title": .text("hi")]))
        try context.save()
        try stack.close()
        #expect(try indexNames(store, "Note") == ["!literecord_unique:Note.title"])
    }

    @Test func entityRemovedDropsItsTable() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        // Its notes are deleted with it, so the removal must be declared
        // (MigrationRemovalTests covers the refusal).
        let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
        #expect(stack.lastMigrationReport?.droppedTables == ["Note"])
        #expect(try stack.all(Base.Person.self).count == 3)
        try stack.close()
        try store.inspect { connection throws in
            #expect(try !connection.tableExists("Note"))
            #expect(try connection.strings("SELECT name FROM sqlite_schema WHERE tbl_name = 'Note'").isEmpty)
        }
    }

    @Test func entityRenamedKeepsRowsAndRenamesIndexes() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let before = try store.inspect { try $0.values("Person", ["name", "age", "nick", "score"]) }
        let stack = try store.open([EntityRenamed.Human.self])
        #expect(stack.lastMigrationReport?.renamedTables == [.init(from: "Person", to: "Human")])
        #expect(try stack.all(EntityRenamed.Human.self).map { $0["name"] } == names)
        try stack.close()
        try store.inspect { connection throws in
            #expect(try !connection.tableExists("Person"))
            #expect(try connection.values("Human", ["name", "age", "nick", "score"]) == before)
        }
        #expect(try indexNames(store, "Human") == ["!literecord_unique:Human.name", "literecord_index:Human.age"])
    }

    @Test func attributeAddedOptionalOrWithDefaultIsAnAddColumn() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([AttributeAdded.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.alteredTables == ["Person"])
        #expect(report.rebuiltTables.isEmpty)
        let people = try stack.all(AttributeAdded.Person.self)
        #expect(people.count == 3)
        for person in people {
            #expect(person["email"] == .null)
            #expect(person["level"] == .integer(7))
            #expect(person["motto"] == .text("it's"))
            #expect(person["ratio"] == .real(0.5))
            #expect(person["tag"] == .blob(Data([1, 2])))
        }
        #expect(people.map { $0["nick"] } == [.text("annie"), .null, .text("c")])
        try stack.close()
        #expect(try indexNames(store, "Person").contains("literecord_index:Person.tag"))
        let columns = try store.inspect { try $0.columns("Person") }
        #expect(columns.first { $0.name == "level" }?.notNull == true)
        #expect(columns.first { $0.name == "email" }?.notNull == false)
    }

    @Test func attributeAddedWithDefaultThatIsNoLiteralRebuilds() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([AttributeAddedUnliteralDefault.Person.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        #expect(try stack.all(AttributeAddedUnliteralDefault.Person.self).map { $0["code"] } == Array(repeating: .text("a\u{0}b"), count: 3))
        try stack.close()
    }

    @Test func attributeRemovedIsADropColumn() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([AttributeRemoved.Person.self], plan: MigrationPlan().removeAttribute("nick", of: "Person"))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.alteredTables == ["Person"])
        #expect(report.rebuiltTables.isEmpty)
        #expect(try stack.all(AttributeRemoved.Person.self).map { $0["score"] } == [.real(1.5), .real(2.25), .real(-3.75)])
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person").map(\.name) } == ["Z_PK", "Z_OPT", "name", "age", "score"])
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name", "literecord_index:Person.age"])
    }

    @Test func indexedAttributeRemovedRebuildsAndKeepsRecordIDs() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        // Gaps in Z_PK must survive the rebuild: record IDs are Z_PK values.
        try store.inspect { try $0.execute("DELETE FROM Person WHERE name = 'Ann'") }
        let stack = try store.open([IndexedAttributeRemoved.Person.self], plan: MigrationPlan().removeAttribute("age", of: "Person"))
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        #expect(stack.lastMigrationReport?.droppedIndexes == ["literecord_index:Person.age"])
        try stack.close()
        try store.inspect { connection throws in
            #expect(try connection.columns("Person").map(\.name) == ["Z_PK", "Z_OPT", "name", "nick", "score"])
            #expect(
                try connection.values("Person", ["name", "nick"]) == [
                    [.integer(2), .text("Bob"), .null], [.integer(3), .text("Cid"), .text("c")],
                ])
        }
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name"])
    }

    @Test func attributeRenamedIsARenameColumn() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([AttributeRenamed.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.alteredTables == ["Person"])
        #expect(report.rebuiltTables.isEmpty)
        let people = try stack.all(AttributeRenamed.Person.self)
        #expect(people.map { $0["years"] } == [.integer(31), .integer(42), .integer(7)])
        #expect(people.map { $0["nickname"] } == [.text("annie"), .null, .text("c")])
        try stack.close()
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name", "literecord_index:Person.years"])
    }

    @Test func optionalBecomingNonOptionalFillsNullsWithTheDefault() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([BecameNonOptional.Person.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        #expect(try stack.all(BecameNonOptional.Person.self).map { $0["nick"] } == [.text("annie"), .text("none"), .text("c")])
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person") }.first { $0.name == "nick" }?.notNull == true)
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name", "literecord_index:Person.age"])
    }

    @Test func nonOptionalBecomingOptionalRebuilds() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([BecameOptional.Person.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        let context = stack.newContext()
        context.insert(BecameOptional.Person(["name": .text("Dee"), "age": .integer(1)]))
        try context.save()
        #expect(try stack.all(BecameOptional.Person.self).map { $0["score"] } == [.real(1.5), .real(2.25), .real(-3.75), .null])
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person") }.first { $0.name == "score" }?.notNull == false)
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name", "literecord_index:Person.age"])
    }

    @Test func numericTypeChangesRebuildWithCast() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        // Only values an integer holds exactly convert (see MigrationConversionTests).
        try store.inspect { try $0.execute("UPDATE Person SET score = CAST(score AS INTEGER)") }
        let stack = try store.open([NumericTypes.Person.self])
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        let people = try stack.all(NumericTypes.Person.self)
        #expect(people.map { $0["age"] } == [.real(31), .real(42), .real(7)])
        #expect(people.map { $0["score"] } == [.integer(1), .integer(2), .integer(-3)])
        try stack.close()
        let columns = try store.inspect { try $0.columns("Person") }
        #expect(columns.map(\.type) == ["INTEGER", "INTEGER", "TEXT", "REAL", "TEXT", "INTEGER"])
        #expect(try indexNames(store, "Person") == ["!literecord_unique:Person.name", "literecord_index:Person.age"])
    }

    @Test func integerWidthChangeWithinRangeNeedsNoRewrite() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([IntegerWidth.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.rebuiltTables.isEmpty && report.alteredTables.isEmpty)
        #expect(try stack.all(IntegerWidth.Person.self).map { $0["age"] } == [.integer(31), .integer(42), .integer(7)])
        try stack.close()
    }

    @Test func uniqueAndIndexChangesCreateAndDropIndexes() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([IndexesChanged.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.rebuiltTables.isEmpty && report.alteredTables.isEmpty)
        #expect(Set(report.droppedIndexes) == ["literecord_unique:Person.name", "literecord_index:Person.age"])
        #expect(report.createdIndexes.count == 4)
        #expect(try stack.all(IndexesChanged.Person.self).count == 3)
        try stack.close()
        #expect(
            try indexNames(store, "Person") == [
                "literecord_index:Person.name", "!literecord_unique:Person.age",
                "!literecord_unique:Person.nick", "literecord_index:Person.nick",
            ])
    }

    @Test func caseOnlyRenamesGoThroughATemporaryNameOrARebuild() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.write(
            [CaseOnly.V1.Person.self],
            [
                CaseOnly.V1.Person(["name": .text("Ann"), "nick": .text("a")]), CaseOnly.V1.Person(["name": .text("Bob")]),
            ])
        let stack = try store.open([CaseOnly.V2.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.renamedTables == [.init(from: "person", to: "Person")])
        #expect(report.rebuiltTables == ["Person"])
        #expect(try stack.all(CaseOnly.V2.Person.self).map { $0["Nick"] } == [.text("a"), .null])
        try stack.close()
        try store.inspect { connection throws in
            #expect(try connection.tableNames() == ["Person", "literecord_metadata", "literecord_record_ids"])
            #expect(try connection.columns("Person").map(\.name) == ["Z_PK", "Z_OPT", "name", "Nick"])
        }
        #expect(try indexNames(store, "Person") == ["literecord_index:Person.Nick"])
    }

    @Test func storeRecordsTheNewModelAndReopensWithoutMigrating() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.open([AttributeRenamed.Person.self]).close()
        let again = try RecordStack(storeAt: store.url, entities: [AttributeRenamed.Person.self])
        #expect(again.lastMigrationReport == nil)
        #expect(try again.all(AttributeRenamed.Person.self).count == 3)
        try again.close()
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [AttributeRenamed.Person.self]))
        #expect(try store.files() == ["Store.sqlite"])
    }
}
