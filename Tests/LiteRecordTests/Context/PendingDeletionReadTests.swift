import Foundation
import Testing
import LiteRecord

/// Objects marked for deletion and not yet saved are left out of every read,
/// inside the SQL: a `LIMIT`, an `OFFSET`, a count, an existence test, an
/// aggregate and an enumeration's pages see exactly the objects a fetch
/// returns.
@Suite struct PendingDeletionReadTests {
    let stack: RecordStack
    let context: RecordContext
    let first: QueryPerson

    /// Ann (30), Bob (40), Cid (50), in that order; Ann marked for deletion.
    init() throws {
        stack = try RecordStack(inMemoryWith: [QueryPerson.self])
        context = stack.newContext()
        for (name, age) in [("Ann", 30), ("Bob", 40), ("Cid", 50)] {
            let person = QueryPerson()
            (person.name, person.age) = (name, age)
            context.insert(person)
        }
        try context.save()
        first = try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Ann", in: context))
        context.delete(first)
    }

    @Test func aLimitCountsOnlyWhatAFetchReturns() throws {
        let adult = #Predicate<QueryPerson> { $0.age >= 18 }
        let found = try QueryPerson.findFirst(matching: adult, sortedBy: [SortDescriptor(\.age)], in: context)
        #expect(found?.name == "Bob")
        let page = try context.fetch(FetchRequest(predicate: adult, sortBy: [SortDescriptor(\.age)], fetchLimit: 1, fetchOffset: 1))
        #expect(page.map(\.name) == ["Cid"])
    }

    @Test func countsAndExistenceLeaveThePendingDeletionOut() throws {
        #expect(try QueryPerson.count(in: context) == 2)
        #expect(try QueryPerson.count(matching: #Predicate { $0.age < 35 }, in: context) == 0)
        #expect(try QueryPerson.exists(matching: #Predicate { $0.name == "Ann" }, in: context) == false)
        #expect(try context.count(FetchRequest<QueryPerson>(fetchLimit: 5)) == 2)
        #expect(try context.exists(FetchRequest<QueryPerson>(fetchLimit: 1)))
    }

    @Test func aggregatesLeaveThePendingDeletionOut() throws {
        #expect(try QueryPerson.aggregate(.sum, of: \.age, in: context) == 90)
        #expect(try QueryPerson.aggregate(.min, of: \.age, in: context) == 40)
        let byName = try QueryPerson.aggregate(.count, of: \.age, groupedBy: \.name, in: context)
        #expect(byName == ["Bob": 1, "Cid": 1])
    }

    @Test func aPageOfOnlyPendingDeletionsDoesNotEndAnEnumeration() throws {
        var names: [String] = []
        try QueryPerson.enumerate(batchSize: 1, in: context) { names.append($0.name) }
        #expect(names == ["Bob", "Cid"])
        names = []
        try QueryPerson.enumerate(sortedBy: [SortDescriptor(\.age)], batchSize: 1, in: context) { names.append($0.name) }
        #expect(names == ["Bob", "Cid"])
    }

    @Test func findFirstOrCreateFindsTheRecordThatStays() throws {
        let bob = try context.fetch(FetchRequest<QueryPerson>(predicate: #Predicate { $0.name == "Bob" })).first
        let twin = QueryPerson()
        (twin.name, twin.age) = ("Ann", 31)
        let other = stack.newContext()
        other.insert(twin)
        try other.save()
        // Two stored Anns, the first of them being deleted here: the other is found.
        let found = try QueryPerson.findFirstOrCreate(byAttribute: "name", withValue: "Ann", in: context)
        #expect(found.age == 31)
        #expect(bob != nil)
    }

    @Test func aChildLeavesOutWhatItsParentDeletes() throws {
        context.delete(try #require(try QueryPerson.findFirst(byAttribute: "name", withValue: "Bob", in: context)))
        let child = context.makeChildContext()
        #expect(try QueryPerson.findFirst(matching: #Predicate { $0.age > 0 }, sortedBy: [SortDescriptor(\.age)], in: child)?.name == "Cid")
        #expect(try QueryPerson.count(in: child) == 1)
    }

    @Test func afterTheSaveTheRecordIsGoneAndReadsAreUnchanged() throws {
        try context.save()
        #expect(try QueryPerson.count(in: context) == 2)
        #expect(try QueryPerson.findFirst(matching: #Predicate { $0.age > 0 }, sortedBy: [SortDescriptor(\.age)], in: context)?.name == "Bob")
    }
}

/// Operations that write to the store at once are refused in a child
/// context, whose changes must reach only its parent until the root saves.
@Suite struct SetBasedChildRefusalTests {
    @Test func everySetBasedOperationIsRefusedInAChild() throws {
        let stack = try RecordStack(inMemoryWith: [QueryPerson.self])
        let root = stack.newContext()
        let ann = QueryPerson()
        ann.name = "Ann"
        root.insert(ann)
        try root.save()
        let child = root.makeChildContext()
        let operations: [(String, () throws -> Void)] = [
            ("deleteAll", { _ = try QueryPerson.deleteAll(matching: #Predicate { $0.age >= 0 }, in: child) }),
            ("truncateAll", { _ = try QueryPerson.truncateAll(in: child) }),
            ("findFirstOrCreate", { _ = try QueryPerson.findFirstOrCreate(byAttribute: "name", withValue: "Zed", in: child) }),
            ("updateAll", { _ = try QueryPerson.updateAll(matching: #Predicate { $0.age >= 0 }, set: \.age, to: 3, in: child) }),
        ]
        for (name, operation) in operations {
            let error = expectError(.invalidObject, operation)
            #expect(error?.message.contains("\(name) cannot run in a child context") == true, "\(String(describing: error))")
        }
        // Nothing reached the store.
        let fresh = stack.newContext()
        #expect(try QueryPerson.findAll(in: fresh).map(\.name) == ["Ann"])
        #expect(try QueryPerson.findAll(in: fresh).map(\.age) == [0])
    }
}
