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

    /// A record deleted here whose one-to-one was changed here keeps that
    /// pairing over the write's: the record the write paired with it is
    /// displaced (its side cleared), not taken along by the deletion's
    /// `.cascade` (model seed 230357 at length 80). The deletion meets the
    /// write's change of the record as a conflict, which `.objectTrumps`
    /// resolves by deleting.
    @Test @MainActor func aOneToOnePairedByTheWriteWithADeletionChangedHereIsDisplaced() async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let book = MTBook()
        let (chosen, paired) = (MTNote(), MTNote())
        main.insert(book)
        for note in [chosen, paired] {
            main.insert(note)
            note.book = book
        }
        try main.save()
        let (bookID, pairedID) = (try #require(book.recordID), try #require(paired.recordID))
        book.lead = chosen
        main.delete(book)
        #expect(main.deletedObjects.contains { $0 === chosen })
        try await stack.write { context in
            let note = try #require(try context.object(with: pairedID, as: MTNote.self))
            note.leadOf = try context.object(with: bookID, as: MTBook.self)
        }
        #expect(!main.deletedObjects.contains { $0 === paired })
        #expect(paired.leadOf == nil)
        try main.save()
        let check = stack.newContext()
        let stored = try #require(try check.object(with: pairedID, as: MTNote.self))
        #expect(stored.leadOf == nil)
    }

    /// The rules meet only the records the write changed, read one by one:
    /// a held record the write did not change is not read again, so one
    /// another writer changed before keeps what it shows (model seed 234138
    /// at length 80: reading the deleted record's list refreshed it).
    @Test @MainActor func aRecordTheWriteDidNotChangeIsNotReadAgain() async throws {
        let stack = try RecordStack(inMemoryWith: [WShelf.self, WBox.self])
        let main = stack.mainContext
        let doomed = WShelf("doomed")
        let (stale, moved) = (WBox("stale"), WBox("moved"))
        main.insert(doomed)
        for box in [stale, moved] { main.insert(box) }
        stale.shelf = doomed
        try main.save()
        let (doomedID, staleID, movedID) = (try #require(doomed.recordID), try #require(stale.recordID), try #require(moved.recordID))
        main.delete(doomed)
        #expect(stale.shelf == nil)
        // A context's save, which is not merged into the main context.
        let other = stack.newContext()
        try #require(try other.object(with: staleID, as: WBox.self)).label = "changed elsewhere"
        try other.save()
        try await stack.write { context in
            let box = try #require(try context.object(with: movedID, as: WBox.self))
            box.shelf = try context.object(with: doomedID, as: WShelf.self)
        }
        #expect(moved.shelf == nil)
        #expect(stale.label == "stale")
    }

    /// The rules read only what the write related to the deleted record: a
    /// write under another record, or one that only edits, makes no object
    /// in the main context, and the rows a deletion's cascade left to the
    /// store stay there.
    @Test @MainActor func aWriteElsewhereMakesNoObjectHere() async throws {
        let stack = try RecordStack(inMemoryWith: [WShelf.self, WBox.self])
        let main = stack.mainContext
        let (doomed, other) = (WShelf("doomed"), WShelf("other"))
        main.insert(doomed)
        main.insert(other)
        for index in 0..<5 {
            let box = WBox("crated \(index)")
            main.insert(box)
            box.crate = doomed
        }
        try main.save()
        let otherID = try #require(other.recordID)
        main.reset()
        let shelf = try #require(try WShelf.findFirst(matching: #Predicate { $0.name == "doomed" }, in: main))
        main.delete(shelf)
        let held = main.registeredObjects.count
        try await stack.write { context in
            let mine = try #require(try context.object(with: otherID, as: WShelf.self))
            mine.name = "renamed"
            for index in 0..<5 {
                let box = WBox("new \(index)")
                context.insert(box)
                box.shelf = mine
            }
        }
        #expect(main.registeredObjects.count == held, "\(main.registeredObjects.compactMap { ($0 as? WBox)?.label })")
        try main.save()
        let check = stack.newContext()
        #expect(try WBox.count(in: check) == 5)
    }
}
