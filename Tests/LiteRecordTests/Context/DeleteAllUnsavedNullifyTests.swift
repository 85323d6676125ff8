import Foundation
import Testing
import LiteRecord

@Entity(name: "DNOwner")
final class DNOwner {
    var name = ""
    @Relationship(deleteRule: .nullify, inverse: \DNNote.owner) var notes: [DNNote] = []
    @Relationship(deleteRule: .nullify, inverse: \DNNote.leadOf) var lead: DNNote?
    init() {}
}

@Entity(name: "DNNote")
final class DNNote {
    var text = ""
    @Relationship var owner: DNOwner?
    @Relationship var leadOf: DNOwner?
    init() {}
}

/// Docs/Relationships.md: `deleteAll` and `truncateAll` "apply the same
/// rules" as deleting the loaded objects, and this context's unsaved
/// objects naming a deleted row meet them. With `.nullify`, the object path
/// clears the to-one in memory; the model-based test (seed 3024) found a new
/// object's to-one (a one-to-one set from the other side) still naming the
/// deleted, forgotten record after the deletion and after the save, which
/// wrote it as no relationship.
@Suite struct DeleteAllUnsavedNullifyTests {
    @Test func aNewObjectsToOnesNamingDeletedRowsAreCleared() throws {
        let stack = try RecordStack(inMemoryWith: [DNOwner.self, DNNote.self])
        let context = stack.newContext()
        let owner = DNOwner()
        owner.name = "o"
        context.insert(owner)
        try context.save()

        let note = DNNote()
        note.text = "new"
        context.insert(note)
        note.owner = owner
        note.leadOf = owner  // the one-to-one, set from the note's side
        #expect(owner.lead === note)

        #expect(try DNOwner.deleteAll(matching: #Predicate { _ in true }, in: context) == 1)
        #expect(note.owner == nil, "the new note no longer names the deleted owner")
        #expect(note.leadOf == nil)
        try context.save()
        #expect(note.owner == nil)
        #expect(note.leadOf == nil)
        let reader = stack.newContext()
        let stored = try #require(try DNNote.findAll(in: reader).first)
        withExtendedLifetime(reader) {
            #expect(stored.owner == nil)
            #expect(stored.leadOf == nil)
        }
    }
}
