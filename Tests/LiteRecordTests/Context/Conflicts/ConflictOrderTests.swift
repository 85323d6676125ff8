import Foundation
import Testing
import LiteRecord

@Entity(name: "Ticket")
final class Ticket {
    @Attribute(.unique) var code = ""
    var note = ""
    init() {}
    init(_ code: String) { self.code = code }
}

/// A save that deletes a row changed elsewhere and gives its unique value to
/// another row: the deletion's conflict is resolved before the update runs,
/// so `.objectTrumps` deletes and goes on, and `.error` reports the conflict.
@Suite struct ConflictOrderTests {
    let stack: RecordStack
    let context: RecordContext

    /// Tickets "a" and "b", read by `context`; "a" then changed elsewhere.
    init() throws {
        stack = try RecordStack(inMemoryWith: [Ticket.self])
        let setup = stack.newContext()
        setup.insert(Ticket("a"))
        setup.insert(Ticket("b"))
        try setup.save()
        context = stack.newContext()
        let a = try #require(try Ticket.findFirst(byAttribute: "code", withValue: "a", in: context))
        let b = try #require(try Ticket.findFirst(byAttribute: "code", withValue: "b", in: context))
        let other = stack.newContext()
        try #require(try Ticket.findFirst(byAttribute: "code", withValue: "a", in: other)).note = "changed elsewhere"
        try other.save()
        context.delete(a)
        b.code = "a"
    }

    @Test func objectTrumpsDeletesAndGoesOn() throws {
        context.mergePolicy = .objectTrumps
        try context.save()
        let fresh = stack.newContext()
        #expect(try Ticket.findAll(in: fresh).map(\.code) == ["a"])
    }

    @Test func errorReportsTheConflict() throws {
        context.mergePolicy = .error
        expectError(.conflict) { try context.save() }
        let fresh = stack.newContext()
        #expect(try Ticket.findAll(in: fresh).map(\.code).sorted() == ["a", "b"])
    }
}
