import Foundation
import Observation
import Synchronization
import Testing
@testable import LiteRecord

/// Counts `onChange` calls of `withObservationTracking`, from any thread.
private final class Changes: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }

    /// Tracks what `read` reads; each change counts once (tracking ends at the
    /// first change, as Observation's does).
    func track(_ read: () -> Void) {
        withObservationTracking(read) { [self] in count.add(1, ordering: .relaxed) }
    }
}

/// `@Entity` classes are `Observable`.
@Suite(.tags(.threads)) struct ObservableEntityTests {
    @Test func entitiesAreObservable() {
        #expect((MacroPerson() as Any) is any Observable)
        #expect((MBook() as Any) is any Observable)
    }

    @Test @MainActor func aSetterFires() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let ann = MacroPerson(name: "Ann", age: 31)
        stack.mainContext.insert(ann)
        try stack.mainContext.save()
        let name = Changes()
        let age = Changes()
        name.track { _ = ann.name }
        age.track { _ = ann.age }
        ann.age = 32
        #expect(age.value == 1)
        #expect(name.value == 0, "only what was read is observed")
        ann.age = 32
        #expect(age.value == 1, "the same value is no change")
    }

    @Test func anObjectInNoContextFires() {
        let ann = MacroPerson(name: "Ann", age: 31)
        let changes = Changes()
        changes.track { _ = ann.name }
        ann.name = "Annie"
        #expect(changes.value == 1)
    }

    @Test @MainActor func aMergeAfterABackgroundWriteFires() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let ann = MacroPerson(name: "Ann", age: 31)
        main.insert(ann)
        try main.save()
        let id = try #require(ann.recordID)
        let age = Changes()
        let name = Changes()
        age.track { _ = ann.age }
        name.track { _ = ann.name }
        try await stack.write { context in
            try context.object(with: id, as: MacroPerson.self)?.age = 40
        }
        #expect(ann.age == 40)
        #expect(age.value == 1, "the merge told the observer")
        #expect(name.value == 0, "an attribute the merge left alone does not fire")
    }

    @Test @MainActor func rollbackAndRefreshFire() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let ann = MacroPerson(name: "Ann", age: 31)
        main.insert(ann)
        try main.save()
        ann.age = 50
        let rolledBack = Changes()
        rolledBack.track { _ = ann.age }
        main.rollback()
        #expect(ann.age == 31)
        #expect(rolledBack.value == 1)

        ann.name = "Edited"
        let refreshed = Changes()
        refreshed.track { _ = ann.name }
        try main.refresh(ann)
        #expect(ann.name == "Ann")
        #expect(refreshed.value == 1)
    }

    @Test @MainActor func relationshipsFireOnAssignmentInverseAndMerge() async throws {
        let stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let main = stack.mainContext
        let ann = MAuthor(name: "Ann")
        let bob = MAuthor(name: "Bob")
        let dune = MBook(title: "Dune", author: ann)
        main.insert(dune)
        main.insert(bob)
        try main.save()
        #expect(ann.books.count == 1)

        let author = Changes()
        let annBooks = Changes()
        author.track { _ = dune.author }
        annBooks.track { _ = ann.books }
        dune.author = bob
        #expect(author.value == 1, "the setter")
        #expect(annBooks.value == 1, "the inverse, kept up to date in memory")
        try main.save()

        let merged = Changes()
        merged.track { _ = dune.author }
        let duneID = try #require(dune.recordID)
        let annID = try #require(ann.recordID)
        try await stack.write { context in
            let book = try context.object(with: duneID, as: MBook.self)
            book?.author = try context.object(with: annID, as: MAuthor.self)
        }
        #expect(dune.author === ann)
        #expect(merged.value == 1, "the merge")
    }

    @Test func backgroundContextsAreNotObservedUnlessAsked() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        #expect(!context.isObservable, "made off the main actor")
        context.insert(MacroPerson(name: "Ann", age: 31))
        try context.save()
        let ann = try #require(try MacroPerson.findAll(in: context).first)
        let silent = Changes()
        silent.track { _ = ann.age }
        ann.age = 32
        #expect(silent.value == 0)
        #expect(ann.recordState.observationGroup == nil, "a read joins no registrar")

        context.isObservable = true
        let heard = Changes()
        heard.track { _ = ann.age }
        ann.age = 33
        #expect(heard.value == 1)
    }

    @Test @MainActor func contextsOfTheMainActorAreObservable() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        #expect(stack.mainContext.isObservable)
        #expect(stack.newContext().isObservable)
        #expect(stack.mainContext.makeChildContext().isObservable)
    }
}
