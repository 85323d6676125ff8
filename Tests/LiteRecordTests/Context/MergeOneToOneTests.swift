import Foundation
import Testing
@testable import LiteRecord

/// A desk and its one lamp: a one-to-one with a column on each side; deleting
/// the desk takes its lamp.
@Entity(name: "OODesk")
final class OODesk {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \OOLamp.desk) var lamp: OOLamp?
    init() {}
    init(_ name: String) { self.name = name }

    /// Inserts desk "d" with lamp "one", and lamps "two" and "three" on no
    /// desk, and saves them.
    static func insertWithThreeLamps(in context: RecordContext) throws {
        let desk = OODesk("d")
        context.insert(desk)
        let lamps = ["one", "two", "three"].map(OOLamp.init)
        for lamp in lamps { context.insert(lamp) }
        desk.lamp = lamps[0]
        try context.save()
    }
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
        try OODesk.insertWithThreeLamps(in: stack.newContext())
    }

    /// Under `.storeTrumps`, the main context puts lamp "two" on the desk
    /// and a merged `write {}` puts lamp "three" there.
    @MainActor private func lampTwoHereWhileAWritePutsThree() async throws -> (RecordContext, OODesk, OOLamp, OOLamp) {
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let desk = try theDesk(in: main)
        let two = try lamp("two", in: main)
        let three = try lamp("three", in: main)
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        return (main, desk, two, three)
    }

    /// A `write {}` that puts lamp "three" on desk "d".
    @MainActor private func putLampThreeOnTheDesk() async throws {
        try await stack.write { context in
            let three = try OOLamp.findFirst(byAttribute: "label", withValue: "three", in: context)
            three?.desk = try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context)
        }
    }

    private func theDesk(in context: RecordContext) throws -> OODesk {
        try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context))
    }

    private func lamp(_ label: String, in context: RecordContext) throws -> OOLamp {
        try #require(try OOLamp.findFirst(byAttribute: "label", withValue: label, in: context))
    }

    private func storedDesk(ofLamp label: String) throws -> String?? {
        let context = stack.newContext()
        guard let lamp = try OOLamp.findFirst(byAttribute: "label", withValue: label, in: context) else { return .none }
        return withExtendedLifetime(context) { .some(lamp.desk?.name) }
    }

    @Test @MainActor func aLampTheWritePairedWithAChangedDeskIsDisplaced() async throws {
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let desk = try theDesk(in: main)
        let two = try lamp("two", in: main)
        let three = try lamp("three", in: main)
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
        let desk = try theDesk(in: main)
        let two = try lamp("two", in: main)
        let three = try lamp("three", in: main)
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
        let desk = try theDesk(in: main)
        let two = try lamp("two", in: main)
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
        let desk = try theDesk(in: main)
        let one = try lamp("one", in: main)
        let other = stack.newContext()
        try lamp("one", in: other).label = "renamed"
        try other.save()
        // Changed here, to the pairing the store holds: the look-up finds
        // lamp "one" naming the desk, the very partner kept.
        desk.lamp = nil
        desk.lamp = one
        try await stack.write { context in
            try lamp("three", in: context).label = "third"
        }
        #expect(one.label == "one", "read before the rename, and not merged")
        #expect(desk.lamp === one)
        #expect(one.desk === desk)
    }

    /// Rolling back the change here gives the write's pairing back (a
    /// control: it passed before the merge displaced anything).
    @Test @MainActor func aRollbackGivesTheWritesPairingBack() async throws {
        let main = stack.mainContext
        let desk = try theDesk(in: main)
        let two = try lamp("two", in: main)
        let three = try lamp("three", in: main)
        _ = three.desk
        desk.lamp = two
        try await putLampThreeOnTheDesk()
        main.rollback()
        #expect(desk.lamp === three)
        #expect(three.desk === desk)
        #expect(two.desk == nil)
    }

    /// Two writes commit before the first one's merge runs (the main actor
    /// was busy): the look-up, reading the store, finds a lamp that only the
    /// second write paired with the changed desk. The lamp still shows its old
    /// desk here, so it is left for the second merge, not displaced at its
    /// old version — which made the next save meet a conflict the user never
    /// caused (review of this change).
    @Test func aLampStillShowingItsOldDeskWaitsForItsOwnMerge() throws {
        let main = RecordContext(store: stack.store, isObservable: true)
        let setup = stack.newContext()
        setup.insert(OODesk("e"))
        try setup.save()
        let desk = try theDesk(in: main)
        let other = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "e", in: main))
        let one = try lamp("one", in: main)
        let two = try lamp("two", in: main)
        #expect(one.desk === desk)
        other.lamp = two
        let (_, first, firstColumns) = try stack.performWrite { context in
            try lamp("three", in: context).label = "third"
        }
        let (_, second, secondColumns) = try stack.performWrite { context in
            let lamp = try lamp("one", in: context)
            lamp.desk = try OODesk.findFirst(byAttribute: "name", withValue: "e", in: context)
        }
        main.merge(first, columns: firstColumns)
        #expect(one.desk === desk, "the first merge changed nothing of lamp one")
        main.merge(second, columns: secondColumns)
        #expect(one.desk == nil, "displaced once its own merge paired it with desk e")
        #expect(other.lamp === two)
        // Desk e's lamp was changed here and by the second write: a conflict
        // under `.error`, as any property changed on both sides. Lamp one
        // has none: it took the second write's version before its column
        // was cleared here.
        let error = expectError(.conflict) { try main.save() }
        #expect(error?.message.contains("OOLamp") == false, "\(String(describing: error))")
        main.mergePolicy = .objectTrumps
        try main.save()
        let fresh = stack.newContext()
        let stored = try lamp("one", in: fresh)
        let storedTwo = try lamp("two", in: fresh)
        #expect(withExtendedLifetime(fresh) { stored.desk == nil && storedTwo.desk?.name == "e" })
    }

    /// Under `.storeTrumps` the desk's conflict keeps the store's lamp
    /// ("three", the write's) while this save writes lamp "two" naming the
    /// desk and "three" displaced: the sides left naming a partner that
    /// does not name them back are cleared, in the store and in memory, so
    /// that no two lamps name the desk and no desk names a lamp naming
    /// nothing (model seed 120137: the desk named "three", "three" no
    /// desk, "two" the desk; a query then left out the wrong lamp).
    @Test @MainActor func underStoreTrumpsBothSidesAgreeAfterTheSave() async throws {
        let (main, desk, two, three) = try await lampTwoHereWhileAWritePutsThree()
        try main.save()
        let fresh = stack.newContext()
        let deskInStore = try theDesk(in: fresh)
        let storedLamp = withExtendedLifetime(fresh) { deskInStore.lamp?.label }
        for label in ["one", "two", "three"] {
            let namesDesk = try storedDesk(ofLamp: label) == .some("d")
            #expect(namesDesk == (storedLamp == label), "lamp \(label) and the desk agree in the store")
        }
        #expect(storedLamp == nil, "the store's lamp lost its side here, and the lamp set here lost the desk to the store")
        #expect(desk.lamp == nil && two.desk == nil && three.desk == nil, "and in memory")
        #expect(!main.hasChanges)
        desk.name = "edited"
        try main.save()
        #expect(try OODesk.findFirst(byAttribute: "name", withValue: "edited", in: stack.newContext()) != nil, "the versions read back meet no conflict")
    }

    /// The same rule without a merge: another writer moves lamp "three"
    /// onto the desk while this context, which read the desk before, puts
    /// lamp "two" on it. `.storeTrumps` keeps the store's pairing, which
    /// names back, and lamp "two" loses the desk instead of naming a desk
    /// that names another lamp.
    @Test func underStoreTrumpsThePartnerSetHereLosesTheRecordToTheStoresPairing() async throws {
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let desk = try theDesk(in: context)
        let two = try lamp("two", in: context)
        let other = stack.newContext()
        let three = try lamp("three", in: other)
        three.desk = try OODesk.findFirst(byAttribute: "name", withValue: "d", in: other)
        try other.save()
        desk.lamp = two
        try context.save()
        #expect(try storedDesk(ofLamp: "three") == .some("d"), "the store's pairing stands")
        #expect(try storedDesk(ofLamp: "two") == .some(nil))
        #expect(try storedDesk(ofLamp: "one") == .some(nil))
        #expect(desk.lamp?.label == "three" && two.desk == nil, "and in memory")
    }

    /// `truncateAll` applies the delete rules to references made here to a
    /// record a merged write deleted; a to-one read from the store and left
    /// alone is none of them. Lamp "one", edited here, lost its row with
    /// the desk a write deleted; truncating the desks then must not take
    /// the edit for a deletion (model seed 160060): the next save meets the
    /// conflict, as Docs/Concurrency.md says of an edited record deleted in
    /// the store.
    @Test @MainActor func truncatingLeavesAnEditedObjectWhoseStoredReferenceWasForgotten() async throws {
        let main = stack.mainContext
        main.mergePolicy = .error
        let one = try lamp("one", in: main)
        #expect(one.desk?.name == "d")
        one.label = "edited"
        try await stack.write { context in
            if let desk = try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context) { context.delete(desk) }
        }
        try OODesk.truncateAll(in: main)
        #expect(main.deletedObjects.isEmpty, "the edit stays an edit")
        expectError(.conflict) { try main.save() }
    }

    /// The store's partner deleted by the same save has no side left to
    /// agree: it is deleted and forgotten like any other deletion, not read
    /// again.
    @Test @MainActor func underStoreTrumpsTheStoresPartnerDeletedHereStaysDeleted() async throws {
        let (main, _, _, three) = try await lampTwoHereWhileAWritePutsThree()
        main.delete(three)
        try main.save()
        #expect(try storedDesk(ofLamp: "three") == .none, "deleted in the store")
        #expect(three.context == nil, "and no longer held")
        #expect(!main.hasChanges)
    }
}
