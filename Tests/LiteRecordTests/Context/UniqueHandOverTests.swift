import Foundation
import Testing
import LiteRecord

/// Docs/Concurrency.md: an update may take a unique value that another
/// record of the same save gives up, whatever the order of their rows;
/// records exchanging values in a cycle are refused with
/// `.constraintViolation`, nothing written.
@Suite struct UniqueHandOverTests {
    let stack: RecordStack
    let context: RecordContext
    /// The context's tickets, in row order, with codes "a", "b", "c".
    let tickets: [Ticket]

    init() throws {
        stack = try RecordStack(inMemoryWith: [Ticket.self])
        let setup = stack.newContext()
        for code in ["a", "b", "c"] { setup.insert(Ticket(code)) }
        try setup.save()
        context = stack.newContext()
        tickets = try Ticket.findAll(in: context).sorted { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }
        try #require(tickets.map(\.code) == ["a", "b", "c"])
    }

    private func storedCodes() throws -> [String] {
        try Ticket.findAll(in: stack.newContext()).sorted { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }.map(\.code)
    }

    /// The first row takes the second's value, which the second gives up:
    /// the first row's statement runs before the second's.
    @Test func anEarlierRowTakesTheValueOfALaterOne() throws {
        tickets[0].code = "b"
        tickets[1].code = "z"
        try context.save()
        #expect(try storedCodes() == ["b", "z", "c"])
        #expect(!context.hasChanges)
    }

    /// A chain along the rows, each taking the next one's value.
    @Test func aChainAgainstRowOrder() throws {
        tickets[0].code = "b"
        tickets[1].code = "c"
        tickets[2].code = "d"
        try context.save()
        #expect(try storedCodes() == ["b", "c", "d"])
    }

    /// The record giving the value up was changed elsewhere: its conflict
    /// is resolved and its new value written, then the taker's update runs
    /// (model seed 120169); under `.error` the save reports the conflict.
    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps, .error])
    func aRecordChangedElsewhereGivesItsValueUp(_ policy: MergePolicy) throws {
        let other = stack.newContext()
        try #require(try Ticket.findFirst(byAttribute: "code", withValue: "b", in: other)).note = "changed elsewhere"
        try other.save()
        context.mergePolicy = policy
        tickets[0].code = "b"
        tickets[1].code = "z"
        guard policy != .error else {
            expectError(.conflict) { try context.save() }
            #expect(try storedCodes() == ["a", "b", "c"])
            return
        }
        try context.save()
        #expect(try storedCodes() == ["b", "z", "c"])
        let stored = try Ticket.findAll(in: stack.newContext()).first { $0.code == "z" }
        #expect(stored?.note == "changed elsewhere")
    }

    /// Both records changed elsewhere: their conflicts are resolved in row
    /// order, and the taker's resolution meets the index until the giver's
    /// ran (model seed 73356).
    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps])
    func bothRecordsChangedElsewhere(_ policy: MergePolicy) throws {
        let other = stack.newContext()
        for ticket in try Ticket.findAll(in: other) where ticket.code != "c" { ticket.note = "changed elsewhere" }
        try other.save()
        context.mergePolicy = policy
        tickets[0].code = "b"
        tickets[1].code = "z"
        try context.save()
        #expect(try storedCodes() == ["b", "z", "c"])
    }

    /// A cycle of three is an exchange: refused, nothing written, the
    /// context's changes kept.
    @Test func aCycleIsRefused() throws {
        tickets[0].code = "b"
        tickets[1].code = "c"
        tickets[2].code = "a"
        expectError(.constraintViolation) { try context.save() }
        #expect(try storedCodes() == ["a", "b", "c"])
        #expect(tickets.map(\.code) == ["b", "c", "a"])
        #expect(context.hasChanges)
    }

    /// A value another record keeps is refused whatever the order.
    @Test func aValueAnotherRecordKeepsIsRefused() throws {
        tickets[0].code = "c"
        tickets[1].code = "z"
        expectError(.constraintViolation) { try context.save() }
        #expect(try storedCodes() == ["a", "b", "c"])
    }
}
