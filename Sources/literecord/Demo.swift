import ArgumentParser
import Foundation
import LiteRecord

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A narrated tour of LiteRecord against a real store.")

    @Flag(name: .long, help: "Use an in-memory store instead of a file.")
    var inMemory = false

    @Flag(name: .long, help: "Keep the demo's store file instead of deleting it at the end.")
    var keep = false

    @MainActor
    func run() async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("literecord-demo-\(UUID().uuidString)", isDirectory: true)
        defer {
            if !keep { try? FileManager.default.removeItem(at: folder) }
        }
        var tour = Tour()
        try await tour.run(folder: folder, inMemory: inMemory)
        if keep && !inMemory { print("\nThe store is kept at \(folder.path)") }
    }
}

/// The demo's steps, each printed as it runs.
@MainActor
struct Tour {
    private var step = 0

    private mutating func say(_ title: String) {
        step += 1
        print("\n\(step). \(title)")
    }

    private func show(_ line: String) { print("   \(line)") }

    mutating func run(folder: URL, inMemory: Bool) async throws {
        print("LiteRecord — a narrated tour")

        say("Set up a stack in one line")
        let url = folder.appendingPathComponent("Demo.sqlite")
        if inMemory {
            try RecordStack.setupInMemory(entities: [Note.self])
            show("try RecordStack.setupInMemory(entities: [Note.self])")
        } else {
            try RecordStack.setup(storeAt: url, entities: [Note.self])
            show("try RecordStack.setup(storeAt: url, entities: [Note.self])")
            show("store: \(url.path)")
            let locator = StoreLocator(applicationName: "Demo")
            show("(by name, `setup(storeNamed: \"Demo\")` would use \(locator.url(forStoreNamed: "Demo").path))")
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

        say("Clean up")
        try RecordStack.cleanUp()
        do {
            _ = try Note.count()
        } catch let error as LiteRecordError {
            show("after cleanUp(): \(error.kind): \(error.message)")
        }
        print("\nDone.")
    }
}
