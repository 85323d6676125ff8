import Foundation
import Testing
@testable import LiteRecord

/// `findFirstOrCreate` for entities whose `init()` relates the new object:
/// the foreign keys reach the store, and no object is inserted twice.
@Suite struct FindOrCreateRelationshipTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [FOCShelf.self, FOCNote.self, FOCSettings.self])
        context = stack.newContext()
    }

    /// The stored foreign key of a note, read with SQL.
    func storedShelf(ofNoteWithRowID rowID: Int64) throws -> SQLValue? {
        try context.reading("reading a note") { connection in
            try connection.scalar("SELECT \"shelf\" FROM \"Note\" WHERE \"Z_PK\" = ?", [.integer(rowID)])
        }
    }

    @Test func aSavedObjectSetByInitIsWrittenWithTheRow() throws {
        let shelf = FOCShelf()
        shelf.label = "inbox"
        context.insert(shelf)
        try context.save()
        let note = try FOCNote.$defaultShelf.withValue(FOCNote.ShelfBox(shelf: shelf)) {
            try FOCNote.findFirstOrCreate(byAttribute: "key", withValue: "n1", in: context)
        }
        #expect(note.shelf === shelf)
        #expect(shelf.notes.contains { $0 === note })
        let rowID = try #require(note.recordID?.rowID)
        #expect(try storedShelf(ofNoteWithRowID: rowID) == .integer(try #require(shelf.recordID?.rowID)))
        // Stored once: the only insert left is the settings `init()` made.
        #expect(context.insertedObjects.count == 1)
        #expect(context.insertedObjects.first is FOCSettings)
        try context.save()
        #expect(try FOCNote.count(in: context) == 1)
        let fresh = stack.newContext()
        #expect(try FOCNote.findFirst(byAttribute: "key", withValue: "n1", in: fresh)?.shelf?.label == "inbox")
    }

    @Test func aNewObjectSetByInitJoinsTheContextAndTheNextSaveLinksIt() throws {
        let note = try FOCNote.findFirstOrCreate(byAttribute: "key", withValue: "n2", in: context)
        let settings = try #require(note.settings)
        #expect(settings.context === context)
        #expect(context.insertedObjects.count == 1)
        let rowID = try #require(note.recordID?.rowID)
        #expect(try storedShelf(ofNoteWithRowID: rowID) == .null)
        try context.save()
        #expect(try FOCNote.count(in: context) == 1)
        #expect(try FOCSettings.count(in: context) == 1)
        let fresh = stack.newContext()
        let stored = try #require(try FOCNote.findFirst(byAttribute: "key", withValue: "n2", in: fresh))
        #expect(stored.settings?.theme == "dark")
        // Found, not created, the second time: no second settings object.
        _ = try FOCNote.findFirstOrCreate(byAttribute: "key", withValue: "n2", in: fresh)
        #expect(!fresh.hasChanges)
    }

    @Test func aNewObjectRelatedToAnotherContextsObjectIsRefused() throws {
        let other = stack.newContext()
        let shelf = FOCShelf()
        other.insert(shelf)
        try other.save()
        let error = expectError(.invalidObject) {
            try FOCNote.$defaultShelf.withValue(FOCNote.ShelfBox(shelf: shelf)) {
                try FOCNote.findFirstOrCreate(byAttribute: "key", withValue: "n3", in: context)
            }
        }
        #expect(error?.message.contains("another context") == true)
        #expect(try FOCNote.count(in: context) == 0)
    }
}

@Entity(name: "Shelf")
final class FOCShelf {
    var label = ""
    @Relationship(inverse: \FOCNote.shelf) var notes: [FOCNote] = []
    init() {}
}

@Entity(name: "Note")
final class FOCNote {
    /// The shelf a new note starts on (a stand-in for an app's current folder).
    @TaskLocal static var defaultShelf: ShelfBox?

    /// Carries a shelf into the task-local (the test uses it on one task only).
    struct ShelfBox: @unchecked Sendable {
        let shelf: FOCShelf
    }

    var key = ""
    @Relationship var shelf: FOCShelf?
    @Relationship var settings: FOCSettings?

    init() {
        shelf = Self.defaultShelf?.shelf
        settings = FOCSettings()
    }
}

@Entity(name: "Settings")
final class FOCSettings {
    var theme = "dark"
    init() {}
}
