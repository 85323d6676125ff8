import Foundation
import Testing
@testable import LiteRecord

/// A save whose pending many-to-many link names a record another writer
/// deleted is refused by the store's foreign key (Docs/Relationships.md: a save "can
/// never leave a dangling reference"), and nothing is written. The change set the
/// save noted must still say only what SQLite changed: the link's version
/// bump of the gone row changes nothing, so the row is not "updated". With
/// the change audit on (as `make test` runs) the save noted the gone row
/// anyway, and the audit refused the commit (`.sqlite`) before the foreign
/// key did: the same save failed with another error kind (the
/// model-based test, seed 867).
@Suite struct LinkToRecordDeletedElsewhereTests {
    /// Saves a book and a tag, links them in a context that read both while
    /// another context deletes the book, and saves: the error's kind, and
    /// whether the store still has the tag unchanged and no link.
    func saveLinkToDeletedBook(audited: Bool, policy: MergePolicy, fromTag: Bool) throws -> LiteRecordError.Kind? {
        let stack = try RecordStack(inMemoryWith: relationshipEntities)
        if audited { stack.store.startAuditingChanges() }
        let seed = stack.newContext()
        let (book, tag) = (RBook("b"), RTag("t"))
        seed.insert(book)
        seed.insert(tag)
        try seed.save()
        let (bookRow, tagRow) = (try #require(book.recordID?.rowID), try #require(tag.recordID?.rowID))

        let context = stack.newContext()
        context.mergePolicy = policy
        let mine = try #require(try RBook.find(rowID: bookRow, in: context))
        let myTag = try #require(try RTag.find(rowID: tagRow, in: context))
        _ = myTag.books
        _ = mine.tags

        let other = stack.newContext()
        other.delete(try #require(try RBook.find(rowID: bookRow, in: other)))
        try other.save()

        if fromTag { myTag.books = [mine] } else { mine.tags = [myTag] }
        var kind: LiteRecordError.Kind?
        do {
            try context.save()
        } catch let error as LiteRecordError {
            kind = error.kind
        }
        // Nothing was written: the tag keeps its version and has no link.
        let check = stack.newContext()
        let stored = try #require(try RTag.find(rowID: tagRow, in: check))
        #expect(stored.recordState.version == tag.recordState.version)
        #expect(stored.books.isEmpty)
        return kind
    }

    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps], [false, true])
    func theAuditedSaveFailsAsTheUnauditedOneDoes(policy: MergePolicy, fromTag: Bool) throws {
        let plain = try saveLinkToDeletedBook(audited: false, policy: policy, fromTag: fromTag)
        let audited = try saveLinkToDeletedBook(audited: true, policy: policy, fromTag: fromTag)
        #expect(plain == .constraintViolation)
        #expect(audited == plain)
    }

    /// Removing a link of a record another writer deleted removes nothing
    /// (its join rows went with it): the save succeeds, audited.
    @Test func unlinkingARecordDeletedElsewhereSavesAudited() throws {
        let stack = try RecordStack(inMemoryWith: relationshipEntities)
        stack.store.startAuditingChanges()
        let seed = stack.newContext()
        let (book, tag) = (RBook("b"), RTag("t"))
        seed.insert(book)
        seed.insert(tag)
        book.tags = [tag]
        try seed.save()
        let (bookRow, tagRow) = (try #require(book.recordID?.rowID), try #require(tag.recordID?.rowID))

        let context = stack.newContext()
        let mine = try #require(try RBook.find(rowID: bookRow, in: context))
        let myTag = try #require(try RTag.find(rowID: tagRow, in: context))
        #expect(myTag.books.count == 1)

        let other = stack.newContext()
        other.delete(try #require(try RBook.find(rowID: bookRow, in: other)))
        try other.save()

        mine.tags = []
        try context.save()
        let check = stack.newContext()
        #expect(try #require(try RTag.find(rowID: tagRow, in: check)).books.isEmpty)
    }
}
