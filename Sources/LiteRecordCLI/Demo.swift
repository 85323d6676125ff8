import ArgumentParser
import Foundation
import LiteRecord

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A narrated tour of LiteRecord against a real store, each step with its timing.")

    @Flag(name: .long, help: "Use an in-memory store instead of a file (skips the steps that need one).")
    var inMemory = false

    @Flag(name: .long, help: "Keep the demo's folder and store file instead of deleting them, and print their path.")
    var keep = false

    @MainActor
    func run() async throws {
        // Everything the demo writes goes in here; its name is what
        // `make check-temp` looks for, so a leftover is noticed.
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("literecord-demo-\(UUID().uuidString)", isDirectory: true)
        let keepFolder = keep && !inMemory
        defer {
            if !keepFolder { try? FileManager.default.removeItem(at: folder) }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure.report("demo", "\(folder.path): the demo's folder cannot be created: \(error.message)", code: Failure.couldNotRun)
        }
        var tour = Tour(folder: folder, inMemory: inMemory)
        do {
            try await tour.run()
        } catch {
            throw Failure.report("demo", error)
        }
        if keepFolder {
            print("\nThe store is kept at \(tour.storeURL.path)")
            print("(with the other files of the tour in \(folder.path); `literecord inspect` reads them)")
        } else if keep {
            print("\nNothing to keep: the store was in memory.")
        }
    }
}

/// The demo's steps, each printed as it runs, with how long it took.
@MainActor
struct Tour {
    let folder: URL
    let inMemory: Bool
    private var step = 0
    private let clock = ContinuousClock()
    private var stepStarted: ContinuousClock.Instant?

    init(folder: URL, inMemory: Bool) {
        self.folder = folder
        self.inMemory = inMemory
    }

    /// The main store of the tour (unused with `--in-memory`).
    var storeURL: URL { folder.appendingPathComponent("Demo.sqlite") }

    /// Ends the step under way, printing its timing, and starts the next.
    private mutating func say(_ title: String) {
        endStep()
        step += 1
        print("\n\(step). \(title)")
        stepStarted = clock.now
    }

