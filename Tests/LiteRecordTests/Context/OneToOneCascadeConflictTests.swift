import Foundation
import Testing
import LiteRecord

/// A `.cascade` through a one-to-one deletes the partner at the version this
/// context read: a partner another writer changed since is a conflict, as
/// deleting it directly is, and the merge policy resolves it as it resolves
/// a direct deletion. A partner first read by the deletion itself is read at
/// the version the store holds then, so there is nothing to meet.
@Suite struct OneToOneCascadeConflictTests {
    let stack: RecordStack

    /// Desk "d" with lamp "one".
    init() throws {
        stack = try RecordStack(inMemoryWith: [OODesk.self, OOLamp.self])
        let context = stack.newContext()
        let desk = OODesk("d")
        context.insert(desk)
        let lamp = OOLamp("one")
        context.insert(lamp)
        desk.lamp = lamp
        try context.save()
    }

    private func relabelLampElsewhere() throws {
        let other = stack.newContext()
        try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "one", in: other)).label = "relabelled"
        try other.save()
    }

    @Test(arguments: [true, false]) func deletingTheDeskMeetsTheLampsChange(lampRead: Bool) throws {
        let context = stack.newContext()
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context))
        if lampRead { _ = desk.lamp?.label }
        try relabelLampElsewhere()
        context.delete(desk)
        if lampRead {
            let error = expectError(.conflict) { try context.save() }
            #expect(error?.message.contains("OOLamp") == true, "\(String(describing: error))")
            #expect(try OOLamp.count(in: stack.newContext()) == 1, "nothing deleted")
        } else {
            // Read now, at the version the store holds: no conflict.
            try context.save()
            #expect(try OOLamp.count(in: stack.newContext()) == 0)
        }
    }

    @Test func deletingTheLampDirectlyMeetsItsChange() throws {
        let context = stack.newContext()
        let lamp = try #require(try OOLamp.findFirst(byAttribute: "label", withValue: "one", in: context))
        try relabelLampElsewhere()
        context.delete(lamp)
        expectError(.conflict) { try context.save() }
    }

    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps]) func thePolicyResolvesIt(policy: MergePolicy) throws {
        let context = stack.newContext()
        context.mergePolicy = policy
        let desk = try #require(try OODesk.findFirst(byAttribute: "name", withValue: "d", in: context))
        _ = desk.lamp?.label
        try relabelLampElsewhere()
        context.delete(desk)
        try context.save()
        let fresh = stack.newContext()
        #expect(try OODesk.count(in: fresh) == 0)
        // `.objectTrumps` deletes the lamp; `.storeTrumps` keeps it, detached.
        let lamps = try OOLamp.findAll(in: fresh)
        #expect(lamps.count == (policy == .objectTrumps ? 0 : 1))
        if policy == .storeTrumps { #expect(withExtendedLifetime(fresh) { lamps.first?.desk == nil && lamps.first?.label == "relabelled" }) }
    }
}
