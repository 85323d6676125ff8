import Foundation
import LiteRecord
import Testing

/// A deletion drops the pending many-to-many changes of what it deletes, in
/// one place: a deleted record's links go with its row, so nothing is left
/// for a save to skip or a read to filter. Before, the links stayed pending
/// and three places each skipped them (the save's join writes, a list's
/// overlay of pending links, the model), and a context whose only change was
/// a link of an insert deleted again still reported `hasChanges`.
@Suite struct DeletedPendingLinkTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let context = stack.newContext()
        context.insert(MTag(label: "swift"))
        context.insert(MBook(title: "Kept"))
        try context.save()
    }

    @Test func anInsertDeletedAgainLeavesNoPendingLink() throws {
        let context = stack.newContext()
        let tag = try #require(try MTag.findAll(in: context).first)
        let book = MBook(title: "Draft")
        context.insert(book)
        book.tags = [tag]
        context.delete(book)
        #expect(!context.hasChanges, "the insert and its link are gone together")
        #expect(tag.books.isEmpty)
        try context.save()
        #expect(try MBook.count(in: stack.newContext()) == 1)
    }

    @Test func aSavedRecordDeletedAfterALinkSavesWithoutIt() throws {
        let context = stack.newContext()
        let tag = try #require(try MTag.findAll(in: context).first)
        let book = try #require(try MBook.findAll(in: context).first)
        book.tags = [tag]
        context.delete(book)
        #expect(tag.books.isEmpty)
        try context.save()
        let check = stack.newContext()
        let stored = try #require(try MTag.findAll(in: check).first)
        #expect(stored.books.isEmpty)
        #expect(try MBook.count(in: check) == 0)
    }

    @Test func aDeletionTakenBackLeavesTheLinksAsStored() throws {
        let context = stack.newContext()
        let tag = try #require(try MTag.findAll(in: context).first)
        let book = try #require(try MBook.findAll(in: context).first)
        book.tags = [tag]
        context.delete(book)
        try context.refresh(book, mergeChanges: false)
        #expect(book.tags.isEmpty, "the link went with the deletion")
        #expect(!context.hasChanges)
    }

    /// A link changed after the deletion (the review of this change) is no
    /// change either: before, the save inserted the join row after deleting
    /// the book's row, and the commit failed on the foreign key.
    @Test func aLinkMadeAfterTheDeletionIsNoChange() throws {
        let context = stack.newContext()
        let tag = try #require(try MTag.findAll(in: context).first)
        let book = try #require(try MBook.findAll(in: context).first)
        context.delete(book)
        book.tags.append(tag)
        try context.save()
        let check = stack.newContext()
        #expect(try MBook.count(in: check) == 0)
        #expect(try #require(try MTag.findAll(in: check).first).books.isEmpty)
    }
}
