import Foundation
import Testing
import LiteRecord

/// The merge of a `write {}` into the main context brings every loaded list
/// in line with what the write committed, the lists of an owner the main
/// context is deleting too: a `.deny` rule then judges the records still
/// related, not those a stale list names (found by the model-based test,
/// seed 900930).
@Suite struct MergeDeletedOwnerListTests {
    @Test @MainActor func aQuoteAWriteMovedAwayNoLongerDeniesAPendingDeletion() async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let seed = stack.newContext()
        let chapter = MTChapter()
        let quote = MTQuote()
        seed.insert(chapter)
        seed.insert(quote)
        quote.chapter = chapter
        try seed.save()
        let chapterRow = try #require(chapter.recordID?.rowID)
        let quoteRow = try #require(quote.recordID?.rowID)
        let main = stack.mainContext
        let doomed = try #require(try MTChapter.find(rowID: chapterRow, in: main))
        main.delete(doomed)
        // The quote still relates the chapter: refused, and its list is loaded.
        expectError(.validationFailed) { try main.save() }
        try await stack.write { context in
            try MTQuote.find(rowID: quoteRow, in: context)?.chapter = nil
        }
        try main.save()
        #expect(try MTChapter.find(rowID: chapterRow, in: stack.newContext()) == nil)
    }
}
