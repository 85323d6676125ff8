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

/// A stack holding tickets "a" (row 1) and "b" (row 2).
private func twoTickets() throws -> RecordStack {
    let stack = try RecordStack(inMemoryWith: [Ticket.self])
    let setup = stack.newContext()
    setup.insert(Ticket("a"))
    setup.insert(Ticket("b"))
    try setup.save()
    return stack
}

/// A save that deletes a row changed elsewhere and gives its unique value to
/// another row: the deletion's conflict is resolved before the update runs,
/// so `.objectTrumps` deletes and goes on, and `.error` reports the conflict.
@Suite struct ConflictOrderTests {
    let stack: RecordStack
    let context: RecordContext

    /// Tickets "a" and "b", read by `context`; "a" then changed elsewhere.
    init() throws {
        stack = try twoTickets()
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

/// Under `.error` a save that meets a conflict reports `.conflict`, even when
/// one of its updates also meets the unique index first (Docs/Concurrency.md):
/// the conflict's resolution may change what the save writes. A swap of
/// unique values stays refused once the conflict is settled.
@Suite struct ConflictBeforeUniqueClashTests {
    let stack: RecordStack
    let context: RecordContext

    /// Tickets "a" (row 1) and "b" (row 2), read by `context`.
    init() throws {
        stack = try twoTickets()
        context = stack.newContext()
    }

    private func ticket(_ code: String, in context: RecordContext) throws -> Ticket {
        try #require(try Ticket.findFirst(byAttribute: "code", withValue: code, in: context))
    }

    private func editElsewhere(_ code: String, note: String = "changed elsewhere", newCode: String? = nil) throws {
        let other = stack.newContext()
        let ticket = try ticket(code, in: other)
        ticket.note = note
        if let newCode { ticket.code = newCode }
        try other.save()
    }

    private func storedCodes() throws -> [String] {
        try Ticket.findAll(in: stack.newContext()).map(\.code).sorted()
    }

    /// A swap whose second row was changed elsewhere: the first update meets
    /// the index before the second's statement finds the conflict.
    @Test func aSwapWithARowChangedElsewhereReportsTheConflict() throws {
        let a = try ticket("a", in: context)
        let b = try ticket("b", in: context)
        try editElsewhere("b")
        a.code = "b"
        b.code = "a"
        let error = expectError(.conflict) { try context.save() }
        #expect(error?.message.contains("Ticket/2") == true)
        #expect(try storedCodes() == ["a", "b"])
        // Settled with the store's row, the swap itself is still refused.
        try context.refresh(b, mergeChanges: true)
        expectError(.constraintViolation) { try context.save() }
        #expect(try storedCodes() == ["a", "b"])
    }

    /// A row changed elsewhere (its update finds the conflict) and another
    /// row taking the value that the store, not this context, gives it.
    @Test func aValueTakenFromAStaleRowReportsTheConflict() throws {
        let a = try ticket("a", in: context)
        let b = try ticket("b", in: context)
        try editElsewhere("a", newCode: "c")
        a.note = "edited here"
        b.code = "c"
        let error = expectError(.conflict) { try context.save() }
        #expect(error?.message.contains("Ticket/1") == true)
        #expect(try storedCodes() == ["b", "c"])
    }

    /// Without a conflict the unique index is what the save reports.
    @Test func aSwapWithoutAConflictIsAConstraintViolation() throws {
        let a = try ticket("a", in: context)
        let b = try ticket("b", in: context)
        a.code = "b"
        b.code = "a"
        expectError(.constraintViolation) { try context.save() }
        #expect(try storedCodes() == ["a", "b"])
    }
}
