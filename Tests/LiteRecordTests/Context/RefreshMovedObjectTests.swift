import Foundation
import LiteRecord
import Testing

/// `refresh(_:mergeChanges: false)` sets a moved object's to-one back to its
/// stored target; the loaded to-manys on both sides must follow, as they do
/// when the object is moved. Found by the model-based test (a chapter moved
/// to another book, then refreshed without merging, was still listed by the
/// new book's loaded chapters, and missing from the old book's).
@Suite struct RefreshMovedObjectTests {
    /// Two books, a chapter in the first; the context holds both books'
    /// loaded chapters and the chapter moved to the second book.
    private func movedChapter() throws -> (RecordStack, RecordContext, first: MTBook, second: MTBook, chapter: MTChapter) {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let setup = stack.newContext()
        let (first, second, chapter) = (MTBook(), MTBook(), MTChapter())
        first.text = "b1"
        second.text = "b2"
        chapter.text = "c"
        for object in [first, second, chapter] as [any Entity] { setup.insert(object) }
        chapter.book = first
        for book in [first, second] {  // the model schema's Book.notes needs at least one
            let note = MTNote()
            setup.insert(note)
            note.book = book
        }
        try setup.save()

        let context = stack.newContext()
        let books = try MTBook.findAll(sortedBy: "text", in: context)
        let (a, b) = (books[0], books[1])
        let held = try #require(a.chapters.first)
        #expect(b.chapters.isEmpty)
        held.book = b
        #expect(a.chapters.isEmpty && b.chapters.count == 1, "moving follows both lists")
        return (stack, context, a, b, held)
    }

    @Test func aRefreshWithoutMergingPutsTheObjectBackInItsStoredOwnersList() throws {
        let (stack, context, first, second, chapter) = try movedChapter()
        defer { try? stack.close() }
        try context.refresh(chapter, mergeChanges: false)
        #expect(chapter.book === first)
        #expect(second.chapters.isEmpty, "the book it was moved to no longer lists it")
        #expect(first.chapters.map(\.text) == ["c"], "the stored book lists it again")
        #expect(!context.hasChanges)
    }

    @Test func aRefreshThatKeepsTheMoveLeavesBothListsAlone() throws {
        let (stack, context, first, second, chapter) = try movedChapter()
        defer { try? stack.close() }
        try context.refresh(chapter, mergeChanges: true)
        #expect(chapter.book === second)
        #expect(second.chapters.map(\.text) == ["c"])
        #expect(first.chapters.isEmpty)
    }

    @Test func aRefreshOfAnObjectMovedToANewOwnerLeavesTheNewOwnersList() throws {
        let (stack, context, first, _, chapter) = try movedChapter()
        defer { try? stack.close() }
        let third = MTBook()
        third.text = "b3"
        context.insert(third)
        chapter.book = third
        #expect(third.chapters.count == 1)
        try context.refresh(chapter, mergeChanges: false)
        #expect(third.chapters.isEmpty)
        #expect(chapter.book === first)
        #expect(first.chapters.count == 1)
    }
}
