import Foundation
import Testing
import LiteRecord

/// After a child pushes an insert and the root saves, the child's object is
/// the child's object for the new record, with its record id: one object per
/// record in the child, as MagicalRecord's own save tests assert of Core
/// Data's child contexts.
@Suite struct ChildPushIdentityTests {
    @Test func aPushedInsertGetsItsRecordIDWhenTheRootSaves() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let root = stack.newContext()
        let child = root.makeChildContext()
        let note = HandWrittenPerson(name: "Note", age: 1)
        child.insert(note)
        try child.save()
        #expect(note.recordID == nil, "nothing is stored before the root saves")
        try root.save()
        let id = try #require(note.recordID)
        #expect(child.registeredObjects.contains { $0 === note })
        #expect(try child.object(with: id, as: HandWrittenPerson.self) === note)
        #expect(try HandWrittenPerson.findAll(in: child).count == 1)
        #expect(try HandWrittenPerson.findAll(in: child).first === note)
        // Edited again in the child, pushed and saved: the same record.
        note.age = 2
        try child.save()
        try root.save()
        #expect(try HandWrittenPerson.findAll(in: stack.newContext()).map(\.age) == [2])
    }

    @Test func aGrandchildsInsertIsAdoptedAllTheWayDown() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let root = stack.newContext()
        let child = root.makeChildContext()
        let grandchild = child.makeChildContext()
        let note = HandWrittenPerson(name: "Note", age: 1)
        grandchild.insert(note)
        try grandchild.save()
        try child.save()
        try root.save()
        let id = try #require(note.recordID)
        #expect(try grandchild.object(with: id, as: HandWrittenPerson.self) === note)
        let inChild = try #require(try child.object(with: id, as: HandWrittenPerson.self))
        #expect(inChild.recordID == id)
        #expect(child.registeredObjects.count { $0 is HandWrittenPerson } == 1)
    }
}
