import Foundation
import Testing
import LiteRecord

/// Found by the model-based test (its widened model, seed 1799): a
/// save that inserts a chapter under one book and deletes another book,
/// whose `.cascade` chapters the store deletes, with Book.chapters counted.
/// It fails its COMMIT on a foreign key; the same save succeeds when
/// `context.deletedObjects` is read before it (which loads the store's
/// cascade), and without the insert, or with the insert under no book — a
/// loaded and an unloaded cascade must not differ (Docs/Internals/Invariants.md,
/// "A fast path means what the plain path means"). The check
/// of the inserted chapter's counted list read the doomed chapter into the
/// context as a deleted object after the save had collected its deletions,
/// and took it out of the store-side cascade: nothing deleted it.
@Suite struct CountedCascadeInsertTests {
    @Test
    func anInsertUnderOneOwnerAndTheDeletionOfAnotherSave() throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        try ModelRunner.seed(stack)
        let context = stack.newContext()
        let books = try MTBook.findAll(in: context).sorted { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }
        try #require(books.count == 2)
        let chapter = MTChapter()
        chapter.text = "new"
        context.insert(chapter)
        chapter.book = books[0]
        context.delete(books[1])
        try context.save()
        let fresh = stack.newContext()
        #expect(try MTBook.count(in: fresh) == 1)
        #expect(try MTChapter.findAll(in: fresh).map(\.text).sorted() == ["c0", "c1", "new"])
    }
}
