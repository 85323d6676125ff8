import ArgumentParser
import Foundation
import LiteRecord
import NotesCore

@main
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "Keep short notes with tags, in a LiteRecord store.",
        discussion: """
            The store is Notes.sqlite in Application Support/Notes (on Linux \
            ~/.local/share/Notes), unless --store or $\(NotesStore.environmentVariable) names a file.
            """,
        subcommands: [Add.self, List.self, Tag.self, Search.self, Done.self, Where.self]
    )
}

/// The option every command takes.
struct StoreOption: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $\(NotesStore.environmentVariable), else Notes.sqlite where StoreLocator puts it).")
    var store: String?

    /// Opens the store, runs `body` and closes the store. A refusal or a store
    /// problem is one line on standard error and exit status 1.
    @MainActor
    func withNotes<T>(_ body: () throws -> T) throws -> T {
        do {
            try NotesStore.open(option: store, environment: ProcessInfo.processInfo.environment)
            defer { try? RecordStack.cleanUp() }
            return try body()
        } catch let error as NotesError {
            throw fail(error.description)
        } catch let error as LiteRecordError {
            throw fail(error.message.split(whereSeparator: \.isNewline).joined(separator: "; "))
        } catch {
            throw fail(String(describing: error))
        }
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("notes: \(message)\n".utf8))
        return ExitCode.failure
    }
}

struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add a note.")

    @Argument(help: "The note's text.") var text: String
    @Option(name: .customLong("tag"), help: "A tag; repeat for several.") var tags: [String] = []
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        let line = try options.withNotes { Notebook.line(for: try Notebook.add(text, tags: tags)) }
        print("added \(line.trimmingCharacters(in: .whitespaces))")
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the notes; done ones are marked [x].")

    @Flag(name: .long, help: "Leave out the notes that are done.") var open = false
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        let lines = try options.withNotes { try Notebook.list(includeDone: !open).map(Notebook.line(for:)) }
        print(lines.isEmpty ? "no notes yet: notes add \"text\"" : lines.joined(separator: "\n"))
    }
}

struct Tag: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Tag a note.")

    @Argument(help: "The note's number, as `list` shows it.") var number: Int64
    @Argument(help: "The tag.") var tag: String
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        print(try options.withNotes { Notebook.line(for: try Notebook.tag(number, tag)) })
    }
}

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find notes whose text matches TEXT (best match first), then notes tagged TEXT.")

    @Argument(help: "Words to look for (case and accents ignored; word* for a prefix, \"a phrase\", OR, -word), or a tag.")
    var text: String
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        let lines = try options.withNotes { try Notebook.search(text).map(Notebook.line(for:)) }
        print(lines.isEmpty ? "no note matches \"\(text)\"" : lines.joined(separator: "\n"))
    }
}

struct Done: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark a note done.")

    @Argument(help: "The note's number, as `list` shows it.") var number: Int64
    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        print(try options.withNotes { Notebook.line(for: try Notebook.markDone(number)) })
    }
}

struct Where: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where", abstract: "Print where the store is.")

    @OptionGroup var options: StoreOption

    @MainActor func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        if let url = NotesStore.explicitStore(option: options.store, environment: environment) {
            print(url.path)
        } else {
            let (url, source) = NotesStore.locator().resolve(storeNamed: NotesStore.storeName)
            print("\(url.path) (\(source))")
        }
    }
}
