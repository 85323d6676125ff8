import Foundation
import Testing
import LiteRecord

/// `enumerate` streams what a fetch would return, object for object and value
/// for value (Docs/Queries.md): an object the context already holds is
/// refreshed with the stored values except for attributes changed and not
/// saved, and a child sees its parent's unsaved changes. Streaming keeps
/// memory bounded; it must not change what the objects say.
@Suite struct EnumerateAsFetchTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [QueryPerson.self])
        let setup = stack.newContext()
        for (name, age) in [("Ann", 30), ("Bob", 40), ("Cid", 50)] {
            let person = QueryPerson()
            (person.name, person.age) = (name, age)
            setup.insert(person)
        }
        try setup.save()
    }

    /// The names and ages `enumerate` hands over, in insertion order.
    func enumerated(in context: RecordContext, batchSize: Int = 2) throws -> [String] {
        var seen: [String] = []
        try QueryPerson.enumerate(batchSize: batchSize, in: context) { seen.append("\($0.name) \($0.age)") }
        return seen
    }

    /// The same through a fetch: the plain path the stream must agree with.
    func fetched(in context: RecordContext) throws -> [String] {
        try QueryPerson.findAll(in: context).sorted { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }
            .map { "\($0.name) \($0.age)" }
    }

    @Test func aHeldObjectChangedElsewhereIsRefreshed() throws {
        let context = stack.newContext()
        let ann = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Ann", in: context))
        ann.age = 31  // changed here, not saved: kept
        let other = stack.newContext()
        let elsewhere = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Ann", in: other))
        elsewhere.name = "Anne"
        try other.save()
        let bob = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Bob", in: context))
        let bobElsewhere = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Bob", in: other))
        bobElsewhere.age = 41
        try other.save()

        #expect(try enumerated(in: context) == ["Anne 31", "Bob 41", "Cid 50"])
        #expect(bob.age == 41)
        #expect(try enumerated(in: context) == (try fetched(in: context)))
    }

    @Test func aChildSeesItsParentsUnsavedChanges() throws {
        let parent = stack.newContext()
        let bob = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Bob", in: parent))
        bob.age = 44
        let child = parent.makeChildContext()
        #expect(try enumerated(in: child, batchSize: 1) == ["Ann 30", "Bob 44", "Cid 50"])
        #expect(try enumerated(in: child) == (try fetched(in: child)))
    }

    @Test func everyBatchSizeAgreesWithAFetch() throws {
        let context = stack.newContext()
        let cid = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Cid", in: context))
        cid.age = 55
        for size in 1...4 {
            #expect(try enumerated(in: context, batchSize: size) == (try fetched(in: context)), "batch size \(size)")
        }
    }
}
