import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "STPFolder")
final class STPFolder {
    var name = ""
    @Relationship var parent: STPFolder?
    @Relationship(deleteRule: .cascade, inverse: \STPFolder.parent) var children: [STPFolder] = []
    init() {}
}

@Entity(name: "STPBook")
final class STPBook {
    var title = ""
    @Relationship(deleteRule: .cascade, inverse: \STPNote.leadOf) var lead: STPNote?
    init() {}
}

@Entity(name: "STPNote")
final class STPNote {
    var text = ""
    @Relationship var leadOf: STPBook?
    init() {}
}

/// Docs/Concurrency.md: under `.storeTrumps` a deletion the store's newer
/// row takes back leaves the record "kept with the store's values", and
/// only a to-one naming a row the save deleted is cleared. The model-based test
/// (seeds 185 and 139) found two ways a kept record's to-ones went wrong:
/// on a self-referential entity the test for "names a deleted row" compared
/// the table with itself, so a kept folder was detached from its live
/// parent (and reported updated); and a kept lead note still named its book
/// after the save wrote the book's side of the one-to-one cleared (the
/// `.nullify` of the deletion taken back), so the two sides disagreed and
/// a later deletion of the book failed COMMIT on the foreign key.
@Suite struct StoreTrumpsKeptPartnerTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [STPFolder.self, STPBook.self, STPNote.self])
    }

    /// Saves a root folder with one child; returns their row ids.
    func seedFolders() throws -> (root: Int64, child: Int64) {
        let context = stack.newContext()
        let root = STPFolder()
        root.name = "root"
        context.insert(root)
        let child = STPFolder()
        child.name = "child"
        context.insert(child)
        child.parent = root
        try context.save()
        return (try #require(root.recordID?.rowID), try #require(child.recordID?.rowID))
    }

    func renameElsewhere(_ row: Int64) throws {
        let other = stack.newContext()
        let folder = try #require(try STPFolder.find(rowID: row, in: other))
        folder.name = "renamed elsewhere"
        try other.save()
    }

    func storedParent(_ row: Int64) throws -> Int64?? {
        let reader = stack.newContext()
        guard let folder = try STPFolder.find(rowID: row, in: reader) else { return .none }
        return withExtendedLifetime(reader) { .some(folder.parent?.recordID?.rowID) }
    }

    @Test func aKeptFolderKeepsItsLiveParent() throws {
        let (root, child) = try seedFolders()
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let folder = try #require(try STPFolder.find(rowID: child, in: context))
        try renameElsewhere(child)
        context.delete(folder)
        var published: ChangeSet?
        context.didSave = { published = $0 }
        try context.save()

        #expect(try storedParent(child) == .some(root), "the kept folder still names its parent, which nothing deleted")
        #expect(folder.recordState.phase == .managed)
        #expect(folder.name == "renamed elsewhere")
        #expect(folder.parent?.recordID?.rowID == root)
        let id = try #require(folder.recordID)
        #expect(published?.updated.contains(id) != true, "nothing of the kept folder was written")
        #expect(published?.deleted.contains(id) != true)
    }

    @Test func aKeptFolderACascadeTookIsDetachedFromItsDeletedParent() throws {
        let (root, child) = try seedFolders()
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let top = try #require(try STPFolder.find(rowID: root, in: context))
        #expect(top.children.count == 1)
        try renameElsewhere(child)
        context.delete(top)
        try context.save()

        #expect(try storedParent(root) == .none, "the owner's deletion went on")
        #expect(try storedParent(child) == .some(nil), "the kept folder is detached from its deleted parent")
    }

    @Test func aKeptLeadNoteIsDetachedFromTheBookThatLetItGo() throws {
        let seed = stack.newContext()
        let book = STPBook()
        book.title = "b"
        seed.insert(book)
        let note = STPNote()
        note.text = "lead"
        seed.insert(note)
        book.lead = note
        try seed.save()
        let bookRow = try #require(book.recordID?.rowID)
        let noteRow = try #require(note.recordID?.rowID)

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let mine = try #require(try STPNote.find(rowID: noteRow, in: context))
        let myBook = try #require(try STPBook.find(rowID: bookRow, in: context))
        #expect(myBook.lead === mine)
        let other = stack.newContext()
        let theirs = try #require(try STPNote.find(rowID: noteRow, in: other))
        theirs.text = "edited elsewhere"
        try other.save()

        context.delete(mine)  // .nullify: the book's lead is cleared in memory
        #expect(myBook.lead == nil)
        try context.save()

        let reader = stack.newContext()
        let storedBook = try #require(try STPBook.find(rowID: bookRow, in: reader))
        let storedNote = try #require(try STPNote.find(rowID: noteRow, in: reader))
        withExtendedLifetime(reader) {
            #expect(storedNote.text == "edited elsewhere", "the note is kept with the store's values")
            #expect(storedBook.lead == nil)
            #expect(storedNote.leadOf == nil, "both sides of the one-to-one agree")
        }
        #expect(mine.recordState.phase == .managed)
        #expect(mine.leadOf == nil)

        // The book's deletion now cascades to no lead, and commits.
        context.delete(myBook)
        try context.save()
        #expect(try STPBook.find(rowID: bookRow, in: stack.newContext()) == nil)
        #expect(try STPNote.find(rowID: noteRow, in: stack.newContext()) != nil)
    }
}
