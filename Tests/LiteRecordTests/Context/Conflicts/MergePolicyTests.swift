import Foundation
import Testing
@testable import LiteRecord

/// `.objectTrumps` and `.storeTrumps` resolve a conflict property by
/// property, like Core Data's `NSMergeByPropertyObjectTrump` and
/// `NSMergeByPropertyStoreTrump`.
@Suite struct MergePolicyTests {
    /// Ann (31, no email) saved; context A (with `policy`, set before it
    /// fetched) and context B read her; B changes age and name and saves.
    private func conflict(
        _ policy: MergePolicy, setPolicyAfterFetch: Bool = false
    ) throws -> (RecordStack, RecordContext, MacroPerson) {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let setup = stack.newContext()
        setup.insert(MacroPerson(name: "Ann", age: 31))
        try setup.save()
        let a = stack.newContext()
        if !setPolicyAfterFetch { a.mergePolicy = policy }
        let b = stack.newContext()
        let annA = try #require(try MacroPerson.findAll(in: a).first)
        if setPolicyAfterFetch { a.mergePolicy = policy }
        let annB = try #require(try MacroPerson.findAll(in: b).first)
        annB.age = 40
        annB.name = "Anna"
        try b.save()
        return (stack, a, annA)
    }

    private func stored(_ stack: RecordStack) throws -> MacroPerson {
        try #require(try MacroPerson.findAll(in: stack.newContext()).first)
    }

    @Test func objectTrumpsWritesThisContextsPropertiesAndTakesTheStoresOthers() throws {
        let (stack, a, ann) = try conflict(.objectTrumps)
        ann.age = 50
        ann.email = "ann@example.com"
        try a.save()
        let row = try stored(stack)
        #expect(row.age == 50, "edited on both sides: this context wins")
        #expect(row.name == "Anna", "edited in the store only: the store's value stays")
        #expect(row.email == "ann@example.com", "edited here only")
        #expect(ann.name == "Anna" && ann.age == 50, "the object holds the merged values")
        #expect(!a.hasChanges)
        ann.age = 51
        try a.save()
        #expect(try stored(stack).age == 51, "no false conflict after a resolved one")
    }

    /// Found by the model-based test (seed 6464): an object edited, then
    /// deleted, whose row another context changed meanwhile. `.storeTrumps`
    /// takes the deletion back and reads the row again; the object stayed
    /// listed as updated, so its next edit did not list it and was never
    /// saved.
    @Test func aDeletionStoreTrumpsTakesBackLeavesTheNextEditSaved() throws {
        let (stack, a, ann) = try conflict(.storeTrumps)
        ann.email = "before the deletion"
        a.delete(ann)
        try a.save()
        #expect(ann.recordState.phase == .managed, "the store's newer row wins over the deletion")
        #expect(ann.name == "Anna" && ann.email == nil, "the row as stored")
        #expect(!a.hasChanges)
        ann.age = 60
        #expect(a.hasChanges)
        try a.save()
        #expect(try stored(stack).age == 60, "the edit after the resolved conflict is saved")
    }

    @Test func storeTrumpsKeepsTheStoresPropertiesAndWritesTheOtherEdits() throws {
        let (stack, a, ann) = try conflict(.storeTrumps)
        ann.age = 50
        ann.email = "ann@example.com"
        try a.save()
        let row = try stored(stack)
        #expect(row.age == 40, "edited on both sides: the store wins")
        #expect(row.name == "Anna")
        #expect(row.email == "ann@example.com", "edited here only: written")
        #expect(ann.age == 40 && ann.name == "Anna" && ann.email == "ann@example.com")
        ann.age = 41
        try a.save()
        #expect(try stored(stack).age == 41, "no false conflict after a resolved one")
    }

    @Test func storeTrumpsSetAfterFetchingWorksTheSame() throws {
        let (stack, a, ann) = try conflict(.storeTrumps, setPolicyAfterFetch: true)
        ann.age = 50
        ann.email = "ann@example.com"
        try a.save()
        let row = try stored(stack)
        #expect(row.age == 40 && row.email == "ann@example.com")
    }

    @Test func storeTrumpsKeepsAnEditOfAPropertyTheStoreLeftAlone() throws {
        // Same value in the store as read: the edit is this context's alone.
        let (stack, a, ann) = try conflict(.storeTrumps)
        ann.name = "Annie"
        try a.save()
        #expect(try stored(stack).name == "Anna", "the store changed name too: it wins")
        ann.email = "x@example.com"
        ann.age = 60
        try a.save()
        #expect(try stored(stack).age == 60)
    }

