import Foundation
import Testing
import LiteRecord

@Entity(name: "CDShelf")
final class CDShelf {
    var name = ""
    @Relationship(deleteRule: .nullify, inverse: \CDBox.shelf, minimumCount: 1) var boxes: [CDBox] = []
    init() {}
}

@Entity(name: "CDBox")
final class CDBox {
    var name = ""
    @Relationship var shelf: CDShelf?
    init() {}
}

/// Found by the model-based test once Book.notes had a minimum (issue #58,
/// seed 473): a new shelf with a box, deleted again before any save. The
/// deletion drops the insert, and its `.nullify` takes the box off the
/// shelf — which notes the shelf as an owner whose counted list changed.
/// The save then checked that dropped shelf, no longer in the context, and
/// refused with `.validationFailed` ("MTBook.notes of a new MTBook holds 0
/// objects"): Docs/Relationships.md checks the counts of the objects a save
/// writes, and a dropped insert is not one of them.
@Suite struct CountedDroppedInsertTests {
    @Test
    func aDroppedInsertIsNotCounted() throws {
        let stack = try RecordStack(inMemoryWith: [CDShelf.self, CDBox.self])
        let context = stack.newContext()
        let shelf = CDShelf()
        context.insert(shelf)
        let box = CDBox()
        box.name = "kept"
        context.insert(box)
        box.shelf = shelf
        context.delete(shelf)
        try context.save()
        #expect(box.shelf == nil)
        let fresh = stack.newContext()
        #expect(try CDBox.findAll(in: fresh).map(\.name) == ["kept"])
        #expect(try CDShelf.count(in: fresh) == 0)
    }
}
