import Foundation
import Testing
@testable import LiteRecord

/// Optimistic locking with the default merge policy, `.error`: a save that
/// would overwrite a row changed since its context read it throws `.conflict`,
/// writes nothing and keeps the context's changes.
@Suite struct OptimisticLockingTests {
    /// Ann saved, then read by two fresh contexts.
    private func twoReaders(_ stack: RecordStack) throws -> (RecordContext, MacroPerson, RecordContext, MacroPerson) {
        let setup = stack.newContext()
        setup.insert(MacroPerson(name: "Ann", age: 31))
        try setup.save()
        let a = stack.newContext()
        let b = stack.newContext()
        let annA = try #require(try MacroPerson.findAll(in: a).first)
        let annB = try #require(try MacroPerson.findAll(in: b).first)
        return (a, annA, b, annB)
    }

    private func stored(_ stack: RecordStack) throws -> MacroPerson {
        try #require(try MacroPerson.findAll(in: stack.newContext()).first)
    }

    @Test func twoContextsEditingTheSamePropertyConflict() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()

        annA.age = 50
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict)
        #expect(error.message.contains("Person/1"), "names the record: \(error.message)")
        #expect(error.message.contains("age"), "names the property: \(error.message)")
        #expect(!error.message.contains("50") && !error.message.contains("40"), "no values by default: \(error.message)")
        #expect(try stored(stack).age == 40, "nothing was written")
        #expect(a.hasChanges && annA.age == 50, "the context keeps its change")
    }

    @Test func retryAfterRefreshKeepingChangesWins() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        annB.name = "Anna"
        try b.save()
        annA.age = 50
        #expect(throws: LiteRecordError.self) { try a.save() }

        try a.refresh(annA, mergeChanges: true)
        #expect(annA.age == 50, "the unsaved change is kept")
        #expect(annA.name == "Anna", "the store's other change is taken")
        try a.save()
        let ann = try stored(stack)
        #expect(ann.age == 50 && ann.name == "Anna")
    }

    @Test func retryAfterRefreshDiscardingChangesTakesTheStore() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()
        annA.age = 50
        #expect(throws: LiteRecordError.self) { try a.save() }

        try a.refresh(annA, mergeChanges: false)
        #expect(annA.age == 40)
        #expect(!a.hasChanges)
        annA.name = "Annie"
        try a.save()
        let ann = try stored(stack)
        #expect(ann.age == 40 && ann.name == "Annie")
    }

    @Test func editsOfDifferentPropertiesStillConflictUnderError() throws {
        // Versions are per row, as in Core Data: the policy decides even when
        // the properties differ.
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()
        annA.name = "Annie"
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict && error.message.contains("name"))
    }

    @Test func messageShowsValuesOnlyWhenAllowed() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()
        annA.age = 57
        // The context's override of `includesValuesInDescriptions`: flipping
        // the global would show values in tests running in parallel.
        a.showsConflictValues = true
        let message = try #require(throws: LiteRecordError.self) { try a.save() }.message
        #expect(message.contains("age (here 57, in the store 40)"), "\(message)")
    }

    @Test func everyConflictingObjectIsNamed() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let setup = stack.newContext()
        for name in ["Ann", "Bob", "Cy"] { setup.insert(MacroPerson(name: name, age: 1)) }
        try setup.save()
        let a = stack.newContext()
        let b = stack.newContext()
        let mine = try MacroPerson.findAll(in: a)
        for person in try MacroPerson.findAll(in: b) where person.name != "Bob" { person.age = 2 }
        try b.save()
        for person in mine { person.age = 3 }
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.message.contains("Person/1") && error.message.contains("Person/3"))
        #expect(!error.message.contains("Person/2"), "Bob was not changed in the store")
        #expect(try MacroPerson.findAll(in: stack.newContext()).map(\.age) == [2, 1, 2], "rolled back, Bob included")
    }

    @Test func deletingARowChangedInTheStoreConflicts() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()
        a.delete(annA)
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict && error.message.contains("deleted here"), "\(error.message)")
        #expect(try MacroPerson.count(in: stack.newContext()) == 1)
        #expect(a.deletedObjects.count == 1, "the deletion is still pending")
        try a.refresh(annA, mergeChanges: true)
        try a.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 0)
    }

    @Test func updatingARowDeletedInTheStoreConflicts() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        b.delete(annB)
        try b.save()
        annA.age = 50
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict && error.message.contains("deleted in the store"), "\(error.message)")
        try a.refresh(annA, mergeChanges: true)
        #expect(annA.context == nil, "a refresh forgets an object whose record is gone")
        #expect(!a.hasChanges)
    }

    @Test func bothDeletingIsNoConflict() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        b.delete(annB)
        try b.save()
        a.delete(annA)
        try a.save()
        #expect(annA.context == nil)
    }

    @Test func batchedDeletesCheckEachRow() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let setup = stack.newContext()
        for index in 0..<20 { setup.insert(MacroPerson(name: "p\(index)", age: index)) }
        try setup.save()
        let a = stack.newContext()
        let b = stack.newContext()
        let mine = try MacroPerson.findAll(in: a)
        mine[3].age = 100  // some rows a few versions ahead, so the batch mixes versions
        try a.save()
        let theirs = try #require(try MacroPerson.findAll(in: b).first { $0.name == "p7" })
        theirs.age = 70
        try b.save()
        for person in mine { a.delete(person) }
        let (error, statements) = stack.recordingSQL { () -> LiteRecordError? in
            do { try a.save() } catch let error as LiteRecordError { return error } catch { return nil }
            return nil
        }
        #expect(error?.kind == .conflict)
        #expect(error?.message.contains("Person/8") == true, "\(error?.message ?? "")")
        let deletes = statements.filter { $0.hasPrefix("DELETE") }
        // A batch names its rows in a list: `"Z_PK" IN (?, …)`.
        let batches = deletes.filter { $0.contains(#""Z_PK" IN ("#) }
        #expect(batches.count == 2, "one statement per version: \(statements)")
        // The batch that deleted fewer than it named is undone and redone row
        // by row, so that exactly the rows it left are conflicts.
        #expect(deletes.count - batches.count == 19)
        #expect(try MacroPerson.count(in: stack.newContext()) == 20, "rolled back")
    }

    @Test func savingTwiceInARowIsNoConflict() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ann = MacroPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        for age in 32...35 {
            ann.age = age
            try context.save()
        }
        context.delete(ann)
        try context.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 0)
    }

    @Test func handWrittenEntitiesConflictToo() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let setup = stack.newContext()
        setup.insert(HandWrittenPerson(name: "Ann", age: 31))
        try setup.save()
        let a = stack.newContext()
        let b = stack.newContext()
        let annA = try #require(try HandWrittenPerson.findAll(in: a).first)
        let annB = try #require(try HandWrittenPerson.findAll(in: b).first)
        annB.age = 40
        try b.save()
        annA.age = 50
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict && error.message.contains("age"))
        try a.refresh(annA, mergeChanges: true)
        try a.save()
        #expect(try HandWrittenPerson.findAll(in: stack.newContext()).first?.age == 50)
    }

    @Test func aFetchDoesNotMoveTheVersionOfAnEditedObject() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annA.age = 50
        annB.age = 40
        try b.save()
        _ = try MacroPerson.findAll(in: a)  // re-reads the row; the edit stays
        #expect(annA.age == 50)
        #expect(throws: LiteRecordError.self) { try a.save() }
    }

    @Test func aFetchMovesTheVersionOfAnUneditedObject() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let (a, annA, b, annB) = try twoReaders(stack)
        annB.age = 40
        try b.save()
        _ = try MacroPerson.findAll(in: a)
        #expect(annA.age == 40)
        annA.age = 50
        try a.save()
        #expect(try stored(stack).age == 50)
    }

    @Test func relationshipChangesConflict() throws {
        let stack = try RecordStack(inMemoryWith: [RAuthor.self, RBook.self, RTag.self])
        let setup = stack.newContext()
        let book = RBook()
        book.title = "Dune"
        let frank = RAuthor()
        frank.name = "Frank"
        let brian = RAuthor()
        brian.name = "Brian"
        setup.insert(book)
        setup.insert(frank)
        setup.insert(brian)
        try setup.save()
        let a = stack.newContext()
        let b = stack.newContext()
        let bookA = try #require(try RBook.findAll(in: a).first)
        let bookB = try #require(try RBook.findAll(in: b).first)
        bookB.author = try RAuthor.findAll(in: b).first { $0.name == "Frank" }
        try b.save()
        bookA.author = try RAuthor.findAll(in: a).first { $0.name == "Brian" }
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict && error.message.contains("author"), "\(error.message)")
        let reader = stack.newContext()  // kept: the author loads through it
        #expect(try RBook.findAll(in: reader).first?.author?.name == "Frank")
    }
}
