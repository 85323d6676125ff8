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

    /// A saved object whose row another writer deleted writes nothing: its
    /// save meets that conflict, and a policy that resolves it forgets the
    /// object with its reference, whether the reference names a forgotten
    /// record or one never saved (`Tag.notes` is `.noAction`). Before, the
    /// reference to the dropped tag refused the save first, under every
    /// policy (model seed 233095 at length 80).
    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func anObjectWhoseRowIsGoneMeetsItsConflictFirst(_ policy: MergePolicy) throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let context = stack.newContext()
        context.mergePolicy = policy
        let note = MTNote()
        context.insert(note)
        try context.save()
        let noteID = try #require(note.recordID)
        let tag = MTTag()
        context.insert(tag)
        note.tag = tag
        context.delete(tag)
        let other = stack.newContext()
        other.delete(try #require(try other.object(with: noteID, as: MTNote.self)))
        try other.save()
        if policy == .error {
            let error = try #require(throws: LiteRecordError.self) { try context.save() }
            #expect(error.kind == .conflict, "\(error)")
        } else {
            try context.save()
            #expect(try MTNote.count(in: stack.newContext()) == 0)
        }
    }
}
