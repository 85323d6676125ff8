import Foundation
import LiteRecord
import Testing

/// A to-one read while its target was deleted in this context reads `nil`
/// (the target is deleted), but a rollback brings the target back, and with
/// it the to-one: reading must not have forgotten which row it names.
/// Found by the model-based test (seed 459624754154: fetch chapters and
/// quotes, delete the quote's chapter, read the quote's chapter, roll back,
/// read it again: `nil` where Core Data gives the chapter).
@Suite struct RollbackToOneTests {
    private func makeStack() throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let context = stack.newContext()
        let chapter = MTChapter()
        chapter.text = "c"
        context.insert(chapter)
        let quote = MTQuote()
        quote.text = "q"
        context.insert(quote)
        quote.chapter = chapter
        try context.save()
        return stack
    }

    @Test func aToOneReadWhileItsTargetWasDeletedComesBackWithARollback() throws {
        let stack = try makeStack()
        let context = stack.newContext()
        let chapters = try MTChapter.findAll(in: context)
        let quotes = try MTQuote.findAll(in: context)
        let chapter = try #require(chapters.first)
        let quote = try #require(quotes.first)
        context.delete(chapter)
        #expect(quote.chapter == nil, "a deleted target reads as nil")
        context.rollback()
        #expect(quote.chapter === chapter)
        #expect(!context.hasChanges)
    }

    @Test func inAChildTheParentsDeletedTargetReadsNilWithoutForgettingTheRow() throws {
        let stack = try makeStack()
        let parent = stack.newContext()
        let chapter = try #require(try MTChapter.findAll(in: parent).first)
        parent.delete(chapter)
        let child = parent.makeChildContext()
        let quote = try #require(try MTQuote.findAll(in: child).first)
        #expect(quote.chapter == nil)
        parent.rollback()
        #expect(quote.chapter?.text == "c", "the child reads the chapter again once its parent no longer deletes it")
    }
}
