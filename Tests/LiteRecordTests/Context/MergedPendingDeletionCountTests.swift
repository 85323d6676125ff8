import Foundation
import Testing
import LiteRecord

/// A record the main context is deleting, which a merged `write {}` moves
/// into another owner's counted list: the deletion now takes it from that
/// list, so the save counts that list too (Docs/Relationships.md: the bounds
/// hold "however it changed", a deletion included). Model seed 121382: the
/// deletion's own `.nullify` had cleared the to-one in memory, so the merge
/// kept it cleared and the save counted nothing; the list's owner was left
/// without its one note, and under `.storeTrumps`, which keeps the note
/// (changed in the store), the save went on to a foreign-key failure: the
/// second book's new note names the book deleted here. The check in the
/// context comes first, before anything is written.
@Suite struct MergedPendingDeletionCountTests {
    @Test @MainActor func theListAMergeMovedADeletedObjectIntoIsCounted() async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let (first, second, third) = (MTBook(), MTBook(), MTBook())
        let (lead, other, kept, spare) = (MTNote(), MTNote(), MTNote(), MTNote())
        for book in [first, second, third] { main.insert(book) }
        for note in [lead, other, kept, spare] { main.insert(note) }
        lead.book = second
        second.lead = lead
        other.book = third
        kept.book = first
        spare.book = first
        try main.save()
        let ids = (lead: try #require(lead.recordID), other: try #require(other.recordID), spare: try #require(spare.recordID))
        let books = (first: try #require(first.recordID), second: try #require(second.recordID), third: try #require(third.recordID))
        // Takes its lead along (`.cascade`), whose Note.book its `.nullify` clears.
        main.delete(second)
        #expect(main.deletedObjects.contains { $0 === lead })
        // The write gives the third book's only note to the first, the note
        // being deleted here to the third, and the second a note of the first
        // in its place (each list keeps one).
        try await stack.write { context in
            let note = { (id: RecordID) in try #require(try context.object(with: id, as: MTNote.self)) }
            let book = { (id: RecordID) in try context.object(with: id, as: MTBook.self) }
            try note(ids.other).book = try book(books.first)
            try note(ids.lead).book = try book(books.third)
            try note(ids.spare).book = try book(books.second)
        }
        let error = expectError(.validationFailed) { try main.save() }
        #expect(error?.message.contains("MTBook.notes of MTBook #\(books.third.rowID) holds 0 objects; at least 1") == true, "\(String(describing: error))")
        let check = stack.newContext()
        #expect(try #require(try check.object(with: books.third, as: MTBook.self)).notes.map(\.recordID) == [ids.lead])
    }
}
