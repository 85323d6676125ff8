import Foundation
import Testing
@testable import LiteRecord

/// Relationships declared with `@Relationship`, end to end.
@Suite struct MacroRelationshipTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self, MChapter.self, MPage.self])
        context = stack.newContext()
    }

    @Test func theMacroDescribesTheRelationships() throws {
        #expect(MBook.relationships.map(\.description) == ["author -> Author?", "tags -> [Tag]"])
        #expect(MAuthor.relationships.first?.deleteRule == .cascade)
        #expect(MAuthor.relationships.first?.inverse == "author")
        #expect(MBook.relationshipIndex(for: \MBook.tags) == 1)
        let book = try #require(stack.model.entity(named: "Book"))
        #expect(book.relationship(named: "author")?.inverseName == "books")
        #expect(
            book.relationship(named: "tags")?.storage
                == .joinTable(
                    JoinTable(
                        name: "Book_tags", sourceColumn: "Book", destinationColumn: "Tag", sourceTable: "Book", destinationTable: "Tag")))
    }

    @Test func theAPIExampleWorksEndToEnd() throws {
        let ann = MAuthor(name: "Ann")
        context.insert(ann)
        let dune = MBook(title: "Dune", author: ann)
        let scifi = MTag(label: "scifi")
        dune.tags.append(scifi)
        #expect(ann.books.map(\.title) == ["Dune"])
        #expect(scifi.books.first === dune)
        try context.save()

        let fresh = stack.newContext()
        let book = try #require(try MBook.findFirst(byAttribute: "title", withValue: "Dune", in: fresh))
        #expect(book.author?.name == "Ann")
        #expect(book.tags.map(\.label) == ["scifi"])
        #expect(book.author?.books.first === book)

        let author = try #require(book.author)
        fresh.delete(author)
        #expect(fresh.deletedObjects.count == 2)
        try fresh.save()
        #expect(try MBook.count(in: fresh) == 0)
        #expect(try MTag.findAll(in: fresh).first?.books.isEmpty == true)
    }

    @Test func aValueAssignedBeforeInitializationEndsTakesEffectOnInsert() throws {
        let pages = [MPage(), MPage()]
        let chapter = MChapter(number: 1, pages: pages)
        context.insert(chapter)
        #expect(context.insertedObjects.count == 3)
        #expect(pages.allSatisfy { $0.chapter === chapter })
        try context.save()
        chapter.pages.append(MPage())
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.message.contains("Chapter.pages") == true)
    }
}
