import Foundation
import Testing
import LiteRecord

/// `relationshipKeyPathsForPrefetching`: one statement per relationship for
/// every fetched object, and no statement on access afterwards.
@Suite struct PrefetchTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: relationshipEntities)
        let context = stack.newContext()
        let tags = (0..<5).map { RTag("t\($0)") }
        for index in 0..<1_000 {
            let author = RAuthor("A\(index)")
            context.insert(author)
            for number in 0..<10 {
                let book = RBook("B\(index).\(number)")
                book.author = author
                if number == 0 { book.tags = [tags[index % 5]] }
            }
        }
        try context.save()
    }

    @Test func prefetchingTenThousandBooksAuthorsRunsOneStatement() throws {
        let context = stack.newContext()
        let request = FetchRequest<RBook>(relationshipKeyPathsForPrefetching: [\RBook.author])
        let (books, statements) = try stack.recordingSQL { try context.fetch(request) }
        #expect(books.count == 10_000)
        #expect(statements.count == 2)
        let (names, none) = stack.recordingSQL { books.compactMap { $0.author?.name } }
        #expect(names.count == 10_000)
        #expect(none.isEmpty)
    }

    @Test func prefetchingEveryAuthorsBooksRunsOneStatement() throws {
        let context = stack.newContext()
        let request = FetchRequest<RAuthor>(relationshipKeyPathsForPrefetching: [\RAuthor.books])
        let (authors, statements) = try stack.recordingSQL { try context.fetch(request) }
        #expect(statements.count == 2)
        let (counts, none) = stack.recordingSQL { authors.map { $0.books.count } }
        #expect(counts.allSatisfy { $0 == 10 })
        #expect(none.isEmpty)
        #expect(authors[0].books.allSatisfy { $0.author === authors[0] })
    }

    @Test func prefetchingAManyToManyRunsTwoStatements() throws {
        let context = stack.newContext()
        let request = FetchRequest<RBook>(relationshipKeyPathsForPrefetching: [\RBook.tags])
        let (books, statements) = try stack.recordingSQL { try context.fetch(request) }
        #expect(books.count == 10_000)
        #expect(statements.count == 3)
        let (labels, none) = stack.recordingSQL { books.map { $0.tags.map(\.label) } }
        #expect(labels.filter { $0.count == 1 }.count == 1_000)
        #expect(none.isEmpty)
    }

    @Test func withoutPrefetchingEachAccessIsOneStatement() throws {
        let context = stack.newContext()
        let authors = try context.fetch(FetchRequest<RAuthor>(fetchLimit: 10))
        let (_, statements) = stack.recordingSQL { authors.map { $0.books.count } }
        #expect(statements.count == 10)
    }

    @Test func aKeyPathThatIsNotARelationshipIsRefused() throws {
        let context = stack.newContext()
        let error = expectError(.unknownAttribute) {
            try context.fetch(FetchRequest<RBook>(relationshipKeyPathsForPrefetching: [\RBook.title]))
        }
        #expect(error?.message.contains("not a relationship of Book") == true)
    }

    /// A prefetched to-one whose target the context is deleting reads nil but
    /// keeps its row, as an ordinary access does, so that a rollback brings the
    /// target back (found by the model-based test, seed 901967).
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
