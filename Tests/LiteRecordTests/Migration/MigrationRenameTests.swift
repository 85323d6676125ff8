import Foundation
import Testing
@testable import LiteRecord

/// Renames through the one stored-name map: an
/// entity rename reaches the relationships pointing at it and the join
/// tables named after it, and renaming hints decide before names do.
@Suite("Migration: renames follow hints everywhere")
struct MigrationRenameTests {
    /// Writes shelves, books on them (to-one) and tags, with the shelves'
    /// many-to-many `favourites` of tags.
    private func writeShelves(_ store: TemporaryStore) throws {
        let stack = try RecordStack(storeAt: store.url, entities: [Shelves.Shelf.self, Shelves.Book.self, Tag.self])
        let context = stack.newContext()
        let shelves = ["top", "bottom"].map { label in Shelves.Shelf(["label": .text(label)]) }
        let books = ["Dune", "Emma", "Ulysses"].map { title in Shelves.Book(["title": .text(title)]) }
        let tags = ["old", "new"].map { label in Tag(["label": .text(label)]) }
        for object in shelves as [any Entity] + books + tags { context.insert(object) }
        for (index, book) in books.enumerated() { book.setRelatedObject(shelves[index % 2], at: 0) }
        shelves[0].setRelatedObjects(tags, at: 0)
        shelves[1].setRelatedObjects([tags[1]], at: 0)
        try context.save()
        try stack.close()
    }

    @Test func anEntityRenameReachesToOnesAndJoinTables() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try writeShelves(store)
        let entities: [any Entity.Type] = [Bookcases.Bookcase.self, Bookcases.Book.self, Tag.self]
        let stack = try store.open(entities)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.renamedTables.map(\.to) == ["Bookcase"])
        #expect(report.droppedTables.isEmpty)
        let context = stack.newContext()
        let books = try stack.all(Bookcases.Book.self, in: context)
        #expect(books.map { $0.relatedObject(at: 0, as: Bookcases.Bookcase.self)?["label"] } == [.text("top"), .text("bottom"), .text("top")])
        let cases = try stack.all(Bookcases.Bookcase.self, in: context)
        #expect(cases.map { Set($0.relatedObjects(at: 0, as: Tag.self).map { $0["label"] }) } == [[.text("old"), .text("new")], [.text("new")]])
        try stack.close()
        let (oldTable, columns, violations) = try store.inspect { connection in
            (
                try connection.tableExists("Shelf_favourites"), try connection.columns("Bookcase_favourites").map(\.name),
                try connection.rows("PRAGMA foreign_key_check")
            )
        }
        #expect(!oldTable && columns == ["Bookcase", "Tag"] && violations.isEmpty)
        // The migrated store opens unchanged with the new model.
        try RecordStack(storeAt: store.url, entities: entities).close()
    }

    /// v1 `name`; v2 `@Attribute(originalName: "name") var fullName` plus a
    /// new `name`: the full names move to `fullName`, `name` starts empty.
    @Test func aHintClaimsItsNameBeforeTheNewModelReusesIt() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([NameReused.Person.self])
        let people = try stack.all(NameReused.Person.self)
        #expect(people.map { $0["fullName"] } == [.text("Ann"), .text("Bob"), .text("Cid")])
        #expect(people.map { $0["name"] } == [.null, .null, .null])
        #expect(stack.lastMigrationReport?.changes.contains("Person: attribute 'name' renamed to 'fullName'") == true)
        try stack.close()
        // Reopened by the same model: the store is past the rename.
        let again = try RecordStack(storeAt: store.url, entities: [NameReused.Person.self])
        #expect(try again.all(NameReused.Person.self).map { $0["fullName"] } == [.text("Ann"), .text("Bob"), .text("Cid")])
        try again.close()
    }

    /// Swapping two attributes' names with hints is a migration (the
    /// fingerprint, which leaves hints out, is the same) and swaps the values.
    @Test func swappingTwoNamesWithHintsSwapsTheValues() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.write([Swapped.Before.self], [Swapped.Before(["first": .text("a"), "second": .text("b")])])
        #expect(Swapped.Before.fingerprint == Swapped.After.fingerprint)
        #expect(try RecordStack.requiresMigration(storeAt: store.url, entities: [Swapped.After.self]))
        let plain = expectError(.modelMismatch) { try RecordStack(storeAt: store.url, entities: [Swapped.After.self]) }
        #expect(plain?.message.contains("attribute 'second' renamed to 'first'") == true)
        let stack = try store.open([Swapped.After.self])
        let values = try stack.all(Swapped.After.self).first
        #expect(values?["first"] == .text("b") && values?["second"] == .text("a"))
        try stack.close()
        #expect(try !RecordStack.requiresMigration(storeAt: store.url, entities: [Swapped.After.self]))
    }

    @Test func twoHintsClaimingOneStoredNameAreRefused() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let error = expectError(.migrationFailed) { try store.open([TwoClaims.Person.self]) }
        #expect(error?.message.contains("attributes 'first' and 'second' both continue the stored attribute 'name'") == true, "\(error?.message ?? "")")
        #expect(try store.bytes() == bytes)
    }
}

private final class Tag: Versioned {
    var recordState = RecordState()
    var values: [SQLValue]
    init(values: [SQLValue]) { self.values = values }
    static var attributes: [AttributeDescription] { [attr("label", .string)] }
}

private enum Shelves {
    final class Shelf: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("label", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("favourites", toMany: Tag.self)] }
    }

    final class Book: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("shelf", toOne: Shelf.self)] }
    }
}

/// `Shelf` renamed `Bookcase` (`@Entity(name: "Bookcase", originalName: "Shelf")`).
private enum Bookcases {
    final class Bookcase: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var entityOriginalName: String? { "Shelf" }
        static var attributes: [AttributeDescription] { [attr("label", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("favourites", toMany: Tag.self)] }
    }

    final class Book: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("title", .string)] }
        static var relationships: [RelationshipDescription] { [RelationshipDescription("shelf", toOne: Bookcase.self)] }
    }
}

private enum NameReused {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("fullName", .string, [.unique], was: "name"), attr("name", .string, optional: true),
                attr("age", .int, [.indexed]), attr("nick", .string, optional: true), attr("score", .double),
            ]
        }
    }
}

private enum Swapped {
    final class Before: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var entityName: String { "Pair" }
        static var attributes: [AttributeDescription] { [attr("first", .string), attr("second", .string)] }
    }

    final class After: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var entityName: String { "Pair" }
        static var attributes: [AttributeDescription] {
            [attr("first", .string, was: "second"), attr("second", .string, was: "first")]
        }
    }
}

private enum TwoClaims {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("first", .string, optional: true, was: "name"), attr("second", .string, optional: true, was: "name"),
                attr("age", .int, [.indexed]), attr("nick", .string, optional: true), attr("score", .double),
            ]
        }
    }
}
