import Foundation
import Testing
import LiteRecord

@Entity(name: "DAShelf")
final class DAShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \DABox.shelf) var boxes: [DABox] = []
    @Relationship(deleteRule: .deny, inverse: \DALabel.shelf) var labels: [DALabel] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "DABox")
final class DABox {
    var label = ""
    @Relationship var shelf: DAShelf?
    init() {}
    init(_ label: String) { self.label = label }
}

@Entity(name: "DALabel")
final class DALabel {
    var text = ""
    @Relationship var shelf: DAShelf?
    init() {}
    init(_ text: String) { self.text = text }
}

/// `deleteAll` applies the delete rules to this context's unsaved objects
/// that name what it deletes, as deleting the loaded owner would: an unsaved
/// box on a deleted shelf goes with it (`.cascade`), an unsaved label keeps
/// its shelf (`.deny`).
@Suite struct DeleteAllUnsavedTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [DAShelf.self, DABox.self, DALabel.self])
        let setup = stack.newContext()
        setup.insert(DAShelf("s"))
        setup.insert(DAShelf("t"))
        setup.insert(DABox("moved"))
        try setup.save()
        context = stack.newContext()
    }

    private func shelf(_ name: String) throws -> DAShelf {
        try #require(try DAShelf.findFirst(byAttribute: "name", withValue: name, in: context))
    }

    @Test func anUnsavedBoxOnADeletedShelfGoesWithIt() throws {
        let box = DABox("new")
        context.insert(box)
        box.shelf = try shelf("s")
        let moved = try #require(try DABox.findFirst(byAttribute: "label", withValue: "moved", in: context))
        moved.shelf = try shelf("s")
        #expect(try DAShelf.deleteAll(matching: #Predicate { $0.name == "s" }, in: context) == 1)
        try context.save()
        #expect(try DABox.count(in: stack.newContext()) == 0, "both boxes went with the shelf, as the object path cascades")
    }

    @Test func anUnsavedLabelOnTheShelfDeniesTheDeletion() throws {
        let label = DALabel("new")
        context.insert(label)
        label.shelf = try shelf("s")
        expectError(.validationFailed) { _ = try DAShelf.deleteAll(matching: #Predicate { $0.name == "s" }, in: context) }
        #expect(try DAShelf.count(in: stack.newContext()) == 2, "nothing was deleted")
    }
}
