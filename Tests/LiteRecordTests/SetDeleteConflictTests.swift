import Foundation
import Testing
@testable import LiteRecord

/// A set-based delete (`deleteAll`, `truncateAll`) that nullifies to-ones
/// changes those rows: their versions move on as for any save, so another
/// context holding one meets the conflict, while the deleting context's own
/// objects follow their rows and save cleanly.
@Suite struct SetDeleteConflictTests {

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