    private mutating func endStep() {
        guard let started = stepStarted else { return }
        let elapsed = started.duration(to: clock.now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        print("   (\(String(format: "%.1f", milliseconds)) ms)")
        stepStarted = nil
    }

    private func show(_ line: String) { print("   \(line)") }

    mutating func run() async throws {
        print("LiteRecord — a narrated tour")

        say("Set up a stack in one line")
        let url = storeURL
        if inMemory {
            try RecordStack.setupInMemory(entities: [Note.self])
            show("try RecordStack.setupInMemory(entities: [Note.self])")
        } else {
            try RecordStack.setup(storeAt: url, entities: [Note.self])
            show("try RecordStack.setup(storeAt: url, entities: [Note.self])")
            show("store: \(url.path)")
            show("(by name, `setup(storeNamed:)` finds the file with StoreLocator: step \"Where stores live\" below)")
        }
        defer { try? RecordStack.cleanUp() }

        say("Setting up twice is an error, not a silent no-op")
        do {
            try RecordStack.setupInMemory(entities: [Note.self])
        } catch let error as LiteRecordError {
            show("\(error.kind): \(error.message)")
        }

        say("Insert three notes in the main context and save them in one transaction")
        let context = RecordStack.mainContext
        for (title, stars) in [("Groceries", 2), ("Ideas", 5), ("Taxes", 1)] {
            context.insert(Note(title: title, stars: stars))
        }
        let stack = try RecordStack.current()
        let (_, inserts) = try stack.recordingSQL { try context.save() }
        show("ran \(inserts.count) statements: \(inserts.first ?? ""), \(inserts.count - 2) × INSERT, \(inserts.last ?? "")")
        show("count: \(try Note.count())")

        say("Find them back")
        show("findAll(sortedBy: \"title\"): \(try Note.findAll(sortedBy: "title").map(\.title))")
        let ideas = try Note.findFirst(byAttribute: "title", withValue: "Ideas")
        show("findFirst(byAttribute: \"title\", withValue: \"Ideas\"): \(ideas?.title ?? "nil"), \(ideas?.stars ?? 0) stars")
        show("find(byAttribute: \"stars\", withValue: 1): \(try Note.find(byAttribute: "stars", withValue: 1).map(\.title))")

        say("Change one property; the save writes only that column")
        ideas?.stars = 4
        let (_, update) = try stack.recordingSQL { try context.save() }
        show(update.dropFirst().dropLast().joined(separator: "; "))
        let (_, nothing) = try stack.recordingSQL { try context.save() }
        show("saving again with nothing changed runs \(nothing.count) statements")

        say("Write in the background; the main context sees it when write returns")
        let ideasID = ideas?.recordID
        let total = try await RecordStack.write { background in
            if let id = ideasID, let mine = try background.object(with: id, as: Note.self) {
                mine.body = "Edited in the background"
            }
            let stored = try Note.count(in: background)
            background.insert(Note(title: "Background note", stars: 3))
            return stored
        }
        show("the background context saw \(total) stored notes and added one")
        show("main context's Ideas body: \"\(ideas?.body ?? "")\"")
        show("count: \(try Note.count())")

        say("Mistakes are clear errors, and the store stays intact")
        do {
            _ = try Note.findFirst(byAttribute: "titel", withValue: "x")
        } catch let error as LiteRecordError {
            show("\(error.kind): \(error.message)")
        }

        say("Delete one, then truncate the rest")
        if let taxes = try Note.findFirst(byAttribute: "title", withValue: "Taxes") {
            try taxes.delete()
            try context.save()
        }
        show("after deleting Taxes: \(try Note.findAll(sortedBy: "title").map(\.title))")
        show("truncateAll() removed \(try Note.truncateAll()) notes in one statement")

        if inMemory {
            endStep()
            print("\n(Skipping the migration step: migrating needs a store file; run without --in-memory.)")
        } else {
            try migrate()
        }
        try locate()
        try relate()

        // A conflict with its merge policy and an observed query receiving a
        // background write get their steps here as those features land
        // (Docs/Concurrency.md, Docs/Observation.md).

        say("Clean up")
        try RecordStack.cleanUp()
        do {
            _ = try Note.count()
        } catch let error as LiteRecordError {
            show("after cleanUp(): \(error.kind): \(error.message)")
        }
        endStep()
        print("\nDone.")
    }

    /// Version 1 of a model writes a store; version 2 opens it auto-migrating
    /// and the report says what changed.
    private mutating func migrate() throws {
        say("An auto-migrating setup applies a model change to a store written by the previous model")
        let url = folder.appendingPathComponent("Chores.sqlite")
        let first = try RecordStack(storeAt: url, entities: [ChoreVersion1.self])
        let context = first.newContext()
        context.insert(ChoreVersion1(title: "Water the plants"))
        context.insert(ChoreVersion1(title: "Pay rent", done: true))
        try context.save()
        try first.close()
        show("version 1, Chore { title, done }, wrote 2 chores to \(url.lastPathComponent)")
        show("version 2, Chore { @Attribute(originalName: \"title\") name, @Attribute(.indexed) done, priority = 0, due: Date? }")
        show(
            "RecordStack.requiresMigration(storeAt: url, entities: [Chore.self]): "
                + "\(try RecordStack.requiresMigration(storeAt: url, entities: [Chore.self]))")
        show("opening it with `setup` alone is refused:")
        do {
            try RecordStack(storeAt: url, entities: [Chore.self]).close()
        } catch let error as LiteRecordError {
            show("  \(error.kind): \(error.message.split(whereSeparator: \.isNewline).joined(separator: "\n     "))")
        }
        let second = try RecordStack(storeAt: url, entities: [Chore.self], migration: .automatic)
        show("try RecordStack(storeAt: url, entities: [Chore.self], migration: .automatic)")
        show("(the static form: try RecordStack.setupAutoMigrating(storeAt: url, entities: [Chore.self]))")
        if let report = second.lastMigrationReport {
            show("what changed, from the MigrationReport:")
            for change in report.changes { show("  \(change)") }
            show("what it did:")
            for action in report.actions { show("  \(action)") }
        }
        let chores = try Chore.findAll(sortedBy: "name", in: second.newContext())
        show(
            "the chores, read by version 2: "
                + chores.map { "\($0.name) (done: \($0.done), priority: \($0.priority))" }.joined(separator: ", "))
        try second.close()
        show("requiresMigration now: \(try RecordStack.requiresMigration(storeAt: url, entities: [Chore.self]))")
    }

    /// An author and her books on a stack of their own: the inverse filled in
    /// memory, one transaction for all of them, and a cascade delete.
    private mutating func relate() throws {
        say("Relationships: inverses kept in memory, one save, a cascade delete")
        let stack = try RecordStack(inMemoryWith: [DemoAuthor.self, DemoBook.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        let ursula = DemoAuthor()
        ursula.name = "Ursula"
        context.insert(ursula)
        for title in ["A Wizard of Earthsea", "The Left Hand of Darkness", "The Dispossessed"] {
            let book = DemoBook()
            book.title = title
            book.author = ursula
        }
        show("book.author = ursula, three times: ursula.books has \(ursula.books.count) books before any save")
        let (_, saved) = try stack.recordingSQL { try context.save() }
        // The record-id mark LiteRecord writes once per table is not one of them.
        let inserts = saved.filter { $0.hasPrefix("INSERT") && !$0.contains("literecord_") }.count
        show("one save, one transaction: \(inserts) INSERTs (the author first, so the books' foreign keys point at her)")
        context.delete(ursula)
        show("delete(ursula) runs the .cascade rule in the context: \(context.deletedObjects.count) objects marked deleted")
        try context.save()
        show("books left after the save: \(try DemoBook.count(in: context))")
    }

    /// `StoreLocator`'s rules, with temporary folders standing in for
    /// Documents and Application Support: the real ones are never touched.
    private mutating func locate() throws {
        say("Where stores live: StoreLocator's rules, Documents vs Application Support")
        let documents = folder.appendingPathComponent("Documents", isDirectory: true)
        let support = folder.appendingPathComponent("Application Support", isDirectory: true)
        let locator = StoreLocator(applicationName: "Demo", documentsDirectory: documents, applicationSupportDirectory: support)
        show("StoreLocator(applicationName: \"Demo\", documentsDirectory: …, applicationSupportDirectory: …)")
        show("(this process's default would be Documents \(StoreLocator().documentsDirectory.path),")
        show(" Application Support \(StoreLocator().applicationSupportDirectory.path); tests inject folders like this)")
        func resolve(_ situation: String) {
            let (url, source) = locator.resolve(storeNamed: "Notes")
            let shown = url.path.hasPrefix(folder.path) ? String(url.path.dropFirst(folder.path.count + 1)) : url.path
            show("\(situation): \(source) → \(shown)")
        }
        resolve("no file yet       ")
        let inSupport = support.appendingPathComponent("Demo/Notes.sqlite")
        try FileManager.default.createDirectory(at: inSupport.deletingLastPathComponent(), withIntermediateDirectories: true)
        try RecordStack(storeAt: inSupport, entities: [Note.self]).close()
        resolve("in App Support    ")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try RecordStack(storeAt: documents.appendingPathComponent("Notes.sqlite"), entities: [Note.self]).close()
        resolve("also in Documents ")
        show("an existing file in Documents wins; a new store goes to Application Support/<applicationName>")
        show("a tool pins its name: RecordStack.locator = StoreLocator(applicationName: \"MyTool\")")
    }
}
