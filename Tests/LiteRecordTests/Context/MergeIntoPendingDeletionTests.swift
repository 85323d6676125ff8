import Foundation
import Testing
import LiteRecord

@Entity(name: "WShelf")
final class WShelf {
    var name = ""
    @Relationship(deleteRule: .nullify, inverse: \WBox.shelf) var boxes: [WBox] = []
    @Relationship(deleteRule: .cascade, inverse: \WBox.crate) var crated: [WBox] = []
    @Relationship(deleteRule: .deny, inverse: \WBox.lock) var locked: [WBox] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "WBox")
final class WBox {
    var label = ""
    @Relationship var shelf: WShelf?
    @Relationship var crate: WShelf?
    @Relationship var lock: WShelf?
    init() {}
    init(_ label: String) { self.label = label }
}

/// A merged `write {}` that relates a record to one this context is
/// deleting: the deletion's rules meet it as if the deletion were made
/// after the write (Docs/Concurrency.md, "A deletion and a merged write").
/// Model seed 121382: the merge moved an unchanged box onto the shelf being
/// deleted, whose `.nullify` had run before, and every save failed at
/// `COMMIT` on the foreign key until `rollback()`.
@Suite struct MergeIntoPendingDeletionTests {
    enum Link: String, CaseIterable, Sendable { case shelf, crate, lock }

    /// Shelves "doomed" and "other", a box on "other" by `link` (`moved`)
    /// and an untouched box; the main context deletes "doomed", loaded or not.
    @MainActor private func fixture(_ link: Link, loaded: Bool) throws -> (RecordStack, WShelf, WBox, RecordID, RecordID) {
        let stack = try RecordStack(inMemoryWith: [WShelf.self, WBox.self])
        let main = stack.mainContext
        let (doomed, other, moved) = (WShelf("doomed"), WShelf("other"), WBox("moved"))
        main.insert(doomed)
        main.insert(other)
        main.insert(moved)
        switch link {
        case .shelf: moved.shelf = other
        case .crate: moved.crate = other
        case .lock: moved.lock = other
        }
        try main.save()
        if loaded { _ = (doomed.boxes, doomed.crated, doomed.locked) }
        let ids = (try #require(doomed.recordID), try #require(moved.recordID))
        main.delete(doomed)
        return (stack, doomed, moved, ids.0, ids.1)
    }

    private func move(_ box: WBox, _ link: Link, to shelf: WShelf?) {
        switch link {
        case .shelf: box.shelf = shelf
        case .crate: box.crate = shelf
        case .lock: box.lock = shelf
        }
    }

    @Test(arguments: [false, true]) @MainActor func aNullifyClearsTheToOneAWriteSet(loaded: Bool) async throws {
        let (stack, _, moved, doomedID, movedID) = try fixture(.shelf, loaded: loaded)
        try await stack.write { context in
            let box = try #require(try context.object(with: movedID, as: WBox.self))
            box.shelf = try context.object(with: doomedID, as: WShelf.self)
        }
        try stack.mainContext.save()
        #expect(moved.shelf == nil)
        let check = stack.newContext()
        #expect(try check.object(with: doomedID, as: WShelf.self) == nil)
        #expect(try #require(try check.object(with: movedID, as: WBox.self)).shelf == nil)
    }

    @Test(arguments: [false, true]) @MainActor func aCascadeTakesAlongWhatAWriteMoved(loaded: Bool) async throws {
        let (stack, _, moved, doomedID, movedID) = try fixture(.crate, loaded: loaded)
        try await stack.write { context in
            let box = try #require(try context.object(with: movedID, as: WBox.self))
            box.crate = try context.object(with: doomedID, as: WShelf.self)
        }
        let main = stack.mainContext
        #expect(main.deletedObjects.contains { $0 === moved })
        try main.save()
        let check = stack.newContext()
        #expect(try check.object(with: movedID, as: WBox.self) == nil)
    }

    @Test(arguments: [false, true]) @MainActor func aDenyRefusesWhatAWriteMoved(loaded: Bool) async throws {
        let (stack, _, _, doomedID, movedID) = try fixture(.lock, loaded: loaded)
        try await stack.write { context in
            let box = try #require(try context.object(with: movedID, as: WBox.self))
            box.lock = try context.object(with: doomedID, as: WShelf.self)
        }
        expectError(.validationFailed) { try stack.mainContext.save() }
        let check = stack.newContext()
        #expect(try check.object(with: doomedID, as: WShelf.self) != nil)
    }

    /// A write that creates a record under the shelf being deleted: the
    /// rule meets it too.
    @Test(arguments: Link.allCases) @MainActor func aRecordAWriteCreatesUnderTheDeletedOneMeetsTheRule(link: Link) async throws {
        let (stack, _, _, doomedID, _) = try fixture(link, loaded: false)
        let created = try await stack.write { context in
            let box = WBox("created")
            context.insert(box)
            self.move(box, link, to: try context.object(with: doomedID, as: WShelf.self))
            try context.save()
            return try #require(box.recordID)
        }
        let main = stack.mainContext
        let check = stack.newContext()
        switch link {
        case .shelf:
            try main.save()
            #expect(try #require(try check.object(with: created, as: WBox.self)).shelf == nil)
        case .crate:
            try main.save()
            #expect(try check.object(with: created, as: WBox.self) == nil)
        case .lock:
            expectError(.validationFailed) { try main.save() }
            #expect(try check.object(with: doomedID, as: WShelf.self) != nil)
        }
    }
}
