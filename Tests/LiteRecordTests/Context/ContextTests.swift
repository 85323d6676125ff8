import Foundation
import Testing
import LiteRecord

@Suite struct ContextTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self, HandWrittenNote.self])
        context = stack.newContext()
    }

    @Test func insertThenSaveAssignsRecordID() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        #expect(ann.recordID == nil)
        #expect(ann.context == nil)
        context.insert(ann)
        #expect(ann.context === context)
        #expect(ann.recordID == nil)
        try context.save()
        let id = try #require(ann.recordID)
        #expect(id.entityName == "Person")
        #expect(id.rowID > 0)
    }

    @Test func secondContextSeesSavedData() throws {
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        let other = stack.newContext()
        let found = try #require(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: other))
        #expect(found.age == 31)
        // And later changes, once saved, on the next fetch.
        let ann = try #require(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: context))
        ann.age = 32
        try context.save()
        let again = try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: other)
        #expect(again === found)
        #expect(found.age == 32)
    }

    @Test func identityMapReturnsOneObjectPerRecord() throws {
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        let a = try HandWrittenPerson.findAll(in: context)
        let b = try HandWrittenPerson.findAll(in: context)
        #expect(a.count == 1)
        #expect(a[0] === b[0])
    }

    @Test func fetchKeepsUnsavedEdits() throws {
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        let ann = try #require(try HandWrittenPerson.findAll(in: context).first)
        ann.name = "Annie"
        _ = try HandWrittenPerson.findAll(in: context)
        #expect(ann.name == "Annie")
        #expect(context.hasChanges)
    }

    @Test func hasChangesFollowsEdits() throws {
        #expect(!context.hasChanges)
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        ann.age = 32
        #expect(context.hasChanges)
        ann.age = 31
        #expect(!context.hasChanges, "back to the saved value is no change")
        context.delete(ann)
        #expect(context.hasChanges)
    }

    @Test func rollbackDiscardsEverything() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        let bob = HandWrittenPerson(name: "Bob", age: 40)
        context.insert(ann)
        context.insert(bob)
        try context.save()
        ann.name = "typo"
        context.delete(bob)
        let carl = HandWrittenPerson(name: "Carl", age: 50)
        context.insert(carl)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(ann.name == "Ann")
        #expect(bob.context === context)
        #expect(carl.context == nil)
        try context.save()
        #expect(try HandWrittenPerson.findAll(sortedBy: "name", in: stack.newContext()).map(\.name) == ["Ann", "Bob"])
    }

    @Test func deleteRemovesTheRecord() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        try ann.delete(in: context)
        #expect(try HandWrittenPerson.findAll(in: context).isEmpty, "a pending deletion is not fetched")
        #expect(try HandWrittenPerson.count(in: context) == 0, "nor counted, as count is what fetch would return")
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 1, "but is still stored")
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("DELETE") } == ["DELETE FROM \"Person\" WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?"])
        #expect(try HandWrittenPerson.count(in: context) == 0)
        #expect(ann.recordID == nil)
        #expect(ann.context == nil)
    }

    @Test func deletingAnInsertedObjectJustDropsIt() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        context.delete(ann)
        #expect(!context.hasChanges)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.isEmpty)
    }

    @Test func awakeFromInsertRunsOnce() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        context.insert(ann)
        #expect(ann.awakeCount == 1)
        try context.save()
        #expect(ann.awakeCount == 1)
        _ = try HandWrittenPerson.findAll(in: stack.newContext())
        #expect(ann.awakeCount == 1)
    }

    @Test func willSaveRunsForWrittenObjectsOnly() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        #expect(ann.willSaveCount == 1)
        try context.save()
        #expect(ann.willSaveCount == 1)
        ann.age = 33
        try context.save()
        #expect(ann.willSaveCount == 2)
    }

    @Test func objectFromAnotherContextIsReportedAtSave() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let other = stack.newContext()
        other.insert(ann)
        expectError(.invalidObject) { try other.save() }
        expectError(.invalidObject) { try ann.delete(in: other) }
        expectError(.invalidObject) { try HandWrittenPerson(name: "x", age: 0).delete(in: other) }
    }

    @Test func inContextFindsTheSameRecord() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        #expect(ann.inContext(context) == nil)
        context.insert(ann)
        try context.save()
        let other = stack.newContext()
        let mine = try #require(ann.inContext(other))
        #expect(mine !== ann)
        #expect(mine.recordID == ann.recordID)
        #expect(mine.name == "Ann")
        try HandWrittenPerson.truncateAll(in: context)
        #expect(ann.inContext(stack.newContext()) == nil)
    }

    @Test func objectWithRecordID() throws {
        let note = HandWrittenNote(text: "hi")
        context.insert(note)
        try context.save()
        let id = try #require(note.recordID)
        #expect(try context.object(with: id, as: HandWrittenNote.self) === note)
        #expect(try stack.newContext().object(with: id, as: HandWrittenNote.self)?.text == "hi")
        expectError(.invalidObject) { try context.object(with: id, as: HandWrittenPerson.self) }
        #expect(try context.object(with: RecordID(entityName: "HandWrittenNote", rowID: 999), as: HandWrittenNote.self) == nil)
    }

    @Test func entityOutsideTheModelIsRejected() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenNote.self])
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 1))
        expectError(.invalidObject) { try context.save() }
        let error = expectError(.invalidObject) { try HandWrittenPerson.findAll(in: context) }
        #expect(error?.message.hasPrefix("Person is not an entity of the in-memory store; add HandWrittenPerson.self") == true)
    }

    @Test func resetDetachesEverything() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        ann.age = 99
        context.reset()
        #expect(!context.hasChanges)
        #expect(ann.context == nil)
        #expect(try HandWrittenPerson.findAll(in: context).first?.age == 31)
    }

    @Test func refreshDropsInMemoryChanges() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        ann.age = 99
        try context.refresh(ann)
        #expect(ann.age == 31)
        #expect(!context.hasChanges)
    }

    @Test func decodingANullIntoANonOptionalIsAnError() throws {
        // The column allows NULL (as if another program wrote the store), but the
        // property is non-optional: a clear error, not a crash.
        final class Loose: Entity {
            var recordState = RecordState()
            var age = 0
            static let attributes = [AttributeDescription("age", type: .int, isOptional: true)]
            init() {}
            init(row: Row) throws { age = try row.decode(Int.self, at: 0) }
            func encodeAttribute(at index: Int) throws -> SQLValue { .null }
            func decodeAttribute(at index: Int, from row: Row) throws { age = try row.decode(Int.self, at: 0) }
        }
        let stack = try RecordStack(inMemoryWith: [Loose.self])
        let context = stack.newContext()
        context.insert(Loose())
        try context.save()
        let error = expectError(.decodingFailed) { try Loose.findAll(in: stack.newContext()) }
        #expect(error?.message.contains("Loose.age is NULL") == true)
    }
}
