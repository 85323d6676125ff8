import Foundation
import LiteRecord
import Testing

@Entity(name: "SDShelf")
final class SDShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \SDBox.shelf) var boxes: [SDBox] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "SDBox")
final class SDBox {
    var name = ""
    @Relationship var shelf: SDShelf?
    @Relationship(inverse: \SDLabel.box) var labels: [SDLabel] = []
    init() {}
    init(_ name: String, on shelf: SDShelf) {
        self.name = name
        self.shelf = shelf
    }
}

@Entity(name: "SDLabel")
final class SDLabel {
    var text = ""
    @Relationship var box: SDBox?
    init() {}
    init(_ text: String) { self.text = text }
}

/// `deleteAll` clears the unsaved references to the rows it deletes, and
/// only those: a new object naming a record a merged write deleted (forgotten
/// here) keeps the reference, and its save refuses it with `.conflict`
/// (Docs/Concurrency.md: a pending reference to a record deleted elsewhere
/// meets an error, never becomes nil) — before, any `deleteAll` whose cascade
/// reached that entity cleared it, and the save wrote the label with no box
/// (model seed 44631). `truncateAll` of the entity leaves nothing a reference
/// could name, and clears it.
@Suite struct SetBasedDeleteReferenceTests {
    let stack: RecordStack

    /// Shelf "a" with box "a1", shelf "b" with box "b1".
    init() throws {
        stack = try RecordStack(inMemoryWith: [SDShelf.self, SDBox.self, SDLabel.self])
        let context = stack.newContext()
        for name in ["a", "b"] {
            let shelf = SDShelf(name)
            context.insert(shelf)
            context.insert(SDBox("\(name)1", on: shelf))
        }
        try context.save()
    }

    /// A new label on box "a1" in the main context, then a merged `write {}`
    /// that deletes the box.
    @MainActor private func labelABoxAWriteDeletes() async throws -> SDLabel {
        let main = stack.mainContext
        let box = try #require(try SDBox.findFirst(byAttribute: "name", withValue: "a1", in: main))
        let label = SDLabel("fragile")
        main.insert(label)
        label.box = box
        try await stack.write { context in
            if let box = try SDBox.findFirst(byAttribute: "name", withValue: "a1", in: context) { context.delete(box) }
        }
        return label
    }

    @Test @MainActor func deleteAllKeepsAReferenceToARecordItDidNotDelete() async throws {
        let main = stack.mainContext
        let label = try await labelABoxAWriteDeletes()
        _ = try SDShelf.deleteAll(matching: #Predicate { $0.name == "b" }, in: main)
        #expect(label.box != nil, "deleteAll took shelf b and box b1, not the box the label names")
        #expect(throws: LiteRecordError.self) { try main.save() }
        do {
            try main.save()
        } catch let error as LiteRecordError {
            #expect(error.kind == .conflict)
        }
        #expect(try SDLabel.count(in: stack.newContext()) == 0, "no label was written with no box")
    }

    @Test @MainActor func truncateAllClearsAReferenceToAForgottenRecordOfItsEntity() async throws {
        let main = stack.mainContext
        let label = try await labelABoxAWriteDeletes()
        try SDBox.truncateAll(in: main)
        #expect(label.box == nil, "no box is left for it to name")
        try main.save()
        #expect(try SDLabel.count(in: stack.newContext()) == 1)
    }

    /// Model seed 45374: the label is a child's insert pushed into the main
    /// context, and the write deleted every box, so `truncateAll` deletes
    /// nothing.
    @Test @MainActor func truncateAllDeletingNothingStillClearsAPushedReferenceToAForgottenRecord() async throws {
        let main = stack.mainContext
        let child = main.makeChildContext()
        let box = try #require(try SDBox.findFirst(byAttribute: "name", withValue: "a1", in: child))
        let label = SDLabel("pushed")
        child.insert(label)
        label.box = box
        try child.save()
        try await stack.write { context in
            for box in try SDBox.findAll(in: context) { context.delete(box) }
        }
        #expect(try SDBox.truncateAll(in: main) == 0, "the write left no box: nothing to delete, the reference still goes")
        let pushed = try #require(main.insertedObjects.first as? SDLabel)
        #expect(pushed.box == nil, "no box is left for it to name")
        try main.save()
        #expect(try SDLabel.count(in: stack.newContext()) == 1)
    }

    /// The rule of the reference applies, as for a row `truncateAll` deletes:
    /// a new box on a shelf forgotten here goes with the shelves (`.cascade`).
    @Test @MainActor func truncateAllAppliesTheCascadeToANewObjectOnAForgottenRecord() async throws {
        let main = stack.mainContext
        let shelf = try #require(try SDShelf.findFirst(byAttribute: "name", withValue: "a", in: main))
        let box = SDBox("new", on: shelf)
        main.insert(box)
        try await stack.write { context in
            for shelf in try SDShelf.findAll(in: context) { context.delete(shelf) }
        }
        #expect(try SDShelf.truncateAll(in: main) == 0)
        #expect(!main.insertedObjects.contains { $0 === box }, "the shelf's .cascade takes the new box")
        try main.save()
        #expect(try SDBox.count(in: stack.newContext()) == 0)
    }
}
