import Foundation
import Testing
@testable import LiteRecord

/// The three entities of the relationships contract (the shape
/// Docs/Relationships.md teaches), kept exactly as written there: `var author:
/// Author?` is a relationship without `@Relationship`, decided by the
/// compiler from `Author`'s conformance.
enum APISection10 {
    @Entity final class Author {
        var name = ""
        @Relationship(deleteRule: .cascade, inverse: \Book.author)
        var books: [Book] = []  // to-many, inverse of a to-one
        init() {}
    }

    @Entity final class Book {
        var title = ""
        var author: Author?  // to-one: a nullable foreign key column
        @Relationship(deleteRule: .nullify) var tags: [Tag] = []  // many-to-many: a join table
        init() {}
    }

    @Entity final class Tag {
        var label = ""
        @Relationship(inverse: \Book.tags) var books: [Book] = []
        init() {}
    }
}

/// Properties whose spelling (`X?`, `[X]`) could be either kind, and are
/// columns because `X` is not an entity — or relationships because it is,
/// whatever else it conforms to.
enum TypeDeclared {
    enum Priority: String, Codable { case low, high }
    struct Point: Codable, Equatable { var x = 0, y = 0 }

    /// An entity that is also `Codable`: a property of its type is still a
    /// relationship.
    @Entity(name: "Sticker") final class Sticker: Codable {
        var text = ""
        var shelves: [Shelf] = []
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    @Entity(name: "Shelf") final class Shelf {
        var name = ""
        var priority: Priority? = .low  // a column: the raw value
        var corners: [Point] = []  // a column: JSON
        var sticker: Sticker?  // a to-one: Sticker is an entity
        var score: Optional<Int> = 3  // a column, by its spelling
        init() {}
        init(name: String, sticker: Sticker) {
            self.name = name
            self.sticker = sticker  // kept until the object is inserted
        }
    }

    /// Two to-ones to one entity and one way back, none naming its inverse:
    /// setup cannot pair them.
    @Entity(name: "Traveller") final class Traveller {
        var home: City?
        var birthplace: City?
        init() {}
    }

