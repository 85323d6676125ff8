import Foundation
import Testing
@testable import LiteRecord

/// Objects outlive their contexts: an object holds its context unretained
/// (``RecordState``), so a context must detach every object that points at it
/// when it goes away, whatever list the object was on. These tests let a
/// context die with objects in every state and then use the objects.
@Suite struct ContextLifetimeTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self, HandWrittenNote.self])
        let seed = stack.newContext()
        for (name, age) in [("Ann", 31), ("Bob", 42), ("Cy", 53)] { seed.insert(HandWrittenPerson(name: name, age: age)) }
        try seed.save()
    }

    /// Objects in each state a context can leave them in: fetched, fetched
    /// and changed, fetched and deleted (unsaved), inserted (unsaved), and
    /// saved after insertion.
    private func objectsOfADeadContext() throws -> [HandWrittenPerson] {
        let context = stack.newContext()
        let fetched = try HandWrittenPerson.findAll(in: context).sorted { $0.name < $1.name }
        fetched[1].age += 1
        context.delete(fetched[2])
        let inserted = HandWrittenPerson(name: "Dee", age: 20)
        context.insert(inserted)
        let saved = HandWrittenPerson(name: "Eve", age: 21)
        let other = stack.newContext()
        other.insert(saved)
        try other.save()
        return fetched + [inserted, saved]
    }

    @Test func everyObjectIsDetachedWhenItsContextGoesAway() throws {
        let objects = try objectsOfADeadContext()
        for object in objects {
            #expect(object.context == nil, "\(object.name)")
            #expect(object.recordID == nil, "\(object.name)")
        }
        // The unsaved insert, the change and the deletion died with the
        // context; the object that was never saved is a plain new object.
        let context = stack.newContext()
        context.insert(objects[3])
        try context.save()
        let names = try HandWrittenPerson.findAll(in: context).map(\.name).sorted()
        #expect(names == ["Ann", "Bob", "Cy", "Dee", "Eve"])
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Bob", in: context)?.age == 42)
    }

    @Test func childObjectsAreDetachedWhenTheChildGoesAway() throws {
        let parent = stack.newContext()
        var kept: [HandWrittenPerson] = []
        do {
            let child = parent.makeChildContext()
            let fetched = try HandWrittenPerson.findAll(in: child)
            fetched[0].age += 10
            let inserted = HandWrittenPerson(name: "Fay", age: 22)
            child.insert(inserted)
            try child.save()
            kept = fetched + [inserted]
        }
        for object in kept { #expect(object.context == nil, "\(object.name)") }
        #expect(parent.hasChanges, "the child's push stays in the parent")
        try parent.save()
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 4)
    }

    @Test func aDeadContextsObjectIsNotMistakenForANewContexts() throws {
        // A new context may be allocated where the dead one was: an object
        // left pointing at the old address would pass for one of its own.
        let objects = try objectsOfADeadContext()
        for _ in 0..<50 {
            let context = stack.newContext()
            for object in objects {
                #expect(object.context !== context)
                #expect(!object.recordState.belongs(to: context))
            }
        }
    }
}
