import Foundation
import Testing
import LiteRecord

/// A record the main context is deleting and a `write {}` changed: the merge
/// gives it the write's values like any object whose edits are of other
/// properties (a deletion edits none), keeping the version the deletion is
/// based on, so that its save still meets the conflict and a `rollback()`
/// that takes the deletion back shows what the write merged (model seed
/// 1205366: a rolled-back deletion kept its old to-one, and a later delete
/// rule counted it on its old owner's list).
@Suite struct MergePendingDeletionTests {
    /// A saved box "x" the main context deletes, and a merged `write {}`
    /// that relabels it "moved" meanwhile.
    @MainActor private func deletedBoxRelabelledByAWrite() async throws -> (RecordStack, RecordContext, KBox) {
        let stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let main = stack.mainContext
        let box = KBox("x")
        main.insert(box)
        try main.save()
        let boxID = try #require(box.recordID)
        main.delete(box)
        try await stack.write { context in
            try #require(try context.object(with: boxID, as: KBox.self)).label = "moved"
        }
        return (stack, main, box)
    }

    @Test @MainActor func aPendingDeletionTakesTheWritesValuesAndARollbackShowsThem() async throws {
        let stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let main = stack.mainContext
        let (a, b) = (KShelf("a"), KShelf("b"))
        let box = KBox("x")
        for object in [a, b] { main.insert(object) }
        main.insert(box)
        box.shelf = a
        try main.save()
        let (boxID, shelfID) = (try #require(box.recordID), try #require(b.recordID))
        main.delete(box)
        try await stack.write { context in
            let mine = try #require(try context.object(with: boxID, as: KBox.self))
            mine.label = "moved"
            mine.shelf = try context.object(with: shelfID, as: KShelf.self)
        }
        main.rollback()
        #expect(box.label == "moved")
        #expect(box.shelf === b)
        #expect(a.boxes.isEmpty)
    }

    @Test @MainActor func theDeletionStillMeetsTheConflict() async throws {
        let (_, main, _) = try await deletedBoxRelabelledByAWrite()
        expectError(.conflict) { try main.save() }
    }

    /// Taken back, the deletion leaves the object showing the write's values
    /// at the write's version: an edit of what it shows is no conflict (model
    /// seed 3983: it kept the version the deletion was based on, and the next
    /// save met a conflict with values it already held).
    @Test @MainActor func aRollbackGivesTheMergedVersionBack() async throws {
        let (stack, main, box) = try await deletedBoxRelabelledByAWrite()
        main.rollback()
        #expect(box.label == "moved")
        box.label = "edited after the rollback"
        try main.save()
        let fresh = stack.newContext()
        #expect(try KBox.findFirst(byAttribute: "label", withValue: "edited after the rollback", in: fresh) != nil)
    }

    /// A write that was not merged leaves the object as it was read, at that
    /// version: its edit still meets the conflict (the control).
    @Test @MainActor func anUnmergedWriteStillConflicts() async throws {
        let stack = try RecordStack(inMemoryWith: [KShelf.self, KBox.self, KOwner.self])
        let main = stack.mainContext
        let box = KBox("x")
        main.insert(box)
        try main.save()
        main.delete(box)
        let other = stack.newContext()
        try #require(try KBox.findFirst(byAttribute: "label", withValue: "x", in: other)).label = "moved"
        try other.save()
        main.rollback()
        #expect(box.label == "x")
        box.label = "edited after the rollback"
        expectError(.conflict) { try main.save() }
    }

    /// The merged version is given back only to a deletion the rollback
    /// takes back, and never moves a version backwards: a refresh after the
    /// merge read a newer row (review of this change).
    @Test @MainActor func aRollbackNeverGivesAnOlderVersion() async throws {
        let (stack, main, box) = try await deletedBoxRelabelledByAWrite()
        let other = stack.newContext()
        try #require(try KBox.findFirst(byAttribute: "label", withValue: "moved", in: other)).label = "moved again"
        try other.save()
        try main.refresh(box, mergeChanges: true)
        main.rollback()
        #expect(box.label == "moved again")
        box.label = "edited"
        try main.save()
    }

    /// A deletion taken back by `insert` before a second merge: the object
    /// took that merge's version, and a later rollback of other changes
    /// leaves it there.
    @Test @MainActor func aDeletionTakenBackByInsertKeepsTheLaterVersion() async throws {
        let (stack, main, box) = try await deletedBoxRelabelledByAWrite()
        let boxID = try #require(box.recordID)
        main.insert(box)
        try await stack.write { context in
            try #require(try context.object(with: boxID, as: KBox.self)).label = "moved again"
        }
        main.insert(KShelf("unrelated"))
        main.rollback()
        #expect(box.label == "moved again")
        box.label = "edited"
        try main.save()
    }
}
