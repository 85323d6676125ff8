import Foundation
import Testing
import LiteRecord

/// Migrations that add, keep, remove and change relationships.
@Suite struct RelationshipMigrationTests {
    let folder: TemporaryDirectory
    let url: URL

    init() throws {
        folder = try TemporaryDirectory()
        url = folder.file("library.sqlite")
    }

    /// Writes a store with the relationship-free model: two authors, three books.
    func writeVersion1() throws {
        let stack = try RecordStack(storeAt: url, entities: [V1Author.self, V1Book.self, V1Tag.self])
        let context = stack.newContext()
        for name in ["Ann", "Bob"] { context.insert(V1Author(name: name)) }
        for title in ["Dune", "Emma", "Ulysses"] { context.insert(V1Book(title: title)) }
        context.insert(V1Tag(label: "classic"))
        try context.save()
        try stack.close()
    }

    @Test func addingRelationshipsAddsAColumnAndAJoinTableAndKeepsTheRecords() throws {
        try writeVersion1()
        #expect(try RecordStack.requiresMigration(storeAt: url, entities: relationshipEntities))
        let plain = expectError(.modelMismatch) { try RecordStack(storeAt: url, entities: relationshipEntities) }
        #expect(plain?.message.contains("Book: relationship 'author' added; relationship 'tags' added") == true)

        let stack = try RecordStack(storeAt: url, entities: relationshipEntities, migration: .automatic)
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdTables == ["Book_tags"])
        let context = stack.newContext()
        let books = try RBook.findAll(in: context)
        #expect(books.map(\.title) == ["Dune", "Emma", "Ulysses"])
        #expect(books.allSatisfy { $0.author == nil && $0.tags.isEmpty })
        let ann = try #require(try RAuthor.findFirst(byAttribute: "name", withValue: "Ann", in: context))
        ann.books = books
        books[0].tags = try RTag.findAll(in: context)
        try context.save()
        try stack.close()

        let reopened = try RecordStack(storeAt: url, entities: relationshipEntities)
        let again = reopened.newContext()
        #expect(try RAuthor.findFirst(byAttribute: "name", withValue: "Ann", in: again)?.books.count == 3)
        #expect(try RBook.findFirst(byAttribute: "title", withValue: "Dune", in: again)?.tags.map(\.label) == ["classic"])
        try reopened.close()
    }

    @Test func anAttributeChangeOfAnEntityWithRelationshipsKeepsItsLinks() throws {
        try writeVersion1()
        do {
            let stack = try RecordStack(storeAt: url, entities: relationshipEntities, migration: .automatic)
            let context = stack.newContext()
            let ann = try #require(try RAuthor.findFirst(byAttribute: "name", withValue: "Ann", in: context))
            ann.books = try RBook.findAll(in: context)
            try context.save()
            try stack.close()
        }
        // Book gains an attribute: the table is altered, the author column stays.
        let stack = try RecordStack(storeAt: url, entities: [RAuthor.self, RBookV3.self, RTag.self], migration: .automatic)
        let context = stack.newContext()
        #expect(try RBookV3.findAll(in: context).allSatisfy { $0.author?.name == "Ann" })
        try stack.close()
    }

    @Test func removingARelationshipThatHoldsLinksNeedsADeclaration() throws {
        try writeVersion1()
        do {
            let stack = try RecordStack(storeAt: url, entities: relationshipEntities, migration: .automatic)
            let context = stack.newContext()
            let book = try #require(try RBook.findAll(in: context).first)
            book.tags = try RTag.findAll(in: context)
            book.author = try RAuthor.findAll(in: context).first
            try context.save()
            try stack.close()
        }
        let refused = expectError(.migrationFailed) {
            try RecordStack(storeAt: url, entities: [V1Author.self, V1Book.self, V1Tag.self], migration: .automatic)
        }
        #expect(refused?.message.contains("relationship 'tags' is not in the model, but its join table Book_tags holds 1 link(s)") == true)
        #expect(refused?.message.contains("attribute 'author' is not in the model") == true)

        let plan = MigrationPlan().removeRelationship("tags", of: "Book").removeRelationship("author", of: "Book")
        let stack = try RecordStack(storeAt: url, entities: [V1Author.self, V1Book.self, V1Tag.self], migration: .plan(plan))
        #expect(stack.lastMigrationReport?.droppedTables == ["Book_tags"])
        #expect(try V1Book.count(in: stack.newContext()) == 3)
        try stack.close()
    }

    @Test func aToOneBecomingAToManyIsRefusedWithTheReason() throws {
        try writeVersion1()
        try RecordStack(storeAt: url, entities: relationshipEntities, migration: .automatic).close()
        let error = expectError(.migrationFailed) {
            try RecordStack(storeAt: url, entities: [RAuthorToMany.self, RBookMany.self, RTag.self], migration: .automatic)
        }
        #expect(error?.message.contains("relationship 'author' changed from to-one to to-many") == true)
    }
}

