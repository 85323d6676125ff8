import Foundation
import Testing
@testable import LiteRecord

/// A `.cascade` to-many that is not loaded when its owner is deleted is left
/// to the store: the save deletes the related rows with one statement per
/// relationship for every deleted owner, instead of reading each owner's
/// objects into the context. What the context reports stays the same as
/// with the objects loaded.
@Suite(.tags(.threads)) struct SetBasedCascadeTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: relationshipEntities + setCascadeEntities)
        context = stack.newContext()
    }

    /// `authors` authors named A0, A1, … with `books` books each, saved.
    func seed(authors: Int, books: Int) throws {
        for index in 0..<authors {
            let author = RAuthor("A\(index)")
            context.insert(author)
            for number in 0..<books { RBook("A\(index).\(number)").author = author }
        }
        try context.save()
    }

    /// The stored books' titles, sorted.
    func storedTitles() throws -> [String] {
        try RBook.findAll(in: stack.newContext()).map(\.title).sorted()
    }

    @Test func deletingOwnersWithUnloadedBooksReadsTheirIDsAndDeletesTheBooksWithOneStatement() throws {
        try seed(authors: 4, books: 3)
        let fresh = stack.newContext()
        let authors = try RAuthor.findAll(in: fresh).sorted { $0.name < $1.name }
        let reader = stack.newContext()
        let doomedBookIDs = Set(
            try RBook.findAll(in: reader)
                .filter { $0.title.hasPrefix("A0.") || $0.title.hasPrefix("A2.") }.compactMap(\.recordID))
        #expect(doomedBookIDs.count == 6)
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        let (_, reads) = stack.recordingSQL { fresh.delete([authors[0], authors[2]]) }
        // The deletion reads the doomed books' ids and versions, for both
        // authors at once, and makes no object for them.
        #expect(reads.count == 1)
        #expect(reads.first?.hasPrefix("SELECT \"Z_PK\", \"Z_OPT\" FROM \"Book\"") == true)
        #expect(!fresh.registeredObjects.contains { $0 is RBook })
        let (_, writes) = try stack.recordingSQL { try fresh.save() }
        // One DELETE of the books, at the versions read.
        let bookStatements = writes.filter { $0.contains("\"Book\"") }
        #expect(bookStatements.count == 1)
        #expect(bookStatements.first?.hasPrefix("DELETE") == true)
        let deleted = Set(committed?.deleted ?? [])
        #expect(committed?.deleted.count == 8, "each row once")
        #expect(deleted.count == 8)
        #expect(doomedBookIDs.isSubset(of: deleted))
        #expect(committed?.updated.isEmpty == true)
        #expect(try storedTitles() == ["A1.0", "A1.1", "A1.2", "A3.0", "A3.1", "A3.2"])
        #expect(try RAuthor.count(in: fresh) == 2)
        #expect(!fresh.hasChanges)
    }

    @Test func deletedObjectsReadsTheDoomedObjectsWhenAsked() throws {
        try seed(authors: 2, books: 3)
        let fresh = stack.newContext()
        let ann = try #require(try RAuthor.findAll(in: fresh).first { $0.name == "A0" })
        fresh.delete(ann)
        let deleted = fresh.deletedObjects
        #expect(deleted.count == 4)
        #expect(deleted.compactMap { $0 as? RBook }.map(\.title).sorted() == ["A0.0", "A0.1", "A0.2"])
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        try fresh.save()
        #expect(committed?.deleted.count == 4)
        #expect(try storedTitles() == ["A1.0", "A1.1", "A1.2"])
    }

    @Test func aFetchBeforeTheSaveLeavesTheDoomedObjectsOut() throws {
        try seed(authors: 2, books: 2)
        let fresh = stack.newContext()
        let ann = try #require(try RAuthor.findAll(in: fresh).first { $0.name == "A0" })
        fresh.delete(ann)
        #expect(try RBook.findAll(in: fresh).map(\.title).sorted() == ["A1.0", "A1.1"])
        try fresh.save()
        #expect(try storedTitles() == ["A1.0", "A1.1"])
    }

    @Test func aLoadedObjectOfADoomedRowIsMarkedDeletedAndForgotten() throws {
        try seed(authors: 2, books: 2)
        let fresh = stack.newContext()
        // The book is registered (fetched on its own); its author's list is not loaded.
        let book = try #require(try RBook.findAll(in: fresh).first { $0.title == "A0.1" })
        let ann = try #require(try RAuthor.findAll(in: fresh).first { $0.name == "A0" })
        let bookID = try #require(book.recordID)
        fresh.delete(ann)
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        let (_, writes) = try stack.recordingSQL { try fresh.save() }
        #expect(book.context == nil, "the context no longer holds it")
        #expect(fresh.registeredObjects.allSatisfy { $0 !== book })
        #expect(committed?.deleted.filter { $0 == bookID }.count == 1)
        #expect(committed?.deleted.count == 3)
        // The fetch registered every book: both go with the save's own
        // versioned delete, and nothing is left to the store.
        #expect(writes.filter { $0.contains("\"Book\"") && $0.hasPrefix("DELETE") }.count == 1)
        #expect(try storedTitles() == ["A1.0", "A1.1"])
    }

    @Test func aBookMovedToAnotherAuthorInMemoryStays() throws {
        try seed(authors: 2, books: 2)
        let fresh = stack.newContext()
        let authors = try RAuthor.findAll(in: fresh)
        let ann = try #require(authors.first { $0.name == "A0" })
        let bob = try #require(authors.first { $0.name == "A1" })
        let moved = try #require(try RBook.findAll(in: fresh).first { $0.title == "A0.0" })
        moved.author = bob
        fresh.delete(ann)
        try fresh.save()
        #expect(try storedTitles() == ["A0.0", "A1.0", "A1.1"])
        let other = stack.newContext()
        let stored = try #require(try RBook.findAll(in: other).first { $0.title == "A0.0" })
        #expect(stored.author?.name == "A1")
        #expect(moved.context === fresh)
    }

    @Test func aNewBookPointedAtTheDoomedAuthorIsDropped() throws {
        try seed(authors: 1, books: 2)
        let fresh = stack.newContext()
        let ann = try #require(try RAuthor.findAll(in: fresh).first)
        let newBook = RBook("new")
        fresh.insert(newBook)
        newBook.author = ann
        fresh.delete(ann)
        try fresh.save()
        #expect(try storedTitles().isEmpty)
        #expect(newBook.context == nil)
        #expect(!fresh.hasChanges)
    }

    @Test func denyDeepInTheCascadeFailsTheSaveAndLeavesTheStoreAlone() throws {
        let owner = SCOwner()
        context.insert(owner)
        let children = [SCChild(), SCChild()]
        owner.children = children
        children[1].tokens = [SCToken()]
        try context.save()
        let fresh = stack.newContext()
        let doomed = try #require(try SCOwner.findAll(in: fresh).first)
        fresh.delete(doomed)
        let error = expectError(.validationFailed) { try fresh.save() }
        #expect(error?.message.contains("Child.tokens") == true)
        #expect(error?.message.contains(".deny") == true)
        let other = stack.newContext()
        #expect(try SCOwner.count(in: other) == 1)
        #expect(try SCChild.count(in: other) == 2)
        #expect(try SCToken.count(in: other) == 1)
        #expect(fresh.hasChanges, "the context keeps its deletion")
        // Once the token is gone the same deletion goes through.
        try SCToken.truncateAll(in: other)
        try fresh.save()
        #expect(try SCOwner.count(in: other) == 0)
        #expect(try SCChild.count(in: other) == 0)
    }

    @Test func nullifyBehindTheCascadeClearsTheReferenceAndReportsAnUpdate() throws {
        let owner = SCOwner()
        context.insert(owner)
        let child = SCChild()
        owner.children = [child]
        let note = SCNote()
        note.text = "kept"
        note.child = child
        try context.save()
        let fresh = stack.newContext()
        // The note is held (its to-one read as a fault), the child is not.
        let heldNote = try #require(try SCNote.findAll(in: fresh).first)
        let doomed = try #require(try SCOwner.findAll(in: fresh).first)
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        fresh.delete(doomed)
        try fresh.save()
        let noteID = try #require(heldNote.recordID)
        #expect(committed?.updated == [noteID])
        #expect(committed?.deleted.count == 2)
        #expect(heldNote.child == nil)
        let other = stack.newContext()
        #expect(try SCNote.findAll(in: other).first?.child == nil)
        #expect(try SCChild.count(in: other) == 0)
        // The held note follows its row to the new version: its next save meets no conflict.
        heldNote.text = "edited"
        try fresh.save()
        #expect(try SCNote.findAll(in: stack.newContext()).first?.text == "edited")
    }

    /// In a `write {}`, the cleared to-one is counted in the written columns
    /// (the row-version rule): the main context's note, edited in another
    /// property, follows its row and saves without a false conflict.
    @Test @MainActor func aWritesCascadeNullifyIsMergedWithoutAFalseConflict() async throws {
        let owner = SCOwner()
        context.insert(owner)
        let child = SCChild()
        owner.children = [child]
        let note = SCNote()
        note.text = "kept"
        note.child = child
        try context.save()
        let main = stack.mainContext
        let heldNote = try #require(try SCNote.findAll(in: main).first)
        #expect(heldNote.child != nil)
        heldNote.text = "edited"  // unsaved, another property
        try await stack.write { writer in
            writer.delete(try SCOwner.findAll(in: writer))
        }
        #expect(heldNote.child == nil, "the merge brings the cleared to-one")
        #expect(heldNote.text == "edited")
        try main.save()
        let stored = try #require(try SCNote.findAll(in: stack.newContext()).first)
        #expect(stored.text == "edited")
        #expect(stored.child == nil)
    }

    @Test func anObjectEditedInTheSameSaveAsTheNullifyMeetsNoConflict() throws {
        let owner = SCOwner()
        context.insert(owner)
        let child = SCChild()
        owner.children = [child]
        let note = SCNote()
        note.child = child
        try context.save()
        let fresh = stack.newContext()
        let heldNote = try #require(try SCNote.findAll(in: fresh).first)
        fresh.delete(try SCOwner.findAll(in: fresh))
        // Updated by this save's own statement, then cleared by the cascade's.
        heldNote.text = "edited"
        try fresh.save()
        let stored = try #require(try SCNote.findAll(in: stack.newContext()).first)
        #expect(stored.text == "edited")
        #expect(stored.child == nil)
        heldNote.text = "again"
        try fresh.save()
        #expect(try SCNote.findAll(in: stack.newContext()).first?.text == "again")
    }

    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func everyMergePolicyCascadesInTheStore(policy: MergePolicy) throws {
        try seed(authors: 3, books: 2)
        let fresh = stack.newContext()
        fresh.mergePolicy = policy
        let held = try #require(try RBook.findAll(in: fresh).first { $0.title == "A1.0" })
        let authors = try RAuthor.findAll(in: fresh).filter { $0.name != "A2" }
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        fresh.delete(authors)
        try fresh.save()
        #expect(try storedTitles() == ["A2.0", "A2.1"])
        #expect(committed?.deleted.count == 6)
        #expect(held.context == nil)
    }

    @Test func aCascadeThroughTwoLevelsDeletesEveryRowOnce() throws {
        let owner = SCOwner()
        context.insert(owner)
        let children = [SCChild(), SCChild()]
        owner.children = children
        children[0].leaves = [SCLeaf(), SCLeaf()]
        children[1].leaves = [SCLeaf()]
        try context.save()
        let fresh = stack.newContext()
        var committed: ChangeSet?
        fresh.didSave = { committed = $0 }
        fresh.delete(try SCOwner.findAll(in: fresh))
        try fresh.save()
        let deleted = committed?.deleted ?? []
        #expect(deleted.count == 6)
        #expect(Set(deleted).count == 6)
        #expect(deleted.filter { $0.entityName == "Leaf" }.count == 3)
        let other = stack.newContext()
        #expect(try SCLeaf.count(in: other) == 0)
        #expect(try SCChild.count(in: other) == 0)
    }

    @Test func rollbackForgetsThePendingCascade() throws {
        try seed(authors: 1, books: 2)
        let fresh = stack.newContext()
        let ann = try #require(try RAuthor.findAll(in: fresh).first)
        fresh.delete(ann)
        fresh.rollback()
        #expect(!fresh.hasChanges)
        try fresh.save()
        #expect(try storedTitles() == ["A0.0", "A0.1"])
        #expect(ann.books.count == 2)
    }

    @Test func deleteOfASequenceReportsMisuseAtTheSave() throws {
        try seed(authors: 1, books: 1)
        let fresh = stack.newContext()
        let ann = try #require(try RAuthor.findAll(in: fresh).first)
        fresh.delete([ann, RAuthor("never inserted")])
        let error = expectError(.invalidObject) { try fresh.save() }
        #expect(error?.message.contains("never inserted or saved") == true)
        try fresh.save()
        #expect(try storedTitles().isEmpty)
    }

    @Test @MainActor func anObservedQueryOfTheDoomedEntitySeesTheCascade() async throws {
        try seed(authors: 2, books: 2)
        let observation = stack.mainContext.observe(FetchRequest<RBook>(sortBy: [SortDescriptor(\RBook.title)]))
        var iterator = observation.makeAsyncIterator()
        let firstElement = await iterator.next()
        let first = try #require(firstElement)
        #expect(first.map(\.title) == ["A0.0", "A0.1", "A1.0", "A1.1"])
        try await stack.write { writer in
            let ann = try #require(try RAuthor.findAll(in: writer).first { $0.name == "A0" })
            writer.delete(ann)
        }
        let secondElement = await iterator.next()
        let second = try #require(secondElement)
        #expect(second.map(\.title) == ["A1.0", "A1.1"])
    }
}

