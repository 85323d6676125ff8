import Foundation
import Testing
import LiteRecord

/// Background writes merged into the main context.
@Suite(.tags(.threads)) struct MergeTests {
    @Test @MainActor func backgroundUpdateIsVisibleAfterWriteReturns() async throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let main = stack.mainContext
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        main.insert(ann)
        try main.save()
        let id = try #require(ann.recordID)
        try await stack.write { context in
            try context.object(with: id, as: HandWrittenPerson.self)?.age = 41
        }
        #expect(ann.age == 41)
        #expect(!main.hasChanges)
    }

    @Test @MainActor func backgroundDeleteRemovesTheObject() async throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let main = stack.mainContext
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        main.insert(ann)
        try main.save()
        let id = try #require(ann.recordID)
        try await stack.write { context in
            if let mine = try context.object(with: id, as: HandWrittenPerson.self) { context.delete(mine) }
        }
        #expect(ann.context == nil)
        #expect(main.registeredObjects.isEmpty)
        #expect(try main.object(with: id, as: HandWrittenPerson.self) == nil)
    }

    @Test @MainActor func unsavedMainEditOfAnotherPropertySurvives() async throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("merge.sqlite"), entities: [HandWrittenPerson.self])
        let main = stack.mainContext
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        main.insert(ann)
        try main.save()
        let id = try #require(ann.recordID)

        ann.name = "Annie"  // unsaved edit in the main context
        try await stack.write { context in
            try context.object(with: id, as: HandWrittenPerson.self)?.age = 50
        }
        #expect(ann.name == "Annie", "in-memory edit wins")
        #expect(ann.age == 50, "the background edit arrived")
        #expect(main.hasChanges)

        let (_, statements) = try stack.recordingSQL { try main.save() }
        #expect(
            statements.contains("UPDATE \"Person\" SET \"name\" = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?"),
            "only the edited column, at the version the merge brought (no conflict)")
        let stored = try #require(try HandWrittenPerson.findAll(in: stack.newContext()).first)
        #expect(stored.name == "Annie")
        #expect(stored.age == 50)
        try stack.close()
    }

    /// A pending many-to-many change that a merged write made too is no
    /// change any more: the same pair linked again here is a change to
    /// write, not the undoing of one (model seed 152215: the store ended
    /// without the link the main context showed).
    @Test @MainActor func aPendingUnlinkTheWriteAlsoMadeLeavesALaterLinkToWrite() async throws {
        let stack = try RecordStack(inMemoryWith: [MAuthor.self, MBook.self, MTag.self])
        let main = stack.mainContext
        let book = MBook(title: "B")
        let tag = MTag(label: "t")
        main.insert(book)
        main.insert(tag)
        book.tags = [tag]
        try main.save()
        book.tags = []
        try await stack.write { context in
            for stored in try MBook.findAll(in: context) { stored.tags = [] }
        }
        book.tags = [tag]
        #expect(main.hasChanges)
        try main.save()
        let check = stack.newContext()
        let stored = try #require(try MBook.findAll(in: check).first)
        #expect(withExtendedLifetime(check) { stored.tags.map(\.label) } == ["t"])
    }
}