// Version 1: the same entities without relationships.

final class V1Author: Entity, DefaultInitializable {
    var recordState = RecordState()
    var name = ""
    static let entityName = "Author"
    static let attributes = [AttributeDescription("name", type: .string)]
    init() {}
    init(name: String) { self.name = name }
    init(row: Row) throws { name = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(name) }
    func decodeAttribute(at index: Int, from row: Row) throws { name = try row.decode(String.self, at: 0) }
}

final class V1Book: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""
    static let entityName = "Book"
    static let attributes = [AttributeDescription("title", type: .string)]
    init() {}
    init(title: String) { self.title = title }
    init(row: Row) throws { title = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(title) }
    func decodeAttribute(at index: Int, from row: Row) throws { title = try row.decode(String.self, at: 0) }
}

final class V1Tag: Entity, DefaultInitializable {
    var recordState = RecordState()
    var label = ""
    static let entityName = "Tag"
    static let attributes = [AttributeDescription("label", type: .string)]
    init() {}
    init(label: String) { self.label = label }
    init(row: Row) throws { label = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(label) }
    func decodeAttribute(at index: Int, from row: Row) throws { label = try row.decode(String.self, at: 0) }
}

/// Book with a new optional attribute, keeping its relationships.
final class RBookV3: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""
    var isbn: String?
    static let entityName = "Book"
    static let attributes = [
        AttributeDescription("title", type: .string), AttributeDescription("isbn", type: .string, isOptional: true),
    ]
    static let relationships = [
        RelationshipDescription("author", toOne: RAuthor.self),
        RelationshipDescription("tags", toMany: RTag.self, inverse: "books"),
    ]
    var author: RAuthor? { relatedObject(at: 0) }
    init() {}
    init(row: Row) throws {
        title = try row.decode(String.self, at: 0)
        isbn = try row.decodeOptional(String.self, at: 1)
    }
    func encodeAttribute(at index: Int) throws -> SQLValue {
        index == 0 ? try AttributeCoding.encode(title) : try AttributeCoding.encodeOptional(isbn)
    }
    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 { title = try row.decode(String.self, at: 0) } else { isbn = try row.decodeOptional(String.self, at: 1) }
    }
}

/// Book whose `author` became a to-many of authors.
final class RBookMany: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""
    static let entityName = "Book"
    static let attributes = [AttributeDescription("title", type: .string)]
    static let relationships = [
        RelationshipDescription("author", toMany: RAuthorToMany.self, inverse: "books"),
        RelationshipDescription("tags", toMany: RTag.self, inverse: "books"),
    ]
    init() {}
    init(row: Row) throws { title = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(title) }
    func decodeAttribute(at index: Int, from row: Row) throws { title = try row.decode(String.self, at: 0) }
}

final class RAuthorToMany: Entity, DefaultInitializable {
    var recordState = RecordState()
    var name = ""
    static let entityName = "Author"
    static let attributes = [AttributeDescription("name", type: .string)]
    static let relationships = [RelationshipDescription("books", toMany: RBookMany.self, inverse: "author")]
    init() {}
    init(row: Row) throws { name = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(name) }
    func decodeAttribute(at index: Int, from row: Row) throws { name = try row.decode(String.self, at: 0) }
}
