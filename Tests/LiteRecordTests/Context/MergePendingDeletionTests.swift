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
        expectError(.conflict) { try main.save() }
    }
}
