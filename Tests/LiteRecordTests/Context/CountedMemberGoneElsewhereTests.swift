import Foundation
import Testing
import LiteRecord

/// A counted list's member that another writer deleted while this context
/// held a change of it: the save meets the member's deletion as a conflict,
/// and a policy that resolves it forgets the member ("changed here, deleted
/// in the store", Docs/Concurrency.md), so the list the save leaves lacks
/// it. Its maximum is not broken by a member the save will not keep: model
/// seed 415048 at length 80 (a chapter moved onto a full book here, which a
/// merged `write {}` deleted) was refused with `.validationFailed`.
@Suite struct CountedMemberGoneElsewhereTests {
    /// Book A with two chapters, book B with one; each book has its note
    /// (`MTBook.notes` needs one; `MTBook.chapters` holds at most three).
    private func seeded(_ stack: RecordStack) async throws -> (a: RecordID, moved: RecordID) {
        try await stack.write { context in
            var books: [MTBook] = []
            for chapters in [2, 1] {
                let book = MTBook()
                context.insert(book)
                let note = MTNote()
                context.insert(note)
                note.book = book
                for _ in 0..<chapters {
                    let chapter = MTChapter()
                    context.insert(chapter)
                    chapter.book = book
                }
                books.append(book)
            }
            try context.save()
            return (try #require(books[0].recordID), try #require(books[1].chapters.first?.recordID))
        }
    }

    @MainActor private func movedOntoAFullBookThenDeletedElsewhere(_ stack: RecordStack, _ policy: MergePolicy) async throws -> RecordID {
        let (aID, movedID) = try await seeded(stack)
        let main = stack.mainContext
        main.mergePolicy = policy
        let a = try #require(try main.object(with: aID, as: MTBook.self))
        a.chapters.append(try #require(try main.object(with: movedID, as: MTChapter.self)))
        let added = MTChapter()
        main.insert(added)
        added.book = a
        #expect(a.chapters.count == 4)
        try await stack.write { context in
            context.delete(try #require(try context.object(with: movedID, as: MTChapter.self)))
        }
        return aID
    }

    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps])
    @MainActor func aGoneMemberDoesNotBreakTheMaximum(policy: MergePolicy) async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        let aID = try await movedOntoAFullBookThenDeletedElsewhere(stack, policy)
        try stack.mainContext.save()

        let reader = stack.newContext()
        let a = try #require(try reader.object(with: aID, as: MTBook.self))
        #expect(a.chapters.count == 3, "the two it had and the one added here; the gone one is forgotten")
    }

    @Test @MainActor func underErrorTheSaveMeetsTheConflict() async throws {
        let stack = try RecordStack(inMemoryWith: modelTestEntities)
        _ = try await movedOntoAFullBookThenDeletedElsewhere(stack, .error)
        let error = try #require(throws: LiteRecordError.self) { try stack.mainContext.save() }
        #expect(error.kind == .conflict)
    }
}
