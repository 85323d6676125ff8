import Foundation
import Testing
@testable import LiteRecord

/// How a context keeps its lists of changed and deleted objects: each object
/// written once, in table order, whatever happened to it in between.
@Suite struct ChangeTrackingTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [MacroPerson.self, HandWrittenNote.self])
        context = stack.newContext()
    }

    private func savedPeople(_ count: Int) throws -> [MacroPerson] {
        let people = (0..<count).map { MacroPerson(name: "P\($0)", age: $0) }
        for person in people { context.insert(person) }
        try context.save()
        return people
    }

    private func storedAges() throws -> [Int] {
        try MacroPerson.findAll(in: stack.newContext()).map(\.age).sorted()
    }

    @Test func objectsChangedInAnyOrderAreAllWrittenOnce() throws {
        let people = try savedPeople(50)
        for person in people.reversed() { person.age += 100 }
        for person in people.shuffled() { person.age += 1000 }
        #expect(context.updatedObjects.count == 50)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.count == 50)
        #expect(try storedAges() == (0..<50).map { $0 + 1100 })
        #expect(!context.hasChanges)
    }

    @Test func aChangeKeptThroughDeleteAndUndeleteIsSaved() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 77
        context.delete(ann)
        #expect(context.updatedObjects.isEmpty, "a deleted object is not also updated")
        #expect(context.deletedObjects.count == 1)
        context.insert(ann)  // takes the deletion back
        #expect(context.deletedObjects.isEmpty)
        #expect(context.updatedObjects.count == 1)
        try context.save()
        #expect(try storedAges() == [77])
        #expect(ann.context === context)
    }

    @Test func deletedTwiceAroundAnUndeleteIsDeletedOnce() throws {
        let ann = try savedPeople(2)[0]
        context.delete(ann)
        context.insert(ann)
        context.delete(ann)
        #expect(context.deletedObjects.count == 1)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("DELETE") }.count == 1)
        #expect(try storedAges() == [1])
        #expect(ann.context == nil)
        #expect(ann.recordID == nil)
    }

    @Test func rollbackRestoresAChangedThenDeletedObject() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 40
        context.delete(ann)
        context.rollback()
        #expect(ann.age == 0)
        #expect(ann.context === context)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try storedAges() == [0])
    }

    /// An object forgotten by its context while changed (its row deleted with a
    /// bulk delete) and then inserted and changed again is listed twice; the
    /// save still writes it once.
    @Test func anObjectListedTwiceIsWrittenOnce() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 5
        #expect(try MacroPerson.truncateAll(in: context) == 1)
        #expect(ann.context == nil)
        context.insert(ann)
        try context.save()
        ann.age = 6
        #expect(context.updatedObjects.count == 1)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.count == 1)
        #expect(try storedAges() == [6])
    }

    /// (A reset would not do: a context that forgets a saved object without
    /// deleting it leaves it refused everywhere, `ForgottenObjectTests`.)
    @Test func anObjectMovedToAnotherContextIsTrackedThere() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 5
        #expect(try MacroPerson.truncateAll(in: context) == 1)
        #expect(ann.context == nil)
        let other = stack.newContext()
        other.insert(ann)
        try other.save()
        ann.age = 9
        #expect(other.updatedObjects.count == 1)
        #expect(context.updatedObjects.isEmpty)
        try other.save()
        #expect(try storedAges() == [9])
    }

    /// An object forgotten by one context while listed there, then saved and
    /// changed in another: compacting or saving the first context must leave
    /// the second's bookkeeping alone.
    @Test func aStaleEntryDoesNotTouchTheObjectsNewContext() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 5
        #expect(try MacroPerson.truncateAll(in: context) == 1)
        let other = stack.newContext()
        other.insert(ann)
        try other.save()
        ann.age = 42
        #expect(context.updatedObjects.isEmpty)  // compacts this context's list
        let bob = MacroPerson(name: "Bob", age: 7)
        context.insert(bob)
        try context.save()  // clears this context's lists
        #expect(other.updatedObjects.count == 1)
        try other.save()
        #expect(try storedAges() == [7, 42])
    }

    @Test func refreshDropsTheObjectFromThePendingUpdates() throws {
        let ann = try savedPeople(1)[0]
        ann.age = 12
        try context.refresh(ann)
        #expect(!context.hasChanges)
        #expect(context.updatedObjects.isEmpty)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.isEmpty)
        ann.age = 13
        try context.save()
        #expect(try storedAges() == [13])
    }

    @Test func aFailedSaveKeepsEveryChangeForTheRetry() throws {
        let people = try savedPeople(3)
        people[0].age = 10
        people[1].name = "Rejected"
        people[1].rejectName = "Rejected"
        context.delete(people[2])
        _ = expectError(.validationFailed) { try context.save() }
        #expect(context.updatedObjects.count == 2)
        #expect(context.deletedObjects.count == 1)
        people[1].rejectName = nil
        try context.save()
        #expect(try storedAges() == [1, 10])
    }

    @Test func rowsArePlannedInTableOrder() {
        func rows(_ ids: [(any Entity, Int64)]) -> [RecordContext.PlannedRow] {
            ids.map { RecordContext.PlannedRow($0.0, $0.0.recordState, rowID: $0.1) }
        }
        let person = MacroPerson()
        let note = HandWrittenNote(text: "n")
        var planned = rows([(person, 3), (note, 2), (person, 1), (note, 9), (person, 2)])
        RecordContext.PlannedRow.sortInTableOrder(&planned)
        let personFirst = ObjectIdentifier(MacroPerson.self) < ObjectIdentifier(HandWrittenNote.self)
        let personIDs: [Int64] = [1, 2, 3]
        let noteIDs: [Int64] = [2, 9]
        #expect(planned.map(\.rowID) == (personFirst ? personIDs + noteIDs : noteIDs + personIDs))
        for pair in zip(planned, planned.dropFirst()) { #expect(!pair.1.precedes(pair.0)) }

        var sorted = rows([(person, 1), (person, 5), (person, 8)])
        RecordContext.PlannedRow.sortInTableOrder(&sorted)
        #expect(sorted.map(\.rowID) == [1, 5, 8])
        var single = rows([(person, 4)])
        RecordContext.PlannedRow.sortInTableOrder(&single)
        #expect(single.map(\.rowID) == [4])
        var empty: [RecordContext.PlannedRow] = []
        RecordContext.PlannedRow.sortInTableOrder(&empty)
        #expect(empty.isEmpty)
    }

    @Test func changeSetsOfOneTransactionMergeToTheirNetEffect() {
        func id(_ rowID: Int64) -> RecordID { RecordID(entityName: "Person", rowID: rowID) }
        let merged = ChangeSet(merging: [
            ChangeSet(inserted: [id(1), id(2)], updated: [id(10)]),
            ChangeSet(updated: [id(1), id(10), id(11)], deleted: [id(2), id(12)]),
            // Row id 2 comes back with a later insert.
            ChangeSet(inserted: [id(2)], updated: [id(11)], deleted: [id(10)]),
        ])
        #expect(merged.inserted == [id(1), id(2)])
        #expect(merged.updated == [id(11)])
        #expect(merged.deleted == [id(12), id(10)])

        let many = (1...20_000).map { id(Int64($0)) }
        let large = ChangeSet(merging: [ChangeSet(updated: many), ChangeSet(updated: many.reversed())])
        #expect(large.updated == many)
    }
}
