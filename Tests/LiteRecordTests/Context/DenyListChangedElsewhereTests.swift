import Foundation
import Testing
import LiteRecord

/// A `.deny` list this context loaded (an earlier save's check read it)
/// and another context then emptied in a commit this context did not
/// merge: the record deleted — one by one or by `deleteAll` — or moved to
/// another owner. `.deny` refuses only "while any remain"
/// (Docs/Relationships.md), as the check of a cascade that is not loaded
/// reads them in the store: the next save deletes the owner (found by the
/// model-based test, seed 4917: the book's chapters loaded by a fetch).
@Suite struct DenyListChangedElsewhereTests {
    enum Elsewhere: CaseIterable { case deleteAll, delete, move }

    @Test(arguments: Elsewhere.allCases)
    func aQuoteGoneFromTheStoreNoLongerDeniesTheCascade(_ elsewhere: Elsewhere) throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let seed = stack.newContext()
        let book = MTBook()
        let chapter = MTChapter()
        let other = MTChapter()
        let quote = MTQuote()
        let note = MTNote()  // the model schema's Book.notes needs at least one
        for object in [book, chapter, other, quote, note] as [any Entity] { seed.insert(object) }
        note.book = book
        chapter.book = book
        quote.chapter = chapter
        try seed.save()
        let bookRow = try #require(book.recordID?.rowID)
        let chapterRow = try #require(chapter.recordID?.rowID)
        let otherRow = try #require(other.recordID?.rowID)
        let quoteRow = try #require(quote.recordID?.rowID)

        let context = stack.newContext()
        // The chapters loaded: the book's deletion cascades in memory.
        _ = try context.fetch(FetchRequest<MTChapter>(relationshipKeyPathsForPrefetching: [\MTChapter.book]))
        context.delete(try #require(try MTBook.find(rowID: bookRow, in: context)))
        // The quote still relates the chapter: refused, and the list is loaded.
        expectError(.validationFailed) { try context.save() }

        let writer = stack.newContext()
        switch elsewhere {
        case .deleteAll:
            #expect(try MTQuote.deleteAll(matching: #Predicate { $0.text != "~" }, in: writer) == 1)
        case .delete:
            writer.delete(try #require(try MTQuote.find(rowID: quoteRow, in: writer)))
            try writer.save()
        case .move:
            try #require(try MTQuote.find(rowID: quoteRow, in: writer)).chapter = try MTChapter.find(rowID: otherRow, in: writer)
            try writer.save()
        }

        try context.save()
        let reader = stack.newContext()
        #expect(try MTBook.find(rowID: bookRow, in: reader) == nil)
        #expect(try MTChapter.find(rowID: chapterRow, in: reader) == nil)
    }

    @Test func aQuoteStillStoredStillDenies() throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let seed = stack.newContext()
        let chapter = MTChapter()
        let quote = MTQuote()
        seed.insert(chapter)
        seed.insert(quote)
        quote.chapter = chapter
        try seed.save()
        let chapterRow = try #require(chapter.recordID?.rowID)
        let context = stack.newContext()
        context.delete(try #require(try MTChapter.find(rowID: chapterRow, in: context)))
        expectError(.validationFailed) { try context.save() }
        // Another writer edits the quote but leaves it on the chapter.
        let writer = stack.newContext()
        try #require(try MTQuote.findAll(in: writer).first).text = "edited"
        try writer.save()
        expectError(.validationFailed) { try context.save() }
    }
}
