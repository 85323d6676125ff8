import Foundation
import Testing
import LiteRecord

/// A deletion `rollback()` takes back, in a context whose merge policy
/// became `.storeTrumps` while the deletion was pending: the object knows
/// the values it was read with again, so an edit made afterwards is one the
/// store did not make and survives a conflict over another property
/// (Docs/Concurrency.md: the store's newer values win, this context's other
/// edits are kept). Model seed 251710 at length 60: the edit was dropped.
@Suite struct StoreTrumpsRolledBackDeletionTests {
    @Test func anEditAfterTheRollbackIsKeptOverTheStoresOtherChange() throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let context = stack.newContext()
        let (tag, parent) = (MTTag(), MTTag())
        tag.text = "read"
        context.insert(tag)
        context.insert(parent)
        try context.save()
        let (tagID, parentID) = (try #require(tag.recordID), try #require(parent.recordID))
        context.delete(tag)
        context.mergePolicy = .storeTrumps
        context.rollback()
        tag.text = "mine"
        let other = stack.newContext()
        let theirs = try #require(try other.object(with: tagID, as: MTTag.self))
        theirs.parent = try other.object(with: parentID, as: MTTag.self)
        try other.save()
        try context.save()
        let reader = stack.newContext()
        let stored = try #require(try reader.object(with: tagID, as: MTTag.self))
        #expect(stored.text == "mine")
        #expect(stored.parent?.recordID == parentID)
        #expect(tag.text == "mine")
    }
}
