import Foundation
import LiteRecord
import Testing

/// A shelf and its one clock: a one-to-one with a column on each side;
/// deleting the shelf takes its clock.
@Entity(name: "DOShelf")
final class DOShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \DOClock.shelf) var clock: DOClock?
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "DOClock")
final class DOClock {
    var label = ""
    @Relationship var shelf: DOShelf?
    init() {}
    init(_ label: String) { self.label = label }
}

/// Docs/Concurrency.md, "Conflicts and merge policies": discarding changes
/// (`refresh(_:mergeChanges: false)`, `rollback()`) leaves both sides of a
/// one-to-one agreeing. A pairing made here is a change of both objects:
/// refreshing either side discards it on both. Before, the refreshed side
/// took its stored partner while the other still named it, and deleting one
/// of them cascaded by its own side (model seeds 31172 and 34914).
@Suite struct DiscardedOneToOneTests {
    let stack: RecordStack

    /// Shelf "s" with clock "one", shelf "t" with none; clock "two" on no shelf.
    init() throws {
        stack = try RecordStack(inMemoryWith: [DOShelf.self, DOClock.self])
        let context = stack.newContext()
        let shelves = ["s", "t"].map(DOShelf.init)
        let clocks = ["one", "two"].map(DOClock.init)
        for shelf in shelves { context.insert(shelf) }
        for clock in clocks { context.insert(clock) }
        shelves[0].clock = clocks[0]
        try context.save()
    }

    private func shelf(_ name: String, in context: RecordContext) throws -> DOShelf {
        try #require(try DOShelf.findFirst(byAttribute: "name", withValue: name, in: context))
    }

    private func clock(_ label: String, in context: RecordContext) throws -> DOClock {
        try #require(try DOClock.findFirst(byAttribute: "label", withValue: label, in: context))
    }

    /// The shelf each clock's row names, and the clock each shelf's row names.
    private func stored() throws -> [String: String] {
        let context = stack.newContext()
        var pairs: [String: String] = [:]
        for clock in try DOClock.findAll(in: context) { pairs[clock.label] = clock.shelf?.name ?? "-" }
        for shelf in try DOShelf.findAll(in: context) { pairs[shelf.name] = shelf.clock?.label ?? "-" }
        return withExtendedLifetime(context) { pairs }
    }

    @Test func refreshingTheShelfTakesItsStoredClockBackOnBothSides() throws {
        let context = stack.newContext()
        let shelf = try shelf("s", in: context)
        let one = try clock("one", in: context)
        let two = try clock("two", in: context)
        shelf.clock = two
        #expect(one.shelf == nil && two.shelf === shelf)
        try context.refresh(shelf, mergeChanges: false)
        #expect(shelf.clock === one)
        #expect(one.shelf === shelf, "the stored partner names the shelf again")
        #expect(two.shelf == nil, "the clock paired here lets go of the shelf")
        #expect(!context.hasChanges, "both clocks are back at their rows")
        context.delete(shelf)
        #expect(Set(context.deletedObjects.compactMap { ($0 as? DOClock)?.label }) == ["one"])
        try context.save()
        #expect(try stored() == ["two": "-", "t": "-"])
    }

    @Test func refreshingTheClockPairedHereLetsTheShelfGoOfIt() throws {
        let context = stack.newContext()
        let shelf = try shelf("s", in: context)
        let one = try clock("one", in: context)
        let two = try clock("two", in: context)
        shelf.clock = two
        try context.refresh(two, mergeChanges: false)
        #expect(two.shelf == nil)
        #expect(shelf.clock == nil, "the shelf lets go of the refreshed clock")
        #expect(one.shelf == nil, "the clock displaced here stays displaced: its own change")
        context.delete(shelf)
        #expect(context.deletedObjects.allSatisfy { !($0 is DOClock) }, "the shelf's side names no clock to take")
        try context.save()
        #expect(try stored() == ["one": "-", "two": "-", "t": "-"])
    }

    @Test func aStoredPartnerPairedElsewhereHereDisplacesTheRefreshedSide() throws {
        let context = stack.newContext()
        let s = try shelf("s", in: context)
        let t = try shelf("t", in: context)
        let one = try clock("one", in: context)
        let two = try clock("two", in: context)
        s.clock = two
        t.clock = one
        try context.refresh(s, mergeChanges: false)
        #expect(s.clock == nil, "its stored clock went to shelf t here, a change the refresh keeps")
        #expect(one.shelf === t && t.clock === one)
        #expect(two.shelf == nil)
        try context.save()
        #expect(try stored() == ["s": "-", "t": "one", "one": "t", "two": "-"])
    }

    @Test func refreshingAnUnpairedShelfPairsItsStoredClockAgain() throws {
        let context = stack.newContext()
        let shelf = try shelf("s", in: context)
        let one = try clock("one", in: context)
        shelf.clock = nil
        #expect(one.shelf == nil)
        try context.refresh(shelf, mergeChanges: false)
        #expect(shelf.clock === one && one.shelf === shelf)
        #expect(!context.hasChanges)
    }

    /// A held partner that shows another pairing only because this context
    /// read it before another writer's change (unchanged here) is a stale
    /// read, not a pairing made here: the refreshed shelf takes its stored
    /// clock and is not displaced (the review of this change: it was, and
    /// its next save cleared one side of the pairing in the store).
    @Test func aStalePartnerDoesNotDisplaceTheRefreshedSide() throws {
        let context = stack.newContext()
        let t = try shelf("t", in: context)
        let one = try clock("one", in: context)
        let two = try clock("two", in: context)
        #expect(one.shelf?.name == "s")
        let other = stack.newContext()
        try shelf("t", in: other).clock = try clock("one", in: other)
        try other.save()
        t.clock = two
        #expect(throws: LiteRecordError.self) { try context.save() }
        try context.refresh(t, mergeChanges: false)
        #expect(t.clock === one, "its stored clock")
        #expect(two.shelf == nil)
        #expect(!context.hasChanges, "nothing for a save to write over the other writer's pairing")
    }

    /// Model seed 34609: a merged write pairs a shelf deleted here with
    /// another clock; `rollback()` takes the deletion back at the write's
    /// values (Docs/Concurrency.md's merge rules), its clock included, not
    /// at the one its cascade took.
    @Test @MainActor func rollbackAfterAMergeKeepsTheWritesPairingOfADeletedShelf() async throws {
        let main = stack.mainContext
        let shelf = try shelf("s", in: main)
        let one = try clock("one", in: main)
        let two = try clock("two", in: main)
        #expect(one.shelf === shelf && shelf.clock === one)
        main.delete(shelf)
        #expect(main.deletedObjects.contains { $0 === one }, "the cascade takes clock one")
        try await stack.write { context in
            let shelf = try DOShelf.findFirst(byAttribute: "name", withValue: "s", in: context)
            try DOClock.findFirst(byAttribute: "label", withValue: "two", in: context)?.shelf = shelf
        }
        main.rollback()
        #expect(shelf.clock === two, "the write's pairing")
        #expect(two.shelf === shelf)
        #expect(one.shelf == nil)
        #expect(!main.hasChanges)
        #expect(try stored() == ["s": "two", "two": "s", "one": "-", "t": "-"])
    }
}
