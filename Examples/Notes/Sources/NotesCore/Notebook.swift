import Foundation
public import LiteRecord

/// What each `notes` command does, against the default stack's main context
/// (set up by the app, or by a test trait).
///
/// ```swift
/// try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: Notebook.entities)
/// let note = try Notebook.add("Buy milk", tags: ["errands"])
/// try Notebook.markDone(note.number ?? 0)
/// ```
@MainActor
public enum Notebook {
    /// The model: every entity the app stores.
    nonisolated public static var entities: [any Entity.Type] { [Note.self, Tag.self] }

    /// Turns the tags a store of the first version of the app kept as strings
    /// (``Note/legacyTags``) into shared ``Tag``s linked to the same notes,
    /// and saves; does nothing once they are converted. Returns how many
    /// notes it converted.
    @discardableResult
    public static func adoptLegacyTags() throws -> Int {
        let notes = try Note.findAll(matching: #Predicate { !$0.legacyTags.isEmpty })
        for note in notes {
            for name in note.legacyTags where !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                try addTag(name, to: note)
            }
            note.legacyTags = []
        }
        if !notes.isEmpty { try RecordStack.current().mainContext.save() }
        return notes.count
    }

    /// Adds a note with `text` (trimmed) and `tags` (trimmed, without
    /// duplicates, in the order given) and saves it.
    ///
    /// - Throws: ``NotesError/emptyText`` for blank text, or the store's error.
    @discardableResult
    public static func add(_ text: String, tags: [String] = []) throws -> Note {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw NotesError.emptyText }
        let names = try tags.map(trimmedTag)
        let note = Note(text: trimmed)
        try RecordStack.current().mainContext.insert(note)
        for name in names { try addTag(name, to: note) }
        try note.save()
        return note
    }

    /// Every note in the order they were added; without the done ones
    /// unless `includeDone`.
    public static func list(includeDone: Bool = true) throws -> [Note] {
        let notes = includeDone ? try Note.findAll() : try Note.findAll(matching: #Predicate { !$0.isDone })
        return inOrderAdded(notes)
    }

    /// Adds `tag` to note `number` (once) and saves it.
    ///
    /// - Throws: ``NotesError/noSuchNote(_:)``, ``NotesError/emptyTag``, or the store's error.
    @discardableResult
    public static func tag(_ number: Int64, _ tag: String) throws -> Note {
        let note = try note(number)
        try addTag(tag, to: note)
        try note.save()
        return note
    }

    /// Notes whose text matches `text` as a search box would — every word,
    /// case and accents ignored, `word*` for a prefix, `"a phrase"`, `OR`,
    /// `-word` — best match first (LiteRecord's full-text search), then the
    /// notes carrying `text` as a tag, in the order they were added. Two SQL
    /// statements: the full-text search, and the tag test (an `EXISTS` over
    /// the join table).
    public static func search(_ text: String) throws -> [Note] {
        let matches = try Note.search(text)
        let tagged = try Note.findAll(matching: #Predicate { note in note.tags.contains { $0.name == text } })
        return matches + inOrderAdded(tagged.filter { note in !matches.contains { $0 === note } })
    }

    /// The notes carrying the tag `name`, in the order they were added.
    public static func notes(taggedWith name: String) throws -> [Note] {
        inOrderAdded(try Note.findAll(matching: #Predicate { note in note.tags.contains { $0.name == name } }))
    }

    /// Row ids grow with every insert, so they are the order of adding.
    private static func inOrderAdded(_ notes: [Note]) -> [Note] {
        notes.sorted { ($0.number ?? .max) < ($1.number ?? .max) }
    }

    /// Marks note `number` done and saves it; a done note stays done.
    ///
    /// - Throws: ``NotesError/noSuchNote(_:)``, or the store's error.
    @discardableResult
    public static func markDone(_ number: Int64) throws -> Note {
        let note = try note(number)
        if !note.isDone {
            note.isDone = true
            try note.save()
        }
        return note
    }

    /// Note `number`.
    ///
    /// - Throws: ``NotesError/noSuchNote(_:)``.
    public static func note(_ number: Int64) throws -> Note {
        let id = RecordID(entityName: Note.entityName, rowID: number)
        guard let note = try RecordStack.mainContext.object(with: id, as: Note.self) else {
            throw NotesError.noSuchNote(number)
        }
        return note
    }

    private static func trimmedTag(_ tag: String) throws -> String {
        let trimmed = tag.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw NotesError.emptyTag }
        return trimmed
    }

    /// Links the tag called `tag` (found, or created once) to the note.
    private static func addTag(_ tag: String, to note: Note) throws {
        let name = try trimmedTag(tag)
        guard !note.tags.contains(where: { $0.name == name }) else { return }
        let existing = try Tag.findFirst(matching: #Predicate { $0.name == name })
            ?? note.context?.insertedObjects.lazy.compactMap { $0 as? Tag }.first { $0.name == name }
        let tag = existing ?? Tag()
        tag.name = name
        // A new tag joins the note's context by being related to it.
        note.tags.append(tag)
    }

    /// One line for `list` and `search`: `  3 [x] Buy milk  #errands`.
    public static func line(for note: Note) -> String {
        let number = note.number.map(String.init) ?? "-"
        let padded = String(repeating: " ", count: max(0, 3 - number.count)) + number
        let tags = note.tagNames.map { "#\($0)" }.joined(separator: " ")
        return "\(padded) [\(note.isDone ? "x" : " ")] \(note.text)\(tags.isEmpty ? "" : "  \(tags)")"
    }
}

/// What the app refuses, in words for the person at the terminal.
public enum NotesError: Error, Equatable, CustomStringConvertible {
    case emptyText
    case emptyTag
    case noSuchNote(Int64)

    public var description: String {
        switch self {
        case .emptyText: "a note needs some text"
        case .emptyTag: "a tag cannot be empty"
        case .noSuchNote(let number): "there is no note \(number) (`notes list` shows their numbers)"
        }
    }
}
