import Foundation
import Testing
import LiteRecord

/// A one-to-one keeps a column on each side, and Docs/Relationships.md's
/// "assigning either side updates the other in memory" keeps them paired
/// whether or not the partners were read: the object that held the new
/// partner loses it, and the old partner loses the object (the
/// model-based test found the store keeping both when the partner's other side was
/// not loaded).
@Suite struct OneToOnePartnerTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: relationshipEntities + deleteRuleEntities)
    }

    /// Saves `a.next = b` and returns their row ids.
    func seedPair() throws -> (a: Int64, b: Int64) {
        let context = stack.newContext()
        let (a, b) = (DRNode(), DRNode())
        context.insert(a)
        a.next = b
        try context.save()
        return (try #require(a.recordID?.rowID), try #require(b.recordID?.rowID))
    }

    /// The stored partners of `row`, read in a context of their own (kept
    /// while they are read: a released context's objects keep no relationships).
    func stored(_ row: Int64) throws -> (next: Int64?, previous: Int64?) {
        let context = stack.newContext()
        let node = try #require(try DRNode.find(rowID: row, in: context))
        return withExtendedLifetime(context) { (node.next?.recordID?.rowID, node.previous?.recordID?.rowID) }
    }

    @Test func takingAPartnerWhosePartnerWasNotReadClearsThatPartner() throws {
        let (a, b) = try seedPair()
        let context = stack.newContext()
        let c = DRNode()
        context.insert(c)
        // Only b is read: its `previous` names a, which the context never read.
        let partner = try #require(try DRNode.find(rowID: b, in: context))
        c.next = partner
        try context.save()
        #expect(try stored(a).next == nil)
        #expect(try stored(b).previous == c.recordID?.rowID)
    }

    @Test func leavingAPartnerThatWasNotReadClearsItsSide() throws {
        let (a, b) = try seedPair()
        let context = stack.newContext()
        // Only a is read: its `next` names b, which the context never read.
        let first = try #require(try DRNode.find(rowID: a, in: context))
        first.next = nil
        try context.save()
        #expect(try stored(a).next == nil)
        #expect(try stored(b).previous == nil)
    }
}
