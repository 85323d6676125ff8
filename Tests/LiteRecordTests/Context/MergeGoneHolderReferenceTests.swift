import Foundation
import Testing
import LiteRecord

/// A pending to-one naming a record a merged write deleted is refused at the
/// save (MergeForgottenReferenceTests) — but only when the save would write
/// it. When the write deleted the object holding the change too, that
/// object "stays deleted; the object is forgotten" under `.objectTrumps` and
/// `.storeTrumps` (Docs/Concurrency.md's table, "changed here, deleted in
/// the store"), and its reference goes with it: the save goes on. The
/// model-based test (seed 5097) found such a save refused with `.conflict`.
@Suite struct MergeGoneHolderReferenceTests {
    let stack: RecordStack

    /// Shelves "a" and "b"; box "x" on shelf "a".
    init() throws {
        stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let context = stack.newContext()
        let (a, b) = (KShelf("a"), KShelf("b"))
        let box = KBox("x")
        for object in [a, b] { context.insert(object) }
        context.insert(box)
        box.shelf = a
        try context.save()
    }

    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps]) @MainActor
    func aMoveHeldByAnObjectTheWriteDeletedGoesWithIt(policy: MergePolicy) async throws {
        let main = stack.mainContext
        main.mergePolicy = policy
        let box = try #require(try KBox.findFirst(byAttribute: "label", withValue: "x", in: main))
        let b = try #require(try KShelf.findFirst(byAttribute: "name", withValue: "b", in: main))
        box.shelf = b
        let ids = (try #require(box.recordID), try #require(b.recordID))
        try await stack.write { context in
            if let box = try context.object(with: ids.0, as: KBox.self) { context.delete(box) }
            if let shelf = try context.object(with: ids.1, as: KShelf.self) { context.delete(shelf) }
        }
        try main.save()
        #expect(!main.hasChanges)
        let fresh = stack.newContext()
        #expect(try KBox.count(in: fresh) == 0, "the box stays deleted")
        #expect(try KShelf.count(in: fresh) == 1)
    }

    /// Under `.storeTrumps` a move the store overruled is never written,
    /// so the shelf it names being gone is no matter: the write moved the box
    /// off its shelf after this context moved it to "b" (the store's newer
    /// value wins), then deleted "b", which this context had edited. The save
    /// goes on: the box keeps the write's `nil`, "b" stays deleted. The
    /// model-based test (seed 59678) expected `.conflict` here.
    @Test @MainActor func aMoveTheStoreOverrulesNamesNothingUnderStoreTrumps() async throws {
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let box = try #require(try KBox.findFirst(byAttribute: "label", withValue: "x", in: main))
        let b = try #require(try KShelf.findFirst(byAttribute: "name", withValue: "b", in: main))
        box.shelf = b
        let ids = (try #require(box.recordID), try #require(b.recordID))
        try await stack.write { context in
            let theirs = try #require(try context.object(with: ids.0, as: KBox.self))
            theirs.label = "moved off"
            theirs.shelf = nil
        }
        b.name = "edited here"
        try await stack.write { context in
            if let shelf = try context.object(with: ids.1, as: KShelf.self) { context.delete(shelf) }
        }
        try main.save()
        #expect(!main.hasChanges)
        let fresh = stack.newContext()
        let stored = try #require(try KBox.findFirst(byAttribute: "label", withValue: "moved off", in: fresh))
        #expect(stored.shelf == nil)
        #expect(try KShelf.findAll(in: fresh).map(\.name) == ["a"])
    }

    @Test @MainActor func underErrorTheSaveMeetsTheConflict() async throws {
        let main = stack.mainContext
        main.mergePolicy = .error
        let box = try #require(try KBox.findFirst(byAttribute: "label", withValue: "x", in: main))
        let b = try #require(try KShelf.findFirst(byAttribute: "name", withValue: "b", in: main))
        box.shelf = b
        let ids = (try #require(box.recordID), try #require(b.recordID))
        try await stack.write { context in
            if let box = try context.object(with: ids.0, as: KBox.self) { context.delete(box) }
            if let shelf = try context.object(with: ids.1, as: KShelf.self) { context.delete(shelf) }
        }
        expectError(.conflict) { try main.save() }
    }
}
