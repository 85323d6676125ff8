import Foundation
import LiteRecord
import Testing

/// A tracked entity whose `willSave` runs a test's action once, so a test can
/// make one object's `willSave` insert or change others.
@Entity(name: "WillSaveItem")
final class WillSaveItem {
    var name = ""
    var note = ""
    @Transient var willSaveCount = 0
    @Transient var action: (() -> Void)?

    init() {}

    init(name: String) {
        self.name = name
    }

    func willSave() {
        willSaveCount += 1
        let action = action
        self.action = nil
        action?()
    }
}

/// `willSave` runs once on every object a save or a child's push writes,
/// including objects another object's `willSave` inserted or changed.
@Suite(.tags(.threads)) struct WillSaveTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self, WillSaveItem.self])
        context = stack.newContext()
    }

    @Test func untrackedObjectChangedInAChildGetsWillSaveOnPush() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let child = context.makeChildContext()
        let childAnn = try #require(ann.inContext(child))
        childAnn.age = 32
        try child.save()
        #expect(childAnn.willSaveCount == 1)
        #expect(ann.age == 32)
    }

    @Test func untrackedObjectChangedInAChildIsValidatedOnPush() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let child = context.makeChildContext()
        let childAnn = try #require(ann.inContext(child))
        childAnn.rejectName = "Bad"
        childAnn.name = "Bad"
        expectError(.validationFailed) { try child.save() }
        #expect(ann.name == "Ann")
    }

    @Test func objectInsertedByAnotherWillSaveGetsItsOwn() throws {
        let first = WillSaveItem(name: "first")
        let second = WillSaveItem(name: "second")
        first.action = { [context] in context.insert(second) }
        context.insert(first)
        try context.save()
        #expect(first.willSaveCount == 1)
        #expect(second.willSaveCount == 1)
        #expect(second.recordID != nil)
    }

    @Test func objectChangedByAnotherWillSaveGetsItsOwnAndIsWritten() throws {
        let first = WillSaveItem(name: "first")
        let second = WillSaveItem(name: "second")
        context.insert(first)
        context.insert(second)
        try context.save()
        first.name = "first, changed"
        first.action = { second.note = "touched" }
        try context.save()
        #expect(first.willSaveCount == 2)
        #expect(second.willSaveCount == 2)
        let reader = stack.newContext()
        let stored = try #require(WillSaveItem.findAll(in: reader).first { $0.name == "second" })
        #expect(stored.note == "touched")
    }

    @Test func willSaveRunsOncePerObjectEvenWhenTouchedAgain() throws {
        let first = WillSaveItem(name: "first")
        let second = WillSaveItem(name: "second")
        first.action = { [context] in context.insert(second) }
        second.action = { first.note = "set by second" }
        context.insert(first)
        try context.save()
        #expect(first.willSaveCount == 1)
        #expect(second.willSaveCount == 1)
        let reader = stack.newContext()
        let stored = try #require(WillSaveItem.findAll(in: reader).first { $0.name == "first" })
        #expect(stored.note == "set by second")
    }

    @Test func objectInsertedByWillSaveInAChildGetsItsOwn() throws {
        let child = context.makeChildContext()
        let first = WillSaveItem(name: "first")
        let second = WillSaveItem(name: "second")
        first.action = { child.insert(second) }
        child.insert(first)
        try child.save()
        #expect(second.willSaveCount == 1)
        #expect(context.insertedObjects.count == 2)
    }

    @Test func willSaveThatInsertsForeverFailsTheSave() throws {
        func chain(_ item: WillSaveItem) {
            item.action = { [context] in
                let next = WillSaveItem(name: "next")
                chain(next)
                context.insert(next)
            }
        }
        let first = WillSaveItem(name: "first")
        chain(first)
        context.insert(first)
        expectError(.validationFailed) { try context.save() }
    }
}
