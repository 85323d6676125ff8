import Foundation
import LiteRecord
import Testing

/// An object deleted before it was ever saved is dropped at once; a to-one
/// still naming it must meet the delete rule as a reference to a saved
/// record does, never be written as no relationship. `Chapter.quotes` has
/// `.deny`: a new quote on a new chapter keeps the chapter from being
/// deleted, whichever way the deletion came (the chapter deleted, a saved
/// book's cascade, `truncateAll`'s cascade). Before, each saved the quote
/// with no chapter (the model-based test, seed 79614).
@Suite struct DroppedInsertReferenceTests {
    enum Deletion: String, CaseIterable, Sendable { case theChapter, itsBooksCascade, truncateAllsCascade }

    @Test(arguments: Deletion.allCases)
    func aDenyRuleRefusesTheDeletionOfANewObject(_ deletion: Deletion) throws {
        let stack = try RecordStack(inMemoryWith: [CSBook.self, CSChapter.self, CSParagraph.self, CSQuote.self, CSNote.self])
        let setup = stack.newContext()
        setup.insert(CSBook(title: "b"))
        try setup.save()
        let context = stack.newContext()
        let book = try #require(try CSBook.findAll(in: context).first)
        let chapter = CSChapter(title: "new")
        context.insert(chapter)
        chapter.book = book
        let quote = CSQuote(text: "q")
        context.insert(quote)
        quote.chapter = chapter
        switch deletion {
        case .theChapter: context.delete(chapter)
        case .itsBooksCascade: context.delete(book)
        case .truncateAllsCascade: try CSBook.truncateAll(in: context)
        }
        let error = try #require(throws: LiteRecordError.self) { try context.save() }
        #expect(error.kind == .validationFailed && error.message.contains(".deny"), "\(error)")
        let reader = stack.newContext()
        #expect(try CSQuote.count(in: reader) == 0, "nothing was written")
        #expect(quote.chapter === chapter, "the quote still names it")
    }

    /// The control: `.nullify` (`Chapter.notes`) takes the reference away
    /// when the new chapter is deleted, and the note saves with none.
    @Test func aNullifyRuleClearsTheReference() throws {
        let stack = try RecordStack(inMemoryWith: [CSBook.self, CSChapter.self, CSParagraph.self, CSQuote.self, CSNote.self])
        let context = stack.newContext()
        let chapter = CSChapter(title: "new")
        context.insert(chapter)
        let note = CSNote()
        context.insert(note)
        note.chapter = chapter
        context.delete(chapter)
        #expect(note.chapter == nil)
        try context.save()
        let reader = stack.newContext()
        #expect(try CSNote.count(in: reader) == 1)
    }
}
