import Foundation
import LiteRecord
import NotesCore
import Testing

/// The first version of the app's note, as it was stored: tags as a JSON
/// array of strings.
@Entity(name: "Note")
final class NoteVersion1 {
    var text = ""
    var tags: [String] = []
    @Attribute(.indexed) var isDone = false
    var createdAt = Date()
    init() {}
}

/// A store the first version wrote opens in this one: its tag strings become
/// shared `Tag`s, linked to the same notes. (`NotesStore.open` installs the
/// default stack, so this suite runs its tests one at a time.)
@MainActor @Suite(.serialized)
struct TagMigrationTests {
    @Test func tagStringsBecomeSharedTags() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("NotesTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Notes.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let old = try RecordStack(storeAt: url, entities: [NoteVersion1.self])
            let context = old.newContext()
            for (text, tags) in [("Buy milk", ["errands", "home"]), ("Post the letter", ["errands"]), ("Nap", [])] {
                let note = NoteVersion1()
                note.text = text
                note.tags = tags
                context.insert(note)
            }
            try context.save()
        }
        try NotesStore.open(option: url.path, environment: [:])
        let context = try RecordStack.current().newContext()
        let notes = try Note.findAll(in: context).sorted { ($0.number ?? 0) < ($1.number ?? 0) }
        #expect(notes.map(\.text) == ["Buy milk", "Post the letter", "Nap"])
        #expect(notes.map { Set($0.tagNames) } == [["errands", "home"], ["errands"], []])
        #expect(try Tag.count(in: context) == 2)
        let errands = try Note.findAll(matching: #Predicate { $0.tags.contains { $0.name == "errands" } }, in: context)
        #expect(errands.map(\.text).sorted() == ["Buy milk", "Post the letter"])
        #expect(try Notebook.adoptLegacyTags() == 0, "converted once")
    }
}
