import Foundation
import Testing
import LiteRecord

/// A counted list's owner that another writer deleted while this context
/// held a change of its count: the owner has no list left to count, so its
/// bounds do not refuse the save; the save meets the owner's deletion as a
/// conflict, and the merge policy decides. The shape of model seed 758 (a
/// note deleted here, its book — whose `notes` needs at least one — deleted
/// by a merged `write {}`): the model's own sequence refused the save with
/// `.validationFailed` on the gone book before the fix; these cases, which
/// load less, passed before it too and hold the outcome.
@Suite struct CountedOwnerGoneElsewhereTests {
    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps])
    @MainActor func theGoneOwnersCountDoesNotRefuseTheSave(policy: MergePolicy) async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let (bookID, noteRow) = try await stack.write { context in
            let book = MTBook()
            let note = MTNote()
            for object in [book, note] as [any Entity] { context.insert(object) }
            note.book = book
            try context.save()
            return (try #require(book.recordID), try #require(note.recordID?.rowID))
        }
        let main = stack.mainContext
        main.mergePolicy = policy
        // Only the note is fetched: deleting it notes its book, not loaded,
        // as an owner whose count changes (its last note: alone, refused).
        main.delete(try #require(try MTNote.find(rowID: noteRow, in: main)))
        try await stack.write { context in
            context.delete(try #require(try context.object(with: bookID, as: MTBook.self)))
        }
        try main.save()

        let reader = stack.newContext()
        #expect(try MTBook.count(in: reader) == 0)
        let kept = try MTNote.find(rowID: noteRow, in: reader)
        if policy == .objectTrumps {
            #expect(kept == nil, "the deletion made here stands")
        } else {
            #expect(kept?.book == nil, "the store's nullify stands, and nothing names the gone book")
        }
    }

    /// The owner still stored: its bounds refuse the save as before.
    @Test @MainActor func aStoredOwnersCountStillRefuses() async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let main = stack.mainContext
        let book = MTBook()
        let note = MTNote()
        for object in [book, note] as [any Entity] { main.insert(object) }
        note.book = book
        try main.save()
        main.delete(note)
        try await stack.write { context in
            let other = MTNote()
            other.text = "unrelated"
            context.insert(other)
            let another = MTBook()
            context.insert(another)
            other.book = another
        }
        expectError(.validationFailed) { try main.save() }
    }
}
