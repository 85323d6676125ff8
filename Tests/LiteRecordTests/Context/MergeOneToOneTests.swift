import Foundation
import Testing
import LiteRecord

/// A desk and its one lamp: a one-to-one with a column on each side; deleting
/// the desk takes its lamp.
@Entity(name: "OODesk")
final class OODesk {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \OOLamp.desk) var lamp: OOLamp?
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "OOLamp")
final class OOLamp {
    var label = ""
    @Relationship var desk: OODesk?
    init() {}
    init(_ label: String) { self.label = label }
}

/// Docs/Concurrency.md, the merge into `mainContext`: a one-to-one changed
/// here keeps its pairing over the write's. A lamp the write put on a desk
/// whose lamp was changed here is displaced — its side reads nil, deleting
/// the desk does not take it, and the save clears its column — so the two
/// sides never name two partners in memory (model seed 12772: the merge
/// left both lamps naming the desk, and the desk's cascade took one).
@Suite struct MergeOneToOneTests {
    let stack: RecordStack

    /// Desk "d" with lamp "one"; lamps "two" and "three" on no desk.
    init() throws {
        stack = try RecordStack(inMemoryWith: [OODesk.self, OOLamp.self])
        let context = stack.newContext()
        let desk = OODesk("d")
        context.insert(desk)
        for label in ["one", "two", "three"] { context.insert(OOLamp(label)) }
        desk.lamp = try OOLamp.findFirst(byAttribute: "label", withValue: "one", in: context)
        try context.save()
    }

    /// A `write {}` that puts lamp "three" on desk "d".
    @MainActor private func putLampThreeOnTheDesk() async throws {
        try await stack.write { context in
            let three = try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: context)
            three?.desk = try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context)
        }
    }

    private func storedDesk(ofLamp label: String) throws -> String?? {
        let context = stack.newContext()
        guard let lamp = try OOLamp.findFirst(byAttribute: "label", withValue: label, in: context) else { return .none }
        return withExtendedLifetime(context) { .some(lamp.desk?.name) }
    }

    @Test @MainActor func aLampTheWritePairedWithAChangedDeskIsDisplaced() async throws {
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: main))
        let two = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "two", in: main))
        let three = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: main))
        #expect(three.desk == nil)
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        #expect(desk.lamp === two, "the pairing changed here stands")
        #expect(two.desk === desk)
        #expect(three.desk == nil, "displaced: one desk, one lamp")
        try main.save()
        #expect(try storedDesk(ofLamp: "two") == .some("d"))
        #expect(try storedDesk(ofLamp: "three") == .some(nil))
        #expect(try storedDesk(ofLamp: "one") == .some(nil))
    }

    @Test @MainActor func deletingTheDeskTakesOnlyItsLampHere() async throws {
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: main))
        let two = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "two", in: main))
        let three = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: main))
        _ = three.desk
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        main.delete(desk)
        #expect(main.deletedObjects.contains { $0 === two })
        #expect(!main.deletedObjects.contains { $0 === three }, "lamp three is not the desk's here")
        #expect(try OOLamp.count(in: main) == 2)
        try main.save()
        #expect(try storedDesk(ofLamp: "two") == .none)
        #expect(try storedDesk(ofLamp: "three") == .some(nil), "kept, its column cleared")
        #expect(try storedDesk(ofLamp: "one") == .some(nil))
    }

    /// A lamp the context never read is displaced too: the merge reads it,
    /// as the setter reads a former partner not at hand (before, its column
    /// still named the deleted desk and the save failed at COMMIT).
    @Test @MainActor func aLampNeverReadHereIsClearedByTheSave() async throws {
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: main))
        let two = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "two", in: main))
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        main.delete(desk)
        try main.save()
        #expect(try storedDesk(ofLamp: "two") == .none)
        #expect(try storedDesk(ofLamp: "three") == .some(nil))
    }

    /// Looking for displaced partners re-reads nothing the write did not
    /// change: a desk renamed by a save this context never merged keeps the
    /// name it read (model seed 6270: the look-up was a fetch, which
    /// refreshed the pending partner with the newer row).
    @Test @MainActor func theLookUpRefreshesNothing() async throws {
        let main = stack.mainContext
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: main))
        let one = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "one", in: main))
        let other = stack.newContext()
        try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "one", in: other)).label = "renamed"
        try other.save()
        // Changed here, to the pairing the store holds: the look-up finds
        // lamp "one" naming the desk, the very partner kept.
        desk.lamp = nil
        desk.lamp = one
        try await stack.write { context in
            try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: context)).label = "third"
        }
        #expect(one.label == "one", "read before the rename, and not merged")
        #expect(desk.lamp === one)
        #expect(one.desk === desk)
    }

    /// Rolling back the change here gives the write's pairing back (a
    /// control: it passed before the merge displaced anything).
    @Test @MainActor func aRollbackGivesTheWritesPairingBack() async throws {
        let main = stack.mainContext
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: main))
        let two = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "two", in: main))
        let three = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: main))
        _ = three.desk
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        main.rollback()
        #expect(desk.lamp === three)
        #expect(three.desk === desk)
        #expect(two.desk == nil)
    }
}
