import Foundation
import Testing
import LiteRecord

/// An object that stood for a stored record is never taken for a new one
/// once its context forgot it: not after a background write deleted the
/// record, not after a reset, not after its stack was cleaned up.
@Suite struct ForgottenObjectTests {
    @Test @MainActor func aRecordDeletedByABackgroundWriteStaysDeleted() async throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let main = stack.mainContext
        let note = HandWrittenPerson(name: "Note", age: 1)
        main.insert(note)
        try main.save()
        let id = try #require(note.recordID)
        try await stack.write { context in
            if let mine = try context.object(with: id, as: HandWrittenPerson.self) { context.delete(mine) }
        }
        // Edited on screen after the merge, then saved.
        note.age = 2
        let error = expectError(.invalidObject) { try note.save(in: main) }
        #expect(error?.message.contains("forgot") == true, "\(String(describing: error))")
        expectError(.invalidObject) { try note.delete(in: main) }
        main.insert(note)
        expectError(.invalidObject) { try main.save() }
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 0)
    }

    @Test @MainActor func anObjectOfACleanedUpStackIsNotInsertedIntoTheNext() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("notes.sqlite")
        try RecordStack.withDefault(nil) {
            try RecordStack.setup(storeAt: url, entities: [HandWrittenPerson.self])
            let note = HandWrittenPerson(name: "Note", age: 1)
            try note.save()
            try RecordStack.cleanUp()
            try RecordStack.setup(storeAt: url, entities: [HandWrittenPerson.self])
            defer { try? RecordStack.cleanUp() }
            note.age = 2
            expectError(.invalidObject) { try note.save() }
            expectError(.invalidObject) { try note.delete() }
            #expect(try HandWrittenPerson.count() == 1)
            #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Note")?.age == 1)
        }
    }

    @Test func aResetForgetsSavedObjectsForGood() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        let note = HandWrittenPerson(name: "Note", age: 1)
        context.insert(note)
        try context.save()
        context.reset()
        context.insert(note)
        expectError(.invalidObject) { try context.save() }
        context.rollback()
        #expect(try HandWrittenPerson.count(in: context) == 1)
    }

    /// What the context itself deleted and saved, or inserted and took back,
    /// may still be inserted again: that is a new record by the caller's own
    /// choice, not one the context forgot.
    @Test func anObjectThisContextDeletedMayBeInsertedAgain() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        let note = HandWrittenPerson(name: "Note", age: 1)
        context.insert(note)
        try context.save()
        context.delete(note)
        try context.save()
        context.insert(note)
        try context.save()
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 1)
        let draft = HandWrittenPerson(name: "Draft", age: 0)
        context.insert(draft)
        context.rollback()
        try draft.save(in: context)
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 2)
    }
}
