import Foundation
import Testing
@testable import LiteRecord

/// A set-based delete (`deleteAll`, `truncateAll`) that nullifies to-ones
/// changes those rows: their versions move on as for any save, so another
/// context holding one meets the conflict, while the deleting context's own
/// objects follow their rows and save cleanly.
@Suite(.tags(.threads)) struct SetBasedDeleteConflictTests {

    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [SDKeeper.self, SDPet.self])
        context = stack.newContext()
        let keeper = SDKeeper()
        context.insert(keeper)
        let pet = SDPet()
        pet.name = "Rex"
        pet.keeper = keeper
        context.insert(pet)
        try context.save()
    }

    @Test func theDeletingContextFollowsTheNewVersion() throws {
        let pet = try #require(try SDPet.findAll(in: context).first)
        let before = pet.recordState.version
        #expect(try SDKeeper.truncateAll(in: context) == 1)
        #expect(pet.keeper == nil)
        #expect(pet.recordState.version == before + 1)
        pet.name = "Max"
        try context.save()
        #expect(try SDPet.findAll(in: stack.newContext()).first?.name == "Max")
    }

    @Test func anotherContextMeetsTheConflict() throws {
        let other = stack.newContext()
        let pet = try #require(try SDPet.findAll(in: other).first)
        _ = pet.keeper
        #expect(try SDKeeper.deleteAll(matching: #Predicate<SDKeeper> { _ in true }, in: context) == 1)
        pet.name = "Max"
        do {
            try other.save()
            Issue.record("the save should have met the nullified row")
        } catch let error as LiteRecordError {
            #expect(error.kind == .conflict)
        }
        other.mergePolicy = .objectTrumps
        try other.save()
        #expect(pet.keeper == nil, "the store's change to the relationship is taken")
        let stored = try #require(try SDPet.findAll(in: stack.newContext()).first)
        #expect(stored.name == "Max")
        #expect(stored.keeper == nil)
    }

    /// A `write` context's set-based delete counts the to-one it cleared in
    /// the written columns (the row-version rule): the main context's object,
    /// edited elsewhere, follows the row and saves without a conflict.
    @Test @MainActor func aWritesDeleteAllIsMergedWithoutAFalseConflict() async throws {
        let main = stack.mainContext
        let pet = try #require(try SDPet.findAll(in: main).first)
        #expect(pet.keeper != nil)
        pet.name = "Max"  // unsaved, another property
        try await stack.write { context in
            _ = try SDKeeper.deleteAll(matching: #Predicate<SDKeeper> { _ in true }, in: context)
        }
        #expect(pet.keeper == nil, "the merge brings the cleared to-one")
        #expect(pet.name == "Max", "and keeps the unsaved edit")
        try main.save()
        let stored = try #require(try SDPet.findAll(in: stack.newContext()).first)
        #expect(stored.name == "Max")
        #expect(stored.keeper == nil)
    }

    /// The same delete meets the conflict when the main context changed the
    /// to-one the delete cleared: the merge never settles it silently.
    @Test @MainActor func aWritesDeleteAllConflictsWithAnEditOfTheClearedToOne() async throws {
        let main = stack.mainContext
        let pet = try #require(try SDPet.findAll(in: main).first)
        let other = SDKeeper()
        other.name = "Other"
        main.insert(other)
        try main.save()
        let first = try #require(try SDKeeper.findAll(in: main).first { $0.name != "Other" })
        let firstID = try #require(first.recordID)
        pet.keeper = other  // unsaved edit of the cleared column
        try await stack.write { context in
            _ = try SDKeeper.deleteAll(matching: #Predicate<SDKeeper> { $0.name != "Other" }, in: context)
        }
        #expect(try SDKeeper.find(rowID: firstID.rowID, in: stack.newContext()) == nil)
        let error = try #require(throws: LiteRecordError.self) { try main.save() }
        #expect(error.kind == .conflict)
        #expect(try SDPet.findAll(in: stack.newContext()).first?.keeper == nil, "nothing written over the delete")
    }
}

@Entity
final class SDKeeper {
    var name = ""
    @Relationship(inverse: \SDPet.keeper) var pets: [SDPet] = []
    init() {}
}

@Entity
final class SDPet {
    var name = ""
    @Relationship var keeper: SDKeeper?
    init() {}
}
