import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

/// `Entity.find(rowID:in:)` and `Entity.find(rowID:)`: the object named by the
/// number in its `recordID`, as a CLI (`todo done 7`) or a URL
/// (`GET /bookmarks/7`) gives it; `nil` when there is no such row.
@Suite struct FindByRowIDTests {
    @Test func findsTheSavedObjectByItsRowID() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ann = MacroPerson(name: "Ann", age: 31)
        let bob = MacroPerson(name: "Bob", age: 40)
        context.insert(ann)
        context.insert(bob)
        try context.save()
        let bobRowID = try #require(bob.recordID?.rowID)

        #expect(try MacroPerson.find(rowID: bobRowID, in: context) === bob, "the object the context holds")
        let other = stack.newContext()
        let elsewhere = try #require(try MacroPerson.find(rowID: bobRowID, in: other))
        #expect(elsewhere !== bob)
        #expect(elsewhere.name == "Bob")
        #expect(elsewhere.recordID == bob.recordID)
    }

    @Test func worksForHandWrittenEntities() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        let cy = HandWrittenPerson(name: "Cy", age: 22)
        context.insert(cy)
        try context.save()
        let rowID = try #require(cy.recordID?.rowID)

        let found = try #require(try HandWrittenPerson.find(rowID: rowID, in: stack.newContext()))
        #expect(found.name == "Cy" && found.age == 22)
        #expect(try HandWrittenPerson.find(rowID: rowID + 1, in: stack.newContext()) == nil)
    }

    @Test func anAbsentRowIsNil() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        #expect(try MacroPerson.find(rowID: 1, in: context) == nil, "an empty store")
        let ann = MacroPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let rowID = try #require(ann.recordID?.rowID)
        #expect(try MacroPerson.find(rowID: rowID + 1, in: context) == nil)
        #expect(try MacroPerson.find(rowID: .max, in: context) == nil)
    }

    @Test(arguments: [0, -1, Int64.min])
    func zeroAndNegativeRowIDsAreNil(_ rowID: Int64) throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        context.insert(MacroPerson(name: "Ann", age: 31))
        try context.save()
        #expect(try MacroPerson.find(rowID: rowID, in: context) == nil)
        #expect(try MacroPerson.find(rowID: rowID, in: stack.newContext()) == nil)
    }

    @Test func aDeletedObjectIsNotFound() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ann = MacroPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let rowID = try #require(ann.recordID?.rowID)

        context.delete(ann)
        #expect(try MacroPerson.find(rowID: rowID, in: context) == nil, "deleted in the context, not yet saved")
        try context.save()
        #expect(try MacroPerson.find(rowID: rowID, in: context) == nil, "deleted and saved")
        #expect(try MacroPerson.find(rowID: rowID, in: stack.newContext()) == nil)
    }

    @Test func anInsertedButUnsavedObjectIsNotFound() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let saved = MacroPerson(name: "Saved", age: 1)
        context.insert(saved)
        try context.save()
        let savedRowID = try #require(saved.recordID?.rowID)

        let draft = MacroPerson(name: "Draft", age: 2)
        context.insert(draft)
        #expect(draft.recordID == nil)
        // The number the draft will get once saved names nothing yet.
        #expect(try MacroPerson.find(rowID: savedRowID + 1, in: context) == nil)
        #expect(try MacroPerson.find(rowID: savedRowID, in: context) === saved)

        try context.save()
        let draftRowID = try #require(draft.recordID?.rowID)
        #expect(try MacroPerson.find(rowID: draftRowID, in: context) === draft, "found once saved")
    }
}

/// The main-context form, on the default stack.
@Suite(.inMemoryStack(entities: [MacroPerson.self]))
@MainActor struct FindByRowIDMainContextTests {
    @Test func findsOnTheMainContext() throws {
        let ann = MacroPerson(name: "Ann", age: 31)
        try ann.save()
        let rowID = try #require(ann.recordID?.rowID)
        #expect(try MacroPerson.find(rowID: rowID) === ann)
        #expect(try MacroPerson.find(rowID: rowID + 1) == nil)
        #expect(try MacroPerson.find(rowID: 0) == nil)
        try ann.delete()
        try ann.save()
        #expect(try MacroPerson.find(rowID: rowID) == nil)
    }

    @Test func withoutASetUpStackItThrowsNotSetUp() throws {
        try RecordStack.cleanUp()
        expectError(.notSetUp) { _ = try MacroPerson.find(rowID: 1) }
    }
}
