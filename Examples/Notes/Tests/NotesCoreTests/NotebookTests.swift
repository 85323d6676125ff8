import Foundation
import LiteRecord
import LiteRecordTesting
import NotesCore
import Testing

/// Each command's logic against its own in-memory store: the trait installs
/// a fresh stack as the default one for each test, so the tests run in
/// parallel without seeing each other's notes.
@Suite(.inMemoryStack(entities: Notebook.entities))
@MainActor
struct NotebookTests {
    @Test func addSavesTheNoteWithItsTags() throws {
        let note = try Notebook.add("  Buy milk \n", tags: ["errands", " home ", "errands"])
        #expect(note.number != nil, "saved, so it has a number")
        #expect(note.text == "Buy milk")
        #expect(note.tagNames == ["errands", "home"])
        #expect(!note.isDone)
        #expect(try Note.count() == 1)
        #expect(Notebook.line(for: note) == "  \(note.number ?? 0) [ ] Buy milk  #errands #home")
    }

    @Test func addRefusesBlankTextAndEmptyTags() throws {
        #expect(throws: NotesError.emptyText) { try Notebook.add("   ") }
        #expect(throws: NotesError.emptyTag) { try Notebook.add("text", tags: [" "]) }
        #expect(try Note.count() == 0, "nothing half-added")
    }

    @Test func listShowsNotesInTheOrderAddedAndCanLeaveOutDoneOnes() throws {
        let first = try Notebook.add("first")
        let second = try Notebook.add("second")
        try Notebook.add("third")
        try Notebook.markDone(try #require(second.number))
        #expect(try Notebook.list().map(\.text) == ["first", "second", "third"])
        #expect(try Notebook.list(includeDone: false).map(\.text) == ["first", "third"])
        #expect(try Notebook.list().first?.number == first.number)
    }

    @Test func tagAddsATagOnceAndIsSaved() throws {
        let note = try Notebook.add("Call the bank")
        let number = try #require(note.number)
        try Notebook.tag(number, "phone")
        try Notebook.tag(number, "phone")
        #expect(try Notebook.note(number).tagNames == ["phone"])
        // Saved, not only changed in memory: a fresh context reads it back.
        // (Kept in a constant: objects lose their relationships with their context.)
        let fresh = try RecordStack.current().newContext()
        let stored = try Note.findAll(in: fresh)
        #expect(stored.map(\.tagNames) == [["phone"]])
        #expect(try Tag.count() == 1, "one tag, however often it is added")
    }

    @Test func tagAndDoneRefuseAMissingNote() throws {
        #expect(throws: NotesError.noSuchNote(42)) { try Notebook.tag(42, "x") }
        #expect(throws: NotesError.noSuchNote(42)) { try Notebook.markDone(42) }
        let number = try #require(try Notebook.add("a").number)
        #expect(throws: NotesError.emptyTag) { try Notebook.tag(number, " ") }
    }

    @Test func searchFindsTextAndTags() throws {
        try Notebook.add("Buy milk", tags: ["errands"])
        try Notebook.add("Book the dentist", tags: ["health", "phone"])
        try Notebook.add("Milk the cows", tags: ["farm"])
        #expect(try Notebook.search("milk").map(\.text) == ["Buy milk", "Milk the cows"], "case ignored; equal scores keep the order added")
        #expect(try Notebook.search("MILK cows").map(\.text) == ["Milk the cows"], "every word")
        #expect(try Notebook.search("phone").map(\.text) == ["Book the dentist"], "a tag")
        #expect(try Notebook.search("th*").map(\.text) == ["Book the dentist", "Milk the cows"], "a prefix")
        #expect(try Notebook.search("milk -buy").map(\.text) == ["Milk the cows"])
        #expect(try Notebook.search("pho").isEmpty, "a tag matches whole, a word too")
        #expect(try Notebook.search("nothing").isEmpty)
        #expect(try Notebook.search("C++ (\"").isEmpty, "any text is a valid search")
    }

    @Test func notesShareATagAndAreFoundByIt() throws {
        try Notebook.add("Buy milk", tags: ["errands", "home"])
        try Notebook.add("Post the letter", tags: ["errands"])
        try Notebook.add("Water the plants", tags: ["home"])
        #expect(try Tag.count() == 2, "each tag is stored once")
        #expect(try Notebook.notes(taggedWith: "errands").map(\.text) == ["Buy milk", "Post the letter"])
        #expect(try Notebook.notes(taggedWith: "home").map(\.text) == ["Buy milk", "Water the plants"])
        #expect(try Notebook.notes(taggedWith: "farm").isEmpty)
        let (_, statements) = try RecordStack.current().recordingSQL { _ = try Notebook.search("errands") }
        // SQLite's trace also shows FTS5's own reads of its index (`'main'.…`).
        let ours = statements.filter { !$0.contains("'main'.") }
        #expect(ours.count == 2, "the full-text search and the tag test each run as one statement: \(ours)")
        #expect(try Note.count(matching: #Predicate { $0.tags.isEmpty }) == 0)
    }

    @Test func doneMarksTheNoteDoneOnce() throws {
        let number = try #require(try Notebook.add("Water the plants").number)
        let note = try Notebook.markDone(number)
        #expect(note.isDone)
        #expect(Notebook.line(for: note).contains("[x] Water the plants"))
        let (_, statements) = try RecordStack.current().recordingSQL { _ = try Notebook.markDone(number) }
        #expect(statements.allSatisfy { $0.hasPrefix("SELECT") }, "marking a done note done again writes nothing: \(statements)")
        #expect(try Note.count(matching: #Predicate { $0.isDone }) == 1)
    }
}
