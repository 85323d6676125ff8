import Foundation
import Testing
import LiteRecord

/// Under `.storeTrumps`, a conflict that keeps the store's to-one over the
/// one set here moves the object back between lists: the list of the owner
/// set here no longer holds it, the stored owner's does (Docs/Concurrency.md:
/// the store's newer values win; both sides of a relationship agree in
/// memory). Model seed 227767 at length 60: the list of the owner set here
/// still held the chapter after the save, whose book was nil.
@Suite struct StoreTrumpsMovedToOneTests {
    /// A main context under `.storeTrumps` holding `count` saved books,
    /// each with its one note, and a saved chapter of the second.
    @MainActor private func booksWithAChapterOfTheSecond(_ count: Int) throws -> (RecordStack, [MTBook], MTChapter) {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let books = (0..<count).map { _ in MTBook() }
        let chapter = MTChapter()
        for book in books {
            main.insert(book)
            let note = MTNote()
            main.insert(note)
            note.book = book
        }
        main.insert(chapter)
        chapter.book = books[1]
        try main.save()
        return (stack, books, chapter)
    }

    @Test @MainActor func theListOfTheOwnerSetHereLetsGoOfTheObject() async throws {
        let (stack, books, chapter) = try booksWithAChapterOfTheSecond(3)
        let main = stack.mainContext
        let (first, second, third) = (books[0], books[1], books[2])
        let (chapterID, thirdID) = (try #require(chapter.recordID), try #require(third.recordID))
        #expect(first.chapters.isEmpty && third.chapters.isEmpty)
        chapter.book = first
        #expect(first.chapters.contains { $0 === chapter })
        try await stack.write { context in
            let mine = try #require(try context.object(with: chapterID, as: MTChapter.self))
            mine.book = try context.object(with: thirdID, as: MTBook.self)
        }
        try main.save()
        #expect(chapter.book === third)
        #expect(first.chapters.isEmpty)
        #expect(second.chapters.isEmpty)
        #expect(third.chapters.map(\.recordID) == [chapterID])
    }

    /// The same with the store's to-one cleared: the object is in no list.
    @Test @MainActor func aClearedStoredToOneLeavesEveryList() async throws {
        let (stack, books, chapter) = try booksWithAChapterOfTheSecond(2)
        let main = stack.mainContext
        let (first, second) = (books[0], books[1])
        let chapterID = try #require(chapter.recordID)
        _ = first.chapters
        chapter.book = first
        try await stack.write { context in
            try #require(try context.object(with: chapterID, as: MTChapter.self)).book = nil
        }
        try main.save()
        #expect(chapter.book == nil)
        #expect(first.chapters.isEmpty)
        #expect(second.chapters.isEmpty)
    }
}