    @Test func storeTrumpsWithNothingLeftToWriteReportsNoUpdate() async throws {
        let (stack, a, ann) = try conflict(.storeTrumps)
        let changes = stack.changes
        ann.age = 50
        try a.save()
        #expect(ann.age == 40)
        #expect(!a.hasChanges)
        // The next commit is the first one the stream reports.
        let b = stack.newContext()
        b.insert(MacroPerson(name: "Bob", age: 1))
        try b.save()
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted.count == 1 && first?.updated.isEmpty == true, "the resolved save wrote nothing")
    }

    @Test func objectTrumpsDeletesARowChangedInTheStore() throws {
        let (stack, a, ann) = try conflict(.objectTrumps)
        a.delete(ann)
        try a.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 0)
        #expect(ann.context == nil)
    }

    @Test func storeTrumpsKeepsARowChangedInTheStore() throws {
        let (stack, a, ann) = try conflict(.storeTrumps)
        a.delete(ann)
        try a.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 1)
        #expect(ann.context === a && ann.age == 40, "the deletion was taken back, the object re-read")
        #expect(!a.hasChanges)
        ann.age = 41
        try a.save()
        #expect(try stored(stack).age == 41)
    }

    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps])
    func aRowDeletedInTheStoreStaysDeleted(_ policy: MergePolicy) throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let setup = stack.newContext()
        setup.insert(MacroPerson(name: "Ann", age: 31))
        try setup.save()
        let a = stack.newContext()
        a.mergePolicy = policy
        let b = stack.newContext()
        let annA = try #require(try MacroPerson.findAll(in: a).first)
        let annB = try #require(try MacroPerson.findAll(in: b).first)
        b.delete(annB)
        try b.save()
        annA.age = 50
        try a.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 0)
        #expect(annA.context == nil, "forgotten")
        #expect(!a.hasChanges)
    }

    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps])
    func handWrittenEntitiesResolvePerProperty(_ policy: MergePolicy) throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let setup = stack.newContext()
        setup.insert(HandWrittenPerson(name: "Ann", age: 31))
        try setup.save()
        let a = stack.newContext()
        a.mergePolicy = policy
        let b = stack.newContext()
        let annA = try #require(try HandWrittenPerson.findAll(in: a).first)
        let annB = try #require(try HandWrittenPerson.findAll(in: b).first)
        annB.age = 40
        annB.name = "Anna"
        try b.save()
        annA.age = 50
        annA.email = "ann@example.com"
        try a.save()
        let row = try #require(try HandWrittenPerson.findAll(in: stack.newContext()).first)
        #expect(row.age == (policy == .objectTrumps ? 50 : 40))
        #expect(row.name == "Anna" && row.email == "ann@example.com")
    }

    @Test(arguments: [MergePolicy.objectTrumps, .storeTrumps])
    func toOneChangesResolvePerProperty(_ policy: MergePolicy) throws {
        let stack = try RecordStack(inMemoryWith: [RAuthor.self, RBook.self, RTag.self])
        let setup = stack.newContext()
        let book = RBook()
        book.title = "Dune"
        for name in ["Frank", "Brian"] {
            let author = RAuthor()
            author.name = name
            setup.insert(author)
        }
        setup.insert(book)
        try setup.save()
        let a = stack.newContext()
        a.mergePolicy = policy
        let b = stack.newContext()
        let bookA = try #require(try RBook.findAll(in: a).first)
        let bookB = try #require(try RBook.findAll(in: b).first)
        bookB.author = try RAuthor.findAll(in: b).first { $0.name == "Frank" }
        bookB.title = "Dune Messiah"
        try b.save()
        bookA.author = try RAuthor.findAll(in: a).first { $0.name == "Brian" }
        try a.save()
        let reader = stack.newContext()  // kept: the author loads through it
        let row = try #require(try RBook.findAll(in: reader).first)
        #expect(row.author?.name == (policy == .objectTrumps ? "Brian" : "Frank"))
        #expect(row.title == "Dune Messiah")
        #expect(bookA.title == "Dune Messiah" && bookA.author?.name == row.author?.name)
    }
}
