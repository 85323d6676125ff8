import Foundation
import Testing
import LiteRecord

@Suite(.tags(.threads)) struct ChildContextTests {
    let folder: TemporaryDirectory
    let stack: RecordStack
    let root: RecordContext

    init() throws {
        folder = try TemporaryDirectory()
        stack = try RecordStack(storeAt: folder.file("child.sqlite"), entities: [HandWrittenPerson.self])
        root = stack.newContext()
        root.insert(HandWrittenPerson(name: "Ann", age: 31))
        try root.save()
    }

    private func storedNames() throws -> [String] {
        try HandWrittenPerson.findAll(sortedBy: "name", in: stack.newContext()).map(\.name)
    }

    @Test func saveOfAChildPushesIntoTheParentOnly() throws {
        let child = root.makeChildContext()
        #expect(child.isChild)
        let ann = try #require(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: child))
        ann.age = 32
        child.insert(HandWrittenPerson(name: "Bob", age: 40))
        let (_, statements) = try stack.recordingSQL { try child.save() }
        #expect(statements.filter { !$0.hasPrefix("SELECT") }.isEmpty, "nothing is written to the store")
        #expect(!child.hasChanges)
        #expect(root.hasChanges)
        #expect(try storedNames() == ["Ann"])
        #expect(try HandWrittenPerson.findAll(in: stack.newContext()).first?.age == 31)

        try root.save()
        #expect(try storedNames() == ["Ann", "Bob"])
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: stack.newContext())?.age == 32)
    }

    @Test func discardingAChildLeavesTheParentAlone() throws {
        do {
            let child = root.makeChildContext()
            try HandWrittenPerson.findAll(in: child).first?.name = "Changed"
            child.insert(HandWrittenPerson(name: "Never", age: 1))
        }
        #expect(!root.hasChanges)
        let child = root.makeChildContext()
        try HandWrittenPerson.findAll(in: child).first?.name = "Changed"
        child.rollback()
        try child.save()
        #expect(!root.hasChanges)
        #expect(try HandWrittenPerson.findAll(in: root).first?.name == "Ann")
    }

    @Test func twoLevelsDeep() throws {
        let child = root.makeChildContext()
        let grandchild = child.makeChildContext()
        try HandWrittenPerson.findAll(in: grandchild).first?.age = 70
        grandchild.insert(HandWrittenPerson(name: "Gina", age: 7))
        try grandchild.save()
        #expect(child.hasChanges)
        #expect(!root.hasChanges)
        try child.save()
        #expect(root.hasChanges)
        #expect(try storedNames() == ["Ann"], "nothing reaches the file before the root saves")
        try root.save()
        #expect(try storedNames() == ["Ann", "Gina"])
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: stack.newContext())?.age == 70)
    }

    @Test func childSeesTheParentsUnsavedEditsAndDeletions() throws {
        root.insert(HandWrittenPerson(name: "Bob", age: 40))
        try root.save()
        let people = try HandWrittenPerson.findAll(sortedBy: "name", in: root)
        people[0].age = 99
        root.delete(people[1])
        let child = root.makeChildContext()
        let seen = try HandWrittenPerson.findAll(sortedBy: "name", in: child)
        #expect(seen.map(\.name) == ["Ann"])
        #expect(seen.first?.age == 99)
        #expect(!child.hasChanges)
    }

    @Test func deletionInAChildIsPushed() throws {
        let child = root.makeChildContext()
        let ann = try #require(try HandWrittenPerson.findAll(in: child).first)
        child.delete(ann)
        try child.save()
        #expect(root.deletedObjects.count == 1)
        try root.save()
        #expect(try storedNames().isEmpty)
    }

    @Test func editsAfterAPushGoToTheSameParentObject() throws {
        let child = root.makeChildContext()
        let bob = HandWrittenPerson(name: "Bob", age: 40)
        child.insert(bob)
        try child.save()
        bob.age = 41
        #expect(child.hasChanges)
        try child.save()
        #expect(root.insertedObjects.count == 1)
        try root.save()
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Bob", in: stack.newContext())?.age == 41)
        #expect(bob.awakeCount == 1, "the parent's copy does not awake again")
    }

    @Test func validationRunsWhenPushing() throws {
        let child = root.makeChildContext()
        let bad = HandWrittenPerson(name: "Bad", age: 1)
        bad.rejectName = "Bad"
        child.insert(bad)
        expectError(.validationFailed) { try child.save() }
        #expect(!root.hasChanges)
        #expect(child.hasChanges)
    }
}
