import Foundation
import Testing
@testable import LiteRecord

/// A many-to-many link belongs to both records it joins: saving a link
/// change moves both rows to a new version, as an attribute change does, so
/// another context holding either meets the conflict and the saving context
/// goes on without one.
@Suite(.tags(.threads)) struct ManyToManyLinkConflictTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: relationshipEntities)
        context = stack.newContext()
        context.insert(RBook("Dune"))
        context.insert(RTag("sf"))
        try context.save()
    }

    @Test func linkingMovesBothRowsAndTheSavingContextFollows() throws {
        let book = try #require(try RBook.findAll(in: context).first)
        let tag = try #require(try RTag.findAll(in: context).first)
        let versions = (book.recordState.version, tag.recordState.version)
        let (_, statements) = try stack.recordingSQL {
            book.tags = [tag]
            try context.save()
        }
        #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1, "one transaction")
        #expect(book.recordState.version == versions.0 + 1)
        #expect(tag.recordState.version == versions.1 + 1)
        book.title = "Dune Messiah"
        try context.save()
        #expect(try RBook.findAll(in: stack.newContext()).first?.title == "Dune Messiah")
    }

    @Test func anotherContextHoldingEitherSideMeetsTheConflict() throws {
        let other = stack.newContext()
        let otherBook = try #require(try RBook.findAll(in: other).first)
        let book = try #require(try RBook.findAll(in: context).first)
        let tag = try #require(try RTag.findAll(in: context).first)
        book.tags = [tag]
        try context.save()
        otherBook.title = "Children of Dune"
        do {
            try other.save()
            Issue.record("the save should have met the relinked row")
        } catch let error as LiteRecordError {
            #expect(error.kind == .conflict)
        }
        other.mergePolicy = .objectTrumps
        try other.save()
        let fresh = stack.newContext()
        let stored = try #require(try RBook.findAll(in: fresh).first)
        #expect(stored.title == "Children of Dune")
        #expect(stored.tags.map(\.label) == ["sf"], "the link stays")
    }

    @Test func relinkingWhatIsAlreadyLinkedMovesNothing() throws {
        let book = try #require(try RBook.findAll(in: context).first)
        let tag = try #require(try RTag.findAll(in: context).first)
        book.tags = [tag]
        try context.save()
        let version = book.recordState.version
        book.tags = []
        book.tags = [tag]
        try context.save()
        #expect(book.recordState.version == version)
    }
}