    @Entity(name: "City") final class City {
        var residents: [Traveller] = []
        init() {}
    }
}

@Suite struct TypeDeclaredRelationshipTests {
    typealias Author = APISection10.Author
    typealias Book = APISection10.Book
    typealias Tag = APISection10.Tag

    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [Author.self, Book.self, Tag.self])
        context = stack.newContext()
    }

    @Test func aPropertyOfAnEntityTypeIsARelationshipNotAColumn() throws {
        #expect(Book.attributes.map(\.name) == ["title"])
        #expect(Set(Book.relationships.map(\.description)) == ["author -> Author?", "tags -> [Tag]"])
        #expect(Book.relationshipIndex(for: \Book.author) == Book.relationships.firstIndex { $0.name == "author" })
        #expect(Book.attributeIndex(for: \Book.author) == nil)
        // Resolved exactly as the `@Relationship` declaration of the same model.
        let declared = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        for (entity, name) in [("Book", "author"), ("Book", "tags"), ("Author", "books"), ("Tag", "books")] {
            let inferred = try #require(stack.model.entity(named: entity)?.relationship(named: name))
            let marked = try #require(declared.model.entity(named: entity)?.relationship(named: name))
            #expect(inferred.inverseName == marked.inverseName)
            #expect(inferred.storage == marked.storage)
            #expect(inferred.deleteRule == marked.deleteRule)
            #expect(inferred.isToMany == marked.isToMany)
        }
        #expect(stack.model.schema.canonicalText == declared.model.schema.canonicalText)
    }

    @Test func aToOneKeepsItsInverseUpToDateInMemory() throws {
        let ann = Author()
        ann.name = "Ann"
        context.insert(ann)
        let dune = Book()
        dune.title = "Dune"
        dune.author = ann
        #expect(context.insertedObjects.count == 2)
        #expect(ann.books.map(\.title) == ["Dune"])
        ann.books = []
        #expect(dune.author == nil)
        ann.books.append(dune)
        #expect(dune.author === ann)
        try context.save()

        let fresh = stack.newContext()
        let book = try #require(try Book.findFirst(byAttribute: "title", withValue: "Dune", in: fresh))
        #expect(book.author?.name == "Ann")
        #expect(book.author?.books.first === book)
        book.author = nil
        #expect(fresh.hasChanges)
        try fresh.save()
        let later = stack.newContext()
        #expect(try Author.findAll(in: later).first?.books.isEmpty == true)
    }

    @Test func aManyToManyGoesThroughAJoinTable() throws {
        let dune = Book()
        dune.title = "Dune"
        let scifi = Tag()
        scifi.label = "scifi"
        context.insert(dune)
        dune.tags.append(scifi)
        #expect(scifi.books.first === dune)
        try context.save()
        let fresh = stack.newContext()
        let tag = try #require(try Tag.findAll(in: fresh).first)
        #expect(tag.books.map(\.title) == ["Dune"])
        #expect(tag.books.first?.tags.first === tag)
    }

    @Test func cascadeAndNullifyRunInTheContext() throws {
        let ann = Author()
        ann.name = "Ann"
        context.insert(ann)
        let scifi = Tag()
        context.insert(scifi)
        for title in ["Dune", "Emma"] {
            let book = Book()
            book.title = title
            book.author = ann
            book.tags = [scifi]
        }
        try context.save()

        // Deleting a book nullifies its author's to-many and the tag's books.
        let emma = try #require(ann.books.first { $0.title == "Emma" })
        context.delete(emma)
        #expect(ann.books.map(\.title) == ["Dune"])
        #expect(scifi.books.map(\.title) == ["Dune"])
        try context.save()

        // Deleting the author cascades to its books (`Author.books` is `.cascade`).
        context.delete(ann)
        #expect(context.deletedObjects.count == 2)
        try context.save()
        #expect(try Book.count(in: context) == 0)
        let later = stack.newContext()
        #expect(try Tag.findAll(in: later).first?.books.map(\.title) == [])
    }

    @Test func prefetchingTheToOneRunsOneStatement() throws {
        for index in 0..<20 {
            let author = Author()
            author.name = "A\(index)"
            context.insert(author)
            let book = Book()
            book.title = "B\(index)"
            book.author = author
        }
        try context.save()
        let fresh = stack.newContext()
        let request = FetchRequest<Book>(relationshipKeyPathsForPrefetching: [\Book.author])
        let (books, statements) = try stack.recordingSQL { try fresh.fetch(request) }
        #expect(books.count == 20)
        #expect(statements.count == 2)
        let (names, none) = stack.recordingSQL { books.compactMap { $0.author?.name } }
        #expect(names.count == 20)
        #expect(none.isEmpty)
    }

    @Test func aPredicateAndASortGoThroughTheToOne() throws {
        for (title, name) in [("Dune", "Ann"), ("Emma", "Bob"), ("Ulysses", "Ann")] {
            let author =
                try Author.findFirst(byAttribute: "name", withValue: name, in: context)
                ?? {
                    let author = Author()
                    author.name = name
                    context.insert(author)
                    return author
                }()
            let book = Book()
            book.title = title
            book.author = author
        }
        try context.save()
        let byAnn = try Book.findAll(matching: #Predicate<Book> { $0.author?.name == "Ann" }, in: context)
        #expect(Set(byAnn.map(\.title)) == ["Dune", "Ulysses"])
        let orphans = try Book.findAll(matching: #Predicate<Book> { $0.author == nil }, in: context)
        #expect(orphans.isEmpty)
        let sorted = try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\Book.author?.name, order: .reverse)]))
        #expect(sorted.first?.title == "Emma")
    }

    @Test func migrationSeesTheRelationship() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("library.sqlite")
            // The relationship-free version of the model, then the one Docs/Relationships.md teaches.
            let first = try RecordStack(storeAt: url, entities: [V1Author.self, V1Book.self, V1Tag.self])
            let context = first.newContext()
            context.insert(V1Book(title: "Dune"))
            try context.save()
            try first.close()

            #expect(try RecordStack.requiresMigration(storeAt: url, entities: [Author.self, Book.self, Tag.self]))
            let refused = expectError(.modelMismatch) {
                try RecordStack(storeAt: url, entities: [Author.self, Book.self, Tag.self])
            }
            #expect(refused?.message.contains("relationship 'author' added") == true)
            let migrated = try RecordStack(storeAt: url, entities: [Author.self, Book.self, Tag.self], migration: .automatic)
            let book = try #require(try Book.findAll(in: migrated.newContext()).first)
            #expect(book.title == "Dune")
            #expect(book.author == nil)
            try migrated.close()
        }
    }

    @Test func otherOptionalsAndListsStayColumns() throws {
        typealias Shelf = TypeDeclared.Shelf
        let stack = try RecordStack(inMemoryWith: [Shelf.self, TypeDeclared.Sticker.self])
        #expect(Shelf.attributes.map(\.name) == ["name", "score", "priority", "corners"])
        let priority = try #require(Shelf.attributes.first { $0.name == "priority" })
        #expect(priority.type == .string)
        #expect(priority.isOptional)
        #expect(try priority.defaultValue?() == .text("low"))
        #expect(Shelf.attributes.first { $0.name == "corners" }?.type == .json)
        #expect(Shelf.relationships.map(\.description) == ["sticker -> Sticker?"])
        #expect(TypeDeclared.Sticker.relationships.map(\.description) == ["shelves -> [Shelf]"])

        let context = stack.newContext()
        let sticker = TypeDeclared.Sticker()
        let shelf = Shelf(name: "top", sticker: sticker)
        shelf.priority = .low
        shelf.corners = [TypeDeclared.Point(x: 1, y: 2)]
        context.insert(shelf)
        #expect(sticker.shelves.first === shelf)
        #expect(context.insertedObjects.count == 2)
        try context.save()

        shelf.priority = .low
        shelf.corners = [TypeDeclared.Point(x: 1, y: 2)]
        #expect(!context.hasChanges)
        shelf.priority = nil
        #expect(context.hasChanges)
        try context.save()

        let later = stack.newContext()
        let fresh = try #require(try Shelf.findAll(in: later).first)
        #expect(fresh.priority == nil)
        #expect(fresh.corners == [TypeDeclared.Point(x: 1, y: 2)])
        #expect(fresh.sticker?.shelves.first === fresh)
        #expect(fresh.score == 3)
        let matching = try Shelf.findAll(matching: #Predicate<Shelf> { $0.priority == nil }, in: later)
        #expect(matching.count == 1)
    }

    @Test func anAmbiguousInverseIsRefusedAtSetup() {
        let error = expectError(.invalidModel) {
            _ = try RecordStack(inMemoryWith: [TypeDeclared.Traveller.self, TypeDeclared.City.self])
        }
        #expect(error?.message.contains("the inverse is ambiguous") == true)
    }
}
