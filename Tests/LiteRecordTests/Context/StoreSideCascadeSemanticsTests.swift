import Foundation
import Testing
@testable import LiteRecord

/// A `.cascade` to-many that is not loaded when its owner is deleted is left
/// to the store (`RecordContext+StoreCascade.swift`). Whatever the context
/// loaded, the result must be the one loading every related object and
/// applying the rules in memory gives: the same rows left, the same change
/// set, the same conflicts and errors — under every merge policy, at every
/// depth, seen from a child context too (Docs/Internals/Invariants.md, "A fast
/// path means what the plain path means"). Each test runs one scenario twice, once with the
/// relationships loaded before the deletion and once without, and compares.
@Suite(.tags(.threads)) struct StoreSideCascadeSemanticsTests {
    /// One store: B1 with C1 (P1a, P1b) and C2 (P2a); B2 with D1 (P3a).
    struct Library {
        let stack: RecordStack

        init(quote: Bool = false, note: Bool = false) throws {
            stack = try RecordStack(inMemoryWith: storeCascadeEntities)
            let context = stack.newContext()
            func book(_ title: String, _ chapters: [(String, [String])]) {
                let book = CSBook(title: title)
                context.insert(book)
                for (chapterTitle, paragraphs) in chapters {
                    let chapter = CSChapter(title: chapterTitle)
                    chapter.book = book
                    for text in paragraphs { CSParagraph(text: text).chapter = chapter }
                }
            }
            book("B1", [("C1", ["P1a", "P1b"]), ("C2", ["P2a"])])
            book("B2", [("D1", ["P3a"])])
            try context.save()
            if quote {
                let quote = CSQuote(text: "Q1")
                context.insert(quote)
                quote.chapter = try Self.chapter("C1", in: context)
            }
            if note {
                let note = CSNote(text: "N1")
                context.insert(note)
                note.chapter = try Self.chapter("C1", in: context)
            }
            try context.save()
        }

        static func book(_ title: String, in context: RecordContext) throws -> CSBook {
            try #require(try CSBook.findAll(in: context).first { $0.title == title })
        }

        static func chapter(_ title: String, in context: RecordContext) throws -> CSChapter {
            try #require(try CSChapter.findAll(in: context).first { $0.title == title })
        }

        static func paragraph(_ text: String, in context: RecordContext) throws -> CSParagraph {
            try #require(try CSParagraph.findAll(in: context).first { $0.text == text })
        }

        /// Every stored row as `Entity:title[→parent]`, sorted.
        func rows() throws -> [String] {
            let context = stack.newContext()
            var rows = try CSBook.findAll(in: context).map { "Book:\($0.title)" }
            rows += try CSChapter.findAll(in: context).map { "Chapter:\($0.title)→\($0.book?.title ?? "-")" }
            rows += try CSParagraph.findAll(in: context).map { "Paragraph:\($0.text)→\($0.chapter?.title ?? "-")" }
            rows += try CSQuote.findAll(in: context).map { "Quote:\($0.text)→\($0.chapter?.title ?? "-")" }
            rows += try CSNote.findAll(in: context).map { "Note:\($0.text)→\($0.chapter?.title ?? "-")" }
            return rows.sorted()
        }
    }

    /// What a save did: its error, or its change set; and the rows left.
    struct Outcome: Equatable, CustomStringConvertible {
        var error: LiteRecordError.Kind?
        var message: String?
        var deleted: Set<RecordID> = []
        var updated: Set<RecordID> = []
        var rows: [String] = []

        var description: String {
            "error: \(error.map { "\($0)" } ?? "none") \(message ?? ""), deleted: \(deleted.sorted { "\($0)" < "\($1)" }), updated: \(updated.sorted { "\($0)" < "\($1)" }), rows: \(rows)"
        }
    }

    static func save(_ context: RecordContext, _ library: Library) throws -> Outcome {
        var committed: ChangeSet?
        context.didSave = { committed = $0 }
        var outcome = Outcome()
        do {
            try context.save()
        } catch let error as LiteRecordError {
            outcome.error = error.kind
            outcome.message = error.message
        }
        outcome.deleted = Set(committed?.deleted ?? [])
        outcome.updated = Set(committed?.updated ?? [])
        outcome.rows = try library.rows()
        return outcome
    }

    /// Reads the book's chapters and everything they relate, so that its
    /// deletion applies every rule in memory.
    static func load(_ book: CSBook) {
        for chapter in book.chapters {
            _ = chapter.paragraphs
            _ = chapter.quotes
            _ = chapter.notes
        }
    }

    /// The objects the context holds as deleted, without asking it to load anything.
    static func heldDeleted(_ context: RecordContext) -> Set<RecordID> {
        Set(context.registeredObjects.filter { $0.recordState.phase == .deleted }.compactMap(\.recordID))
    }

    // MARK: 1. A held, edited object two levels down

    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func anEditedParagraphTwoLevelsDownIsDeletedWithItsBook(policy: MergePolicy) throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library()
            let context = library.stack.newContext()
            context.mergePolicy = policy
            let paragraph = try Library.paragraph("P1a", in: context)
            paragraph.text = "edited"
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            var outcome = try Self.save(context, library)
            if outcome.error != nil {
                // A retry meets the same: the save must not fail for ever.
                outcome = try Self.save(context, library)
            }
            return outcome
        }
        let loaded = try run(loading: true)
        #expect(loaded.error == nil)
        #expect(loaded.rows == ["Book:B2", "Chapter:D1→B2", "Paragraph:P3a→D1"])
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 2. `.deny` sees this save's own updates, and names the objects

    @Test func aQuoteMovedToASurvivingChapterDoesNotDenyTheDeletion() throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library(quote: true)
            let context = library.stack.newContext()
            let quote = try #require(try CSQuote.findAll(in: context).first)
            quote.chapter = try Library.chapter("D1", in: context)
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true)
        #expect(loaded.error == nil)
        #expect(loaded.rows.contains("Quote:Q1→D1"))
        #expect(try run(loading: false) == loaded)
    }

    @Test func aStoreSideDenyNamesTheObjectsLikeTheLoadedOne() throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library(quote: true)
            let context = library.stack.newContext()
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true)
        #expect(loaded.error == .validationFailed)
        #expect(loaded.message?.contains("Quote #1") == true)
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 3. A fetch two levels down

    @Test func aFetchTwoLevelsDownLeavesTheDoomedObjectsOut() throws {
        func run(loading: Bool) throws -> [String] {
            let library = try Library()
            let context = library.stack.newContext()
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            let fetched = try CSParagraph.findAll(in: context).map(\.text).sorted()
            let counted = context.deletedObjects.count
            try context.save()
            return fetched + ["deleted: \(counted)"]
        }
        let loaded = try run(loading: true)
        #expect(loaded == ["P3a", "deleted: 6"])
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 4. A child context sees the parent's cascades

    @Test func aChildDoesNotListTheChaptersOfABookItsParentDeleted() throws {
        func run(loading: Bool) throws -> [String] {
            let library = try Library()
            let parent = library.stack.newContext()
            let book = try Library.book("B1", in: parent)
            if loading { Self.load(book) }
            parent.delete(book)
            let child = parent.makeChildContext()
            let chapters = try CSChapter.findAll(in: child)
            let paragraphs = try CSParagraph.findAll(in: child).map(\.text).sorted()
            for chapter in chapters { chapter.title += "!" }
            try child.save()
            try parent.save()
            return chapters.map(\.title).sorted() + paragraphs + (try library.rows())
        }
        let loaded = try run(loading: true)
        #expect(loaded == ["D1!", "P3a", "Book:B2", "Chapter:D1!→B2", "Paragraph:P3a→D1!"])
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 5. A doomed row changed elsewhere since the deletion

    @Test(arguments: [MergePolicy.error, .objectTrumps])
    func aChapterEditedElsewhereAfterTheDeletionConflicts(policy: MergePolicy) throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library()
            let context = library.stack.newContext()
            context.mergePolicy = policy
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            let other = library.stack.newContext()
            try Library.chapter("C2", in: other).title = "C2 edited"
            try other.save()
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true)
        if policy == .error {
            #expect(loaded.error == .conflict)
            #expect(loaded.message?.contains("Chapter/2: deleted here, but changed in the store") == true)
        } else {
            #expect(loaded.error == nil)
        }
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 6. A held object whose to-one was never read

    @Test(arguments: [MergePolicy.error, .objectTrumps, .storeTrumps])
    func aHeldChangedChapterWhoseBookWasNeverReadGoesWithTheBook(policy: MergePolicy) throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library()
            let context = library.stack.newContext()
            context.mergePolicy = policy
            let extra = CSChapter(title: "X")
            context.insert(extra)
            try context.save()
            let other = library.stack.newContext()
            try Library.chapter("X", in: other).book = try Library.book("B1", in: other)
            try other.save()
            if case .unloaded = RelationGraph.slot(extra, 0) {} else { Issue.record("the to-one was read") }
            extra.title = "X edited"
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true)
        if policy == .objectTrumps {
            #expect(loaded.error == nil)
            #expect(!loaded.rows.contains { $0.hasPrefix("Chapter:X") })
        }
        let stored = try run(loading: false)
        // The plan's summary in a commit's error names other counts.
        #expect(stored.error == loaded.error)
        #expect(stored.rows == loaded.rows)
        if loaded.error == nil { #expect(stored == loaded) }
    }

    // MARK: 7. A resolved conflict's row that is also nullified

    @Test func aResolvedAndNullifiedNoteIsCountedOnce() throws {
        func run(loading: Bool) throws -> [Outcome] {
            let library = try Library(note: true)
            let context = library.stack.newContext()
            context.mergePolicy = .objectTrumps
            let note = try #require(try CSNote.findAll(in: context).first)
            let book = try Library.book("B1", in: context)
            let other = library.stack.newContext()
            try #require(try CSNote.findAll(in: other).first).text = "theirs"
            try other.save()
            note.text = "mine"
            if loading { Self.load(book) }
            context.delete(book)
            let first = try Self.save(context, library)
            context.mergePolicy = .error
            note.text = "again"
            return [first, try Self.save(context, library)]
        }
        let loaded = try run(loading: true)
        #expect(loaded.map(\.error) == [nil, nil])
        #expect(loaded.last?.rows.contains("Note:again→-") == true)
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 8. A merge policy takes the owner's deletion back

    @Test func heldAndUnheldChaptersFollowTheSameRuleWhenTheBooksDeletionIsTakenBack() throws {
        func run(loading: Bool) throws -> Outcome {
            let library = try Library()
            let context = library.stack.newContext()
            context.mergePolicy = .storeTrumps
            let book = try Library.book("B1", in: context)
            _ = try Library.chapter("C1", in: context)
            let other = library.stack.newContext()
            try Library.book("B1", in: other).title = "B1 edited"
            try other.save()
            if loading { Self.load(book) }
            context.delete(book)
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true)
        #expect(loaded.error == nil)
        #expect(loaded.rows.contains("Book:B1 edited"))
        #expect(try run(loading: false) == loaded)
    }

    // MARK: 9. Inserting the deleted owner again

    @Test func insertingTheDeletedBookAgainTreatsItsChaptersAlike() throws {
        func run(loading: Bool, holding: Bool) throws -> Outcome {
            let library = try Library()
            let context = library.stack.newContext()
            let book = try Library.book("B1", in: context)
            if holding { _ = try Library.chapter("C1", in: context) }
            if loading { Self.load(book) }
            context.delete(book)
            context.insert(book)
            return try Self.save(context, library)
        }
        let loaded = try run(loading: true, holding: false)
        #expect(loaded.error == nil)
        #expect(try run(loading: false, holding: false) == loaded)
        #expect(try run(loading: false, holding: true) == loaded)
    }

    // MARK: 10. A failed save changes nothing in the context

    @Test func aFailedSaveLeavesTheDeletionsAsTheyWere() throws {
        func run(loading: Bool) throws -> (before: Set<RecordID>, after: Set<RecordID>, outcome: Outcome) {
            let library = try Library()
            let context = library.stack.newContext()
            let held = try Library.chapter("C1", in: context)
            let survivor = try Library.book("B2", in: context)
            let book = try Library.book("B1", in: context)
            if loading { Self.load(book) }
            context.delete(book)
            // An unrelated conflict makes the save fail.
            survivor.title = "B2 mine"
            let other = library.stack.newContext()
            try Library.book("B2", in: other).title = "B2 theirs"
            try other.save()
            let before = Self.heldDeleted(context).filter { $0 == held.recordID || $0 == book.recordID }
            let failed = try Self.save(context, library)
            #expect(failed.error == .conflict)
            let after = Self.heldDeleted(context).filter { $0 == held.recordID || $0 == book.recordID }
            try context.refresh(survivor, mergeChanges: true)
            return (before, after, try Self.save(context, library))
        }
        let loaded = try run(loading: true)
        #expect(loaded.before == loaded.after)
        let stored = try run(loading: false)
        #expect(stored.before == stored.after)
        #expect(stored.before == loaded.before)
        #expect(stored.outcome == loaded.outcome)
    }
}
