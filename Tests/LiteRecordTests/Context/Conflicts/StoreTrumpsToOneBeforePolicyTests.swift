import Foundation
import Testing
@testable import LiteRecord

/// Docs/Internals/Invariants.md, "`.storeTrumps` keeps this context's other
/// changes" — "the store's newer values win, this
/// context's other edits are kept", to-ones being properties like
/// attributes (Docs/Concurrency.md: "changed only here: written"). Model
/// seed 102268 found a to-one cleared here before the merge policy became
/// `.storeTrumps`, on a record whose other property another writer
/// changed: the context had not kept the value the to-one was read with,
/// took the store's different value for a change made there, and the save
/// wrote nothing and reported no update.
@Suite struct StoreTrumpsToOneBeforePolicyTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [STKShelf.self, STKBox.self])
        let seed = stack.newContext()
        var shelves: [STKShelf] = []
        for name in ["top", "bottom"] {
            let shelf = STKShelf()
            shelf.name = name
            seed.insert(shelf)
            shelves.append(shelf)
        }
        let box = STKBox()
        box.label = "a"
        seed.insert(box)
        box.shelf = shelves[0]
        try seed.save()
    }

    @Test func aToOneChangedOnlyHereIsWritten() throws {
        let context = stack.newContext()
        let box = try #require(try STKBox.findAll(in: context).first)
        let other = stack.newContext()
        try #require(try STKBox.findAll(in: other).first).label = "changed elsewhere"
        try other.save()

        box.shelf = nil
        context.mergePolicy = .storeTrumps
        var published: ChangeSet?
        context.didSave = { published = $0 }
        try context.save()

        let reader = stack.newContext()
        let stored = try #require(try STKBox.findAll(in: reader).first)
        #expect(stored.shelf == nil, "the to-one changed only here is written")
        #expect(stored.label == "changed elsewhere", "the store's change is kept")
        #expect(published?.updated == [try #require(box.recordID)])
        #expect(box.shelf == nil)
        #expect(box.label == "changed elsewhere")
    }

    @Test func aToOneTheStoreChangedTooKeepsTheStoresValue() throws {
        let context = stack.newContext()
        let box = try #require(try STKBox.findAll(in: context).first)
        // Cleared before the other writer's change: an unchanged object a
        // read meets afterwards would take the newer row first.
        box.shelf = nil
        let other = stack.newContext()
        let otherBox = try #require(try STKBox.findAll(in: other).first)
        let bottom: STKShelf = try #require(try STKShelf.findAll(in: other).first(where: { $0.name == "bottom" }))
        otherBox.shelf = bottom
        try other.save()

        context.mergePolicy = .storeTrumps
        try context.save()

        let reader = stack.newContext()
        let stored = try #require(try STKBox.findAll(in: reader).first)
        #expect(stored.shelf?.name == "bottom", "the store's newer value wins")
        #expect(box.shelf?.name == "bottom")
    }

    /// A box this context inserted and saved without touching its shelf:
    /// the to-one was never read, and its value as read is what the row
    /// holds, not unknown (model seed 265456 at length 60: unknown, the
    /// store's value counted as a newer one and the save dropped the shelf).
    private func savedBoxNeverRead(in context: RecordContext) throws -> (box: STKBox, bottom: STKShelf) {
        let box = STKBox()
        box.label = "b"
        context.insert(box)
        try context.save()
        let bottom = try #require(try STKShelf.findAll(in: context).first(where: { $0.name == "bottom" }))
        return (box, bottom)
    }

    private func labelChangedElsewhere() throws {
        let other = stack.newContext()
        try #require(try STKBox.findAll(in: other).first(where: { $0.label == "b" })).label = "changed elsewhere"
        try other.save()
    }

    private func storedShelfName() throws -> String? {
        let reader = stack.newContext()
        let stored = try #require(try STKBox.findAll(in: reader).first(where: { $0.label == "changed elsewhere" }))
        return stored.shelf?.name
    }

    @Test func aToOneSetBeforeThePolicyWithoutReadingItFirstIsWritten() throws {
        let context = stack.newContext()
        let (box, bottom) = try savedBoxNeverRead(in: context)
        box.shelf = bottom
        context.mergePolicy = .storeTrumps
        try labelChangedElsewhere()

        try context.save()

        #expect(try storedShelfName() == "bottom", "the to-one changed only here is written")
    }

    @Test func aToOneSetAfterThePolicyWithoutReadingItFirstIsWritten() throws {
        let context = stack.newContext()
        let (box, bottom) = try savedBoxNeverRead(in: context)
        context.mergePolicy = .storeTrumps
        try labelChangedElsewhere()

        box.shelf = bottom
        try context.save()

        #expect(try storedShelfName() == "bottom", "the to-one changed only here is written")
    }
}