// A chain of cascades with a `.deny` and a `.nullify` rule behind it.

final class SCOwner: Entity, DefaultInitializable {
    var recordState = RecordState()
    static let entityName = "Owner"
    static let attributes: [AttributeDescription] = []
    static let relationships = [
        RelationshipDescription("children", toMany: SCChild.self, inverse: "owner", deleteRule: .cascade)
    ]
    var children: [SCChild] {
        get { relatedObjects(at: 0) }
        set { setRelatedObjects(newValue, at: 0) }
    }
    init() {}
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class SCChild: Entity, DefaultInitializable {
    var recordState = RecordState()
    static let entityName = "Child"
    static let attributes: [AttributeDescription] = []
    static let relationships = [
        RelationshipDescription("owner", toOne: SCOwner.self, inverse: "children"),
        RelationshipDescription("tokens", toMany: SCToken.self, inverse: "child", deleteRule: .deny),
        RelationshipDescription("notes", toMany: SCNote.self, inverse: "child"),
        RelationshipDescription("leaves", toMany: SCLeaf.self, inverse: "child", deleteRule: .cascade),
    ]
    var tokens: [SCToken] {
        get { relatedObjects(at: 1) }
        set { setRelatedObjects(newValue, at: 1) }
    }
    var leaves: [SCLeaf] {
        get { relatedObjects(at: 3) }
        set { setRelatedObjects(newValue, at: 3) }
    }
    init() {}
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class SCToken: Entity, DefaultInitializable {
    var recordState = RecordState()
    static let entityName = "Token"
    static let attributes: [AttributeDescription] = []
    static let relationships = [RelationshipDescription("child", toOne: SCChild.self, inverse: "tokens")]
    init() {}
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class SCNote: Entity, DefaultInitializable {
    var recordState = RecordState()
    var text = ""
    static let entityName = "Note"
    static let attributes = [AttributeDescription("text", type: .string)]
    static let relationships = [RelationshipDescription("child", toOne: SCChild.self, inverse: "notes")]
    var child: SCChild? {
        get { relatedObject(at: 0) }
        set { setRelatedObject(newValue, at: 0) }
    }
    init() {}
    init(row: Row) throws { text = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(text) }
    func decodeAttribute(at index: Int, from row: Row) throws { text = try row.decode(String.self, at: 0) }
    static func attributeIndex(for keyPath: PartialKeyPath<SCNote>) -> Int? { keyPath == \SCNote.text ? 0 : nil }
}

final class SCLeaf: Entity, DefaultInitializable {
    var recordState = RecordState()
    static let entityName = "Leaf"
    static let attributes: [AttributeDescription] = []
    static let relationships = [RelationshipDescription("child", toOne: SCChild.self, inverse: "leaves")]
    init() {}
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

let setCascadeEntities: [any Entity.Type] = [SCOwner.self, SCChild.self, SCToken.self, SCNote.self, SCLeaf.self]
