import Foundation
import Testing
@testable import LiteRecord

@Entity(name: "STKShelf")
final class STKShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \STKBox.shelf) var boxes: [STKBox] = []
    init() {}
}

@Entity(name: "STKBox")
final class STKBox {
    var label = ""
    @Relationship var shelf: STKShelf?
    init() {}
}

/// Docs/Concurrency.md: under `.storeTrumps` a record a `.cascade` took
/// along with a deleted owner, changed in the store since the deletion read
/// it, is kept, "and the owner's deletion still goes on: the kept record's
/// to-one naming the deleted owner is cleared … so the save commits". Model
/// seed 105602 found this held for the store-side cascade (rows never
/// loaded) but not for a cascade over loaded objects: the kept box still
/// named its deleted shelf and COMMIT failed on the foreign key.
@Suite struct StoreTrumpsKeptCascadeTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [STKShelf.self, STKBox.self])
        let seed = stack.newContext()
        let shelf = STKShelf()
        shelf.name = "top"
        seed.insert(shelf)
        for label in ["a", "b"] {
            let box = STKBox()
            box.label = label
            seed.insert(box)
            box.shelf = shelf
        }
        try seed.save()
    }

    @Test func aLoadedCascadedRowChangedElsewhereIsKeptDetachedAndTheSaveCommits() throws {
        let context = stack.newContext()
        context.mergePolicy = .storeTrumps
        let shelf = try #require(try STKShelf.findAll(in: context).first)
        #expect(shelf.boxes.count == 2)  // the cascade's rows are loaded objects
        let other = stack.newContext()
        let changed = try #require(try STKBox.findAll(in: other).first(where: { $0.label == "b" }))
        changed.label = "b, changed elsewhere"
        try other.save()

        var published: ChangeSet?
        context.didSave = { published = $0 }
        context.delete(shelf)
        try context.save()

        let reader = stack.newContext()
        #expect(try STKShelf.findAll(in: reader).isEmpty, "the owner's deletion went on")
        let stored = try STKBox.findAll(in: reader)
        #expect(stored.map(\.label) == ["b, changed elsewhere"], "the box changed elsewhere is kept with the store's values")
        #expect(stored.first?.shelf == nil, "and detached from its deleted shelf")
        let kept = try #require(try STKBox.findAll(in: context).first)
        #expect(kept.label == "b, changed elsewhere")
        #expect(kept.shelf == nil)
        #expect(!context.hasChanges)
        let keptID = try #require(kept.recordID)
        #expect(published?.deleted.contains(keptID) == false)
        #expect(published?.updated.contains(keptID) == true, "its version moved on: the save updated it")
    }
}
