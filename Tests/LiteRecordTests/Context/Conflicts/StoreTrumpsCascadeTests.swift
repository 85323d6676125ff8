import Foundation
import Testing
import LiteRecord

/// Under `.storeTrumps`, a row of a store-side cascade that another writer
/// changed since the deletion read it is kept, and the save goes on: the
/// owner is deleted and the kept row no longer names it.
@Suite struct StoreTrumpsCascadeTests {
    @Test func aKeptCascadedRowIsDetachedAndTheSaveGoesOn() throws {
        let stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let setup = stack.newContext()
        let shelf = KShelf("s")
        let (kept, taken) = (KBox("kept"), KBox("taken"))
        setup.insert(shelf)
        setup.insert(kept)
        setup.insert(taken)
        kept.shelf = shelf
        taken.shelf = shelf
        try setup.save()

        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        // The boxes are not loaded: the deletion leaves them to the store.
        context.delete(try #require(try KShelf.findFirst(byAttribute: "name", withValue: "s", in: context)))
        let other = stack.newContext()
        try #require(try KBox.findFirst(byAttribute: "label", withValue: "kept", in: other)).label = "kept, changed"
        try other.save()

        try context.save()
        let fresh = stack.newContext()
        #expect(try KShelf.count(in: fresh) == 0)
        let boxes = try KBox.findAll(in: fresh)
        #expect(boxes.map(\.label) == ["kept, changed"])
        #expect(boxes.first?.shelf == nil)
        #expect(!context.hasChanges)
    }
}
