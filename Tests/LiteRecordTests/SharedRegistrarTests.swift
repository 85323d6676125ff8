import Foundation
import Observation
import Synchronization
import Testing
@testable import LiteRecord

/// Counts `onChange` calls of `withObservationTracking`, from any thread.
private final class Notifications: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }

    func track(_ read: () -> Void) {
        withObservationTracking(read) { [self] in count.add(1, ordering: .relaxed) }
    }
}

/// Objects share one Observation registrar (`ObservationHub`): reading an
/// object in an observable context makes nothing per object, and a change
/// still notifies exactly the observers of that property of that object.
@Suite struct SharedRegistrarTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        context = stack.newContext()
        context.isObservable = true
        context.insert(MacroPerson(name: "Ann", age: 31))
        context.insert(MacroPerson(name: "Bob", age: 40))
        try context.save()
    }

    /// Ann and Bob fetched into a new observable context, which the caller keeps.
    func fetched() throws -> (context: RecordContext, ann: MacroPerson, bob: MacroPerson) {
        let fresh = stack.newContext()
        fresh.isObservable = true
        let people = try MacroPerson.findAll(in: fresh)
        return (fresh, try #require(people.first { $0.name == "Ann" }), try #require(people.first { $0.name == "Bob" }))
    }

    @Test func readingEveryPropertyMakesNothingPerObject() throws {
        let (fresh, ann, _) = try fetched()
        _ = (ann.identifier, ann.name, ann.age, ann.email)
        #expect(ann.recordState.mayBeObserved)
        #expect(ann.recordState.extras == nil, "no box, no registrar of its own")
        #expect(ann.context === fresh)
    }

    @Test func anObjectReadBeforeItIsObservedStillNotifies() throws {
        let (fresh, ann, _) = try fetched()
        // Read outside any tracking scope first, as a list does before a
        // detail view starts observing.
        _ = ann.age
        let changes = Notifications()
        changes.track { _ = ann.age }
        ann.age = 32
        #expect(changes.value == 1)
        #expect(ann.age == 32)
        #expect(fresh.hasChanges)
    }

    @Test func anObjectFirstReadInsideTheScopeNotifies() throws {
        let (fresh, ann, _) = try fetched()
        let changes = Notifications()
        changes.track { _ = ann.name }
        ann.name = "Anna"
        #expect(changes.value == 1)
        #expect(fresh.hasChanges)
    }

    @Test func aChangeNotifiesOnlyTheObserversOfThatObjectAndProperty() throws {
        let (fresh, ann, bob) = try fetched()
        let annAge = Notifications()
        let bobAge = Notifications()
        let annName = Notifications()
        annAge.track { _ = ann.age }
        bobAge.track { _ = bob.age }
        annName.track { _ = ann.name }
        bob.age = 41
        #expect(annAge.value == 0, "another object's change")
        #expect(bobAge.value == 1)
        ann.age = 32
        #expect(annAge.value == 1)
        #expect(annName.value == 0, "another property's change")
        #expect(fresh.updatedObjects.count == 2)
    }

    @Test func aStoredValueReadAgainNotifiesAReadObject() throws {
        let (fresh, ann, _) = try fetched()
        _ = ann.age
        let changes = Notifications()
        changes.track { _ = ann.age }
        let writer = stack.newContext()
        let stored = try #require(try MacroPerson.findAll(in: writer).first { $0.name == "Ann" })
        stored.age = 50
        try writer.save()
        try fresh.refresh(ann)
        #expect(ann.age == 50)
        #expect(changes.value == 1, "the refresh")
    }
}
