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

/// An `Observable` entity written by hand: its accessors name properties
/// only by key path.
private final class HandNote: Entity, Observation.Observable {
    var recordState = RecordState()
    private var _title = ""
    private var _stars = 0
    var title: String {
        get { observationAccess(\.title); return _title }
        set { withObservedMutation(of: \.title) { _title = newValue }; didChangeAttribute(at: 0) }
    }
    var stars: Int {
        get { observationAccess(\.stars); return _stars }
        set { withObservedMutation(of: \.stars) { _stars = newValue }; didChangeAttribute(at: 1) }
    }
    static let entityName = "HandNote"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("title", type: .string),
        AttributeDescription("stars", type: .int),
    ]
    init(title: String, stars: Int) {
        _title = title
        _stars = stars
    }
    init(row: Row) throws {
        _title = try row.decode(String.self, at: 0)
        _stars = try row.decode(Int.self, at: 1)
    }
    func encodeAttribute(at index: Int) throws -> SQLValue { index == 0 ? .text(_title) : .integer(Int64(_stars)) }
    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 {
            let value = try row.decode(String.self, at: 0)
            storeObserved(\HandNote.title, value != _title) { _title = value }
        } else {
            let value = try row.decode(Int.self, at: 1)
            storeObserved(\HandNote.stars, value != _stars) { _stars = value }
        }
    }
}

/// Objects share Observation registrars a few at a time (`ObservationGroup`):
/// reading an object in an observable context gives it a place in a group and
/// nothing else, and a change still notifies exactly the observers of that
/// property of that object.
@Suite(.tags(.threads)) struct ObservationGroupTests {
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [MacroPerson.self, MAuthor.self, MBook.self, MTag.self, HandNote.self])
        let context = stack.newContext()
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

    @Test func readingEveryPropertyKeepsNothingPerObjectButAPlace() throws {
        let fresh = stack.newContext()
        fresh.isObservable = true
        let people = try MacroPerson.findAll(sortedBy: [SortDescriptor(\.name)], in: fresh)
        #expect(people.allSatisfy { $0.recordState.observationGroup == nil }, "a fetch alone joins no group")
        let (ann, bob) = (people[0], people[1])
        _ = (ann.identifier, ann.name, ann.age, ann.email)
        _ = (bob.identifier, bob.name, bob.age, bob.email)
        let group = try #require(ann.recordState.observationGroup)
        #expect(ann.recordState.extras == nil, "no box, no registrar of its own")
        #expect(bob.recordState.observationGroup != nil)
        if bob.recordState.observationGroup === group {
            #expect(bob.recordState.observationSlot != ann.recordState.observationSlot)
        }
        #expect(ann.context === fresh)
    }

    @Test func anObjectReadBeforeItIsObservedStillNotifies() throws {
        let (fresh, ann, _) = try fetched()
        _ = ann.age  // read outside any scope first, as a list does before a detail view observes
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

    @Test func objectsOfOneGroupAreToldApart() throws {
        // Two and a half groups' worth of objects fill at least two groups
        // completely: one change among them, every other object watched.
        let context = stack.newContext()
        context.isObservable = true
        let count = ObservationGroup.capacity * 5 / 2
        let changed = count / 2 + 1
        let people = (0..<count).map { MacroPerson(name: "P\($0)", age: $0) }
        for person in people { context.insert(person) }
        let watchers = people.map { person in
            let watcher = Notifications()
            watcher.track { _ = person.age }
            return watcher
        }
        let groups = Set(people.compactMap { $0.recordState.observationGroup.map(ObjectIdentifier.init) })
        #expect(groups.count >= 3, "\(count) objects take at least three groups of \(ObservationGroup.capacity)")
        people[changed].age = 1_000
        #expect(watchers.map(\.value) == (0..<count).map { $0 == changed ? 1 : 0 })
    }

    @Test func aStoredValueReadAgainNotifiesAReadObject() throws {
        let (fresh, ann, _) = try fetched()
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

    @Test func relationshipsOfOneGroupAreToldApart() throws {
        let context = stack.newContext()
        context.isObservable = true
        let ann = MAuthor()
        let books = (0..<4).map { _ in MBook() }
        context.insert(ann)
        for book in books { context.insert(book) }
        let watchers = books.map { book in
            let watcher = Notifications()
            watcher.track { _ = book.author }
            return watcher
        }
        books[2].author = ann
        #expect(watchers.map(\.value) == [0, 0, 1, 0])
    }

    @Test func anEntityWrittenByHandIsObservedByKeyPath() throws {
        let context = stack.newContext()
        context.isObservable = true
        let first = HandNote(title: "a", stars: 1)
        let second = HandNote(title: "b", stars: 2)
        context.insert(first)
        context.insert(second)
        try context.save()
        let firstTitle = Notifications()
        let firstStars = Notifications()
        let secondTitle = Notifications()
        firstTitle.track { _ = first.title }
        firstStars.track { _ = first.stars }
        secondTitle.track { _ = second.title }
        first.title = "A"
        #expect(firstTitle.value == 1)
        #expect(firstStars.value == 0)
        #expect(secondTitle.value == 0)

        let merged = Notifications()
        merged.track { _ = second.stars }
        let writer = stack.newContext()
        let stored = try #require(try HandNote.findAll(in: writer).first { $0.title == "b" })
        stored.stars = 5
        try writer.save()
        try context.refresh(second)
        #expect(second.stars == 5)
        #expect(merged.value == 1, "the refresh")
    }

    @Test func aGroupGoesAwayWithItsObjectsEvenIfTheirObserversNeverFired() throws {
        // Scopes that read an object and never saw a change leave entries in
        // its group's registrar; they must not keep the group alive.
        weak var lastGroup: ObservationGroup?
        var groups: [Weak] = []
        do {
            let context = stack.newContext()
            context.isObservable = true
            let people = (0..<(ObservationGroup.capacity * 8)).map { MacroPerson(name: "P\($0)", age: $0) }
            for person in people {
                context.insert(person)
                withObservationTracking {
                    _ = person.age
                } onChange: {
                }
            }
            groups = people.compactMap { $0.recordState.observationGroup.map(Weak.init) }
            lastGroup = people.last?.recordState.observationGroup
        }
        #expect(groups.count == ObservationGroup.capacity * 8)
        let alive = Set(groups.compactMap { $0.group.map(ObjectIdentifier.init) })
        // The group being filled is held until it is full; another test's
        // objects may share it, or one more, while they live.
        #expect(alive.count <= 2, "\(alive.count) of the groups outlived their objects")
        _ = lastGroup
    }
}

private struct Weak {
    weak var group: ObservationGroup?
    init(_ group: ObservationGroup) { self.group = group }
}
