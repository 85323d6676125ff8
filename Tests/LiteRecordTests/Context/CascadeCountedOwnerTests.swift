import Foundation
import Testing
import LiteRecord

@Entity(name: "KShelf")
final class KShelf {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \KBox.shelf) var boxes: [KBox] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "KBox")
final class KBox {
    var label = ""
    @Relationship var shelf: KShelf?
    @Relationship var owner: KOwner?
    init() {}
    init(_ label: String) { self.label = label }
}

/// An owner keeps at least one box.
@Entity(name: "KOwner")
final class KOwner {
    var name = ""
    @Relationship(inverse: \KBox.owner, minimumCount: 1) var boxes: [KBox] = []
    init() {}
    init(_ name: String) { self.name = name }
}

/// A cascade that takes another owner's last box is refused the same way
/// whether the boxes were loaded, left to the store-side cascade, or
/// deleted by `deleteAll`: loaded and unloaded never give two answers.
@Suite struct CascadeCountedOwnerTests {
    enum Path: String, CaseIterable, Sendable { case loaded, storeSide, deleteAll }

    let stack: RecordStack

    /// Shelf "s" holds boxes 1 and 2; shelf "t" holds box 3. Owner "o" has
    /// only box 1; owner "p" has boxes 2 and 3.
    init() throws {
        stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let context = stack.newContext()
        let (s, t) = (KShelf("s"), KShelf("t"))
        let (o, p) = (KOwner("o"), KOwner("p"))
        let boxes = [KBox("1"), KBox("2"), KBox("3")]
        for object in [s, t] { context.insert(object) }
        for object in [o, p] { context.insert(object) }
        for box in boxes { context.insert(box) }
        (boxes[0].shelf, boxes[0].owner) = (s, o)
        (boxes[1].shelf, boxes[1].owner) = (s, p)
        (boxes[2].shelf, boxes[2].owner) = (t, p)
        try context.save()
    }

    private func delete(shelf name: String, _ path: Path) throws {
        let context = stack.newContext()
        switch path {
        case .deleteAll:
            _ = try KShelf.deleteAll(matching: #Predicate { $0.name == name }, in: context)
        case .loaded, .storeSide:
            let shelf = try #require(try KShelf.findFirst(byAttribute: "name", withValue: name, in: context))
            if path == .loaded { _ = shelf.boxes.map(\.owner) }
            context.delete(shelf)
            try context.save()
        }
    }

    @Test(arguments: Path.allCases)
    func takingAnOwnersLastBoxIsRefused(_ path: Path) throws {
        let error = expectError(.validationFailed) { try delete(shelf: "s", path) }
        #expect(error?.message.contains("at least 1") == true, "\(path): \(String(describing: error))")
        #expect(try KBox.count(in: stack.newContext()) == 3, "\(path): nothing deleted")
    }

    @Test(arguments: Path.allCases)
    func aCascadeThatLeavesEveryOwnerABoxGoesOn(_ path: Path) throws {
        try delete(shelf: "t", path)
        #expect(try KBox.findAll(in: stack.newContext()).map(\.label).sorted() == ["1", "2"])
    }
}
