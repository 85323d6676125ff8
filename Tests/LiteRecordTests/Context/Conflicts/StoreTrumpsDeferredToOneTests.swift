import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "STDBook")
final class STDBook {
    var title = ""
    @Relationship(deleteRule: .cascade, inverse: \STDNote.leadOf) var lead: STDNote?
    init() {}
}

@Entity(name: "STDNote")
final class STDNote {
    var text = ""
    @Relationship var leadOf: STDBook?
    init() {}
}

/// Docs/Concurrency.md: under `.storeTrumps` "a property changed here and
/// in the store: the store's value is kept", and to-ones are properties
/// like attributes. A to-one naming an object the same save inserts is
/// written after the inserts; the model-based test (seed 1656) found that late
/// write ignoring the resolution: the book's lead, cleared in the store
/// since it was read and set here to a new note, was written over the
/// store's value anyway, without moving the row's version or naming it in
/// the change set (the change audit refused the commit).
@Suite struct StoreTrumpsDeferredToOneTests {
    @Test func theStoresNewerToOneWinsOverOneNamingANewObject() throws {
        let stack = try RecordStack(inMemoryWith: [STDBook.self, STDNote.self])
        let seed = stack.newContext()
        let book = STDBook()
        book.title = "b"
        seed.insert(book)
        let old = STDNote()
        old.text = "old lead"
        seed.insert(old)
        book.lead = old
        try seed.save()
        let bookRow = try #require(book.recordID?.rowID)

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let mine = try #require(try STDBook.find(rowID: bookRow, in: context))
        let other = stack.newContext()
        let theirs = try #require(try STDBook.find(rowID: bookRow, in: other))
        theirs.lead = nil
        try other.save()
        let versionBefore = try #require(try STDBook.find(rowID: bookRow, in: stack.newContext())).recordState.version

        let new = STDNote()
        new.text = "new lead"
        context.insert(new)
        mine.lead = new
        try context.save()

        let reader = stack.newContext()
        let stored = try #require(try STDBook.find(rowID: bookRow, in: reader))
        withExtendedLifetime(reader) {
            #expect(stored.lead == nil, "the store's newer value of the to-one won")
        }
        #expect(mine.lead == nil, "and was taken into the object")
        #expect(stored.recordState.version == versionBefore, "nothing of the book was written")
    }
}
