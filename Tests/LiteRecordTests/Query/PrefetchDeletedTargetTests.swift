import Foundation
import Testing
import LiteRecord

/// A prefetched to-one whose target the context is deleting reads nil but
/// keeps its row, as an ordinary access does, so that a rollback brings the
/// target back (found by the model-based test, seed 901967).
@Suite struct PrefetchDeletedTargetTests {
    @Test func aRollbackBringsBackAPrefetchedTargetDeletedHere() throws {
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
        let quotes = try context.fetch(FetchRequest<MTQuote>(relationshipKeyPathsForPrefetching: [\MTQuote.chapter]))
        #expect(quotes.first?.chapter == nil, "a target deleted here reads nil")
        context.rollback()
        #expect(quotes.first?.chapter?.recordID?.rowID == chapterRow, "the rollback brings it back")
    }
}
