import Foundation
import LiteRecord
import Testing

// A one-to-one with a column on each side: `lead` cascades, `spare`
// nullifies; and a to-many whose inverse is a to-one, nullified.
@Entity(name: "RCOwner")
final class RCOwner {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \RCPartner.leadOf) var lead: RCPartner?
    @Relationship(deleteRule: .nullify, inverse: \RCPartner.spareOf) var spare: RCPartner?
    @Relationship(deleteRule: .nullify, inverse: \RCPartner.owner) var members: [RCPartner] = []
    init() {}
    init(_ name: String) { self.name = name }
}

@Entity(name: "RCPartner")
final class RCPartner {
    var name = ""
    @Relationship var leadOf: RCOwner?
    @Relationship var spareOf: RCOwner?
    @Relationship var owner: RCOwner?
    init() {}
    init(_ name: String) { self.name = name }
}

/// `rollback()` undoes a deletion exactly: what the delete rules cleared in
/// memory comes back with it, on both sides of a one-to-one. Deleting an
/// owner whose `.cascade` one-to-one takes its partner clears the owner's
/// side while the owner is already deleted (no change of a deleted object
/// is recorded), and the rollback left the restored owner's `lead` nil in
/// memory: a partner taking the owner afterwards then left the old partner
/// naming it, in memory and in the store (the model-based test, seed 1153).
@Suite struct RollbackCascadeOneToOneTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [RCOwner.self, RCPartner.self])
    }

    /// An owner with a lead, a spare and two members, saved; their row ids.
    func seed() throws -> (owner: Int64, lead: Int64, spare: Int64, members: [Int64]) {
        let context = stack.newContext()
        let owner = RCOwner("o")
        context.insert(owner)
        let (lead, spare) = (RCPartner("lead"), RCPartner("spare"))
        owner.lead = lead
        owner.spare = spare
        owner.members = [RCPartner("m1"), RCPartner("m2")]
        try context.save()
        return (
            try #require(owner.recordID?.rowID), try #require(lead.recordID?.rowID), try #require(spare.recordID?.rowID),
            try owner.members.map { try #require($0.recordID?.rowID) }
        )
    }

    /// The stored partners of the owner and of a partner, read in a context
    /// of their own (kept while they are read).
    func storedLead(ofOwner row: Int64) throws -> Int64? {
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: row, in: context))
        return withExtendedLifetime(context) { owner.lead?.recordID?.rowID }
    }

    func storedLeadOf(partner row: Int64) throws -> Int64? {
        let context = stack.newContext()
        let partner = try #require(try RCPartner.find(rowID: row, in: context))
        return withExtendedLifetime(context) { partner.leadOf?.recordID?.rowID }
    }

    @Test(arguments: [false, true])
    func rollingBackACascadeThroughTheOneToOneRestoresBothSides(partnerReadFirst: Bool) throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        // Read from either side first: the owner's to-one as a loaded
        // object, or as the fault the partner's inverse leaves. The cascade
        // clears the owner's side only when the partner's is loaded (it is
        // read first, or later by the owner's own test below).
        let lead: RCPartner
        if partnerReadFirst {
            lead = try #require(try RCPartner.find(rowID: ids.lead, in: context))
            #expect(lead.leadOf === owner)
        } else {
            lead = try #require(owner.lead)
        }
        context.delete(owner)
        #expect(context.deletedObjects.contains { $0 === lead }, "the cascade took the lead")
        context.rollback()
        #expect(!context.hasChanges)
        #expect(owner.lead === lead, "the restored owner names its lead again")
        #expect(lead.leadOf === owner)

        // Another partner takes the owner: the old lead loses it, in memory
        // and in the store.
        let next = RCPartner("next")
        context.insert(next)
        next.leadOf = owner
        #expect(owner.lead === next)
        #expect(lead.leadOf == nil)
        try context.save()
        #expect(try storedLead(ofOwner: ids.owner) == next.recordID?.rowID)
        #expect(try storedLeadOf(partner: ids.lead) == nil)
        #expect(try storedLeadOf(partner: try #require(next.recordID?.rowID)) == ids.owner)
    }

    @Test func rollingBackTheDeletionThenSavingTheOwnerAgainKeepsTheLead() throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        let lead = try #require(owner.lead)
        #expect(lead.leadOf === owner, "both sides read: the cascade clears the owner's")
        context.delete(owner)
        context.rollback()
        // An edit of the owner writes its row; its lead must not be cleared.
        owner.name = "edited"
        try context.save()
        #expect(try storedLead(ofOwner: ids.owner) == ids.lead)
        #expect(try storedLeadOf(partner: ids.lead) == ids.owner)
        #expect(owner.lead === lead)
    }

    @Test func aDeletionTakenBackByInsertThenRolledBackRestoresTheLead() throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        let lead = try #require(owner.lead)
        #expect(lead.leadOf === owner, "both sides read: the cascade clears the owner's")
        context.delete(owner)
        context.insert(owner)  // takes the owner's deletion back; the lead stays deleted
        context.rollback()
        #expect(owner.lead === lead)
        #expect(lead.leadOf === owner)
        #expect(!context.hasChanges)
    }

    @Test func rollingBackANullifyThroughTheOneToOneRestoresBothSides() throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        let spare = try #require(owner.spare)
        // From the owner: the spare (kept) loses it.
        context.delete(owner)
        #expect(spare.spareOf == nil)
        context.rollback()
        #expect(owner.spare === spare)
        #expect(spare.spareOf === owner)
        // From the spare: the owner (kept) loses it.
        context.delete(spare)
        #expect(owner.spare == nil)
        context.rollback()
        #expect(owner.spare === spare)
        #expect(spare.spareOf === owner)
        #expect(!context.hasChanges)
    }

    @Test func rollingBackANullifyOfAToManyRestoresBothSides() throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        let members = owner.members
        #expect(members.count == 2)
        // One member deleted, then the owner: the other member loses it.
        context.delete(members[0])
        context.delete(owner)
        #expect(members[1].owner == nil)
        context.rollback()
        #expect(Set(owner.members.map { ObjectIdentifier($0) }) == Set(members.map { ObjectIdentifier($0) }))
        for member in members { #expect(member.owner === owner) }
        #expect(!context.hasChanges)
    }

    /// Both partners deleted by hand, the partner first (the owner, still
    /// kept, records the change), then the owner: the rollback gives both
    /// sides back.
    @Test func rollingBackTwoDeletedPartnersRestoresBothSides() throws {
        let ids = try seed()
        let context = stack.newContext()
        let owner = try #require(try RCOwner.find(rowID: ids.owner, in: context))
        let spare = try #require(owner.spare)
        context.delete(spare)
        context.delete(owner)
        context.rollback()
        #expect(owner.spare === spare)
        #expect(spare.spareOf === owner)
        #expect(owner.lead?.recordID?.rowID == ids.lead)
        #expect(!context.hasChanges)
    }
}
