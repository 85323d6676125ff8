import Foundation
import LiteRecord
import Testing

/// Relationships that name objects deleted since — here, or by another
/// writer — mean what they would with every related object loaded. Found by
/// the model-based test.
@Suite struct DeletedRowGraphTests {
    let stack: RecordStack

    /// A book with one chapter of two paragraphs and its one note (the model
    /// schema's `Book.notes` needs at least one), and two tags.
    init() throws {
        stack = try RecordStack(inMemoryWith: modelTestEntities)
        let setup = stack.newContext()
        let book = MTBook()
        book.text = "b"
        setup.insert(book)
        let note = MTNote()
        note.text = "n"
        setup.insert(note)
        note.book = book
        let chapter = MTChapter()
        chapter.text = "c"
        setup.insert(chapter)
        chapter.book = book
        for text in ["p1", "p2"] {
            let paragraph = MTParagraph()
            paragraph.text = text
            setup.insert(paragraph)
            paragraph.chapter = chapter
        }
        for text in ["t1", "t2"] {
            let tag = MTTag()
            tag.text = text
            setup.insert(tag)
        }
        try setup.save()
    }

    private func paragraphCount() throws -> Int {
        try MTParagraph.count(in: stack.newContext())
    }

    /// Seed 52822: a paragraph edited here and deleted by another writer;
    /// deleting its chapter takes it along whether or not the chapter's
    /// paragraphs were read, so the save finds it deleted on both sides (no
    /// conflict) — before, with the list unread, the cascade read the store,
    /// missed the gone row, and the edit met a `.conflict`.
    @Test(arguments: [false, true])
    func aCascadeTakesAlongAnEditedObjectWhoseRowIsGone(listRead: Bool) throws {
        let context = stack.newContext()
        let chapter = try #require(try MTChapter.findAll(in: context).first)
        if listRead { #expect(chapter.paragraphs.count == 2) }
        let paragraph = try #require(try MTParagraph.findFirst(byAttribute: "text", withValue: "p2", in: context))
        paragraph.text = "edited"
        let other = stack.newContext()
        other.delete(try #require(try MTParagraph.findFirst(byAttribute: "text", withValue: "p2", in: other)))
        try other.save()
        context.delete(chapter)
        #expect(context.deletedObjects.contains { $0 === paragraph })
        try context.save()
        #expect(try paragraphCount() == 0)
    }

    /// Seed 69562: a link to a tag that is then deleted goes with the tag; a
    /// later change of the book's list must not hand the deleted tag back
    /// (the save refused "given a MTTag object that is deleted"). On
    /// `DeletedRowBook`/`DeletedRowTag`: the model's tags deny their deletion while
    /// they have books.
    @Test func aPendingLinkToADeletedObjectLeavesTheList() throws {
        let stack = try Self.linkedStack()
        let context = stack.newContext()
        let book = try #require(try DeletedRowBook.findAll(in: context).first)
        let tags = try DeletedRowTag.findAll(sortedBy: "text", in: context)
        tags[1].books.append(book)
        context.delete(tags[1])
        book.tags.append(tags[0])
        #expect(book.tags.map(\.text) == ["t1"])
        try context.save()
        let reader = stack.newContext()
        #expect(try #require(try DeletedRowBook.findAll(in: reader).first).tags.map(\.text) == ["t1"])
        #expect(try DeletedRowTag.count(in: reader) == 1)
    }

    /// Seed 116264: an insert linked to a saved book, then deleted (dropped)
    /// before any save; the book's list, first read afterwards, listed it.
    @Test func aDroppedInsertLeavesTheListsItWasLinkedTo() throws {
        let context = stack.newContext()
        let book = try #require(try MTBook.findAll(in: context).first)
        let tag = MTTag()
        tag.text = "new"
        context.insert(tag)
        tag.books.append(book)
        context.delete(tag)
        #expect(book.tags.isEmpty)
        try context.save()
        #expect(try MTTag.count(in: stack.newContext()) == 2)
    }

    /// Seed 317973: under `.storeTrumps` a deletion meets a newer row and is
    /// taken back; a list read while the deletion was pending left the object
    /// out, and went on leaving it out after the save (unlinking it then did
    /// nothing).
    @Test func aDeletionTakenBackIsListedAgain() throws {
        let stack = try Self.linkedStack()
        let setup = stack.newContext()
        try #require(try DeletedRowBook.findAll(in: setup).first).tags = try DeletedRowTag.findAll(in: setup)
        try setup.save()

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let tag = try #require(try DeletedRowTag.findFirst(byAttribute: "text", withValue: "t2", in: context))
        let book = try #require(try DeletedRowBook.findAll(in: context).first)
        context.delete(tag)
        #expect(book.tags.map(\.text) == ["t1"])
        let other = stack.newContext()
        try #require(try DeletedRowTag.findFirst(byAttribute: "text", withValue: "t2", in: other)).text = "newer"
        try other.save()
        try context.save()
        #expect(!context.deletedObjects.contains { $0 === tag })
        #expect(Set(book.tags.map(\.text)) == ["t1", "newer"], "the tag the store kept is listed again")
        book.tags.removeAll { $0 === tag }
        try context.save()
        let reader = stack.newContext()
        #expect(try #require(try DeletedRowBook.findAll(in: reader).first).tags.map(\.text) == ["t1"])
    }

    /// A book and two tags whose many-to-many lets a tag go while it has
    /// books (`.nullify`), as the model schema's did before its tags denied it.
    private static func linkedStack() throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: [DeletedRowBook.self, DeletedRowTag.self])
        let setup = stack.newContext()
        let book = DeletedRowBook()
        book.text = "b"
        setup.insert(book)
        for text in ["t1", "t2"] {
            let tag = DeletedRowTag()
            tag.text = text
            setup.insert(tag)
        }
        try setup.save()
        return stack
    }
}

@Entity(name: "DeletedRowBook")
final class DeletedRowBook {
    var text = ""
    @Relationship(deleteRule: .nullify) var tags: [DeletedRowTag] = []
    init() {}
}

@Entity(name: "DeletedRowTag")
final class DeletedRowTag {
    var text = ""
    @Relationship(inverse: \DeletedRowBook.tags, maximumCount: 2) var books: [DeletedRowBook] = []
    init() {}
}
