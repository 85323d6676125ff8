import Foundation
import LiteRecord
import NotesCore
import Testing

/// Where the app keeps its store. Nothing here touches the real home folder:
/// the locator's directories are injected, and the store opened for real is
/// in a temporary folder.
struct NotesStoreTests {
    @Test func theStoreLivesInApplicationSupportUnderThePinnedName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("NotesTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let documents = folder.appendingPathComponent("Documents")
        let support = folder.appendingPathComponent("Support")
        let locator = NotesStore.locator(documentsDirectory: documents, applicationSupportDirectory: support)
        #expect(locator.applicationName == "Notes")
        #expect(locator.applicationNameSource == .explicit, "not the executable's name, which changes when renamed")
        let (url, source) = locator.resolve(storeNamed: NotesStore.storeName)
        #expect(url.path == support.appendingPathComponent("Notes/Notes.sqlite").path)
        #expect(source == .default)
    }

    @Test func anOptionOrTheEnvironmentNamesAnotherFile() {
        let environment = [NotesStore.environmentVariable: "/tmp/from-environment.sqlite"]
        #expect(NotesStore.explicitStore(option: nil, environment: [:]) == nil)
        #expect(NotesStore.explicitStore(option: nil, environment: [NotesStore.environmentVariable: ""]) == nil)
        #expect(NotesStore.explicitStore(option: nil, environment: environment)?.path == "/tmp/from-environment.sqlite")
        #expect(NotesStore.explicitStore(option: "/tmp/option.sqlite", environment: environment)?.path == "/tmp/option.sqlite")
    }

    /// The whole app, as a person runs it: the built `notes` binary against a
    /// store named by `NOTES_STORE`, each command's output and exit status.
    @Test func theCommandLineRunsEveryCommand() throws {
        let binary = try #require(Self.binary, "build the notes product first (swift build --build-tests)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("NotesTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("nested/Notes.sqlite")
        var environment = ProcessInfo.processInfo.environment
        environment[NotesStore.environmentVariable] = store.path
        func notes(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.environment = environment
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            let complained = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: printed, as: UTF8.self), String(decoding: complained, as: UTF8.self))
        }

        #expect(try notes("list").output == "no notes yet: notes add \"text\"\n")
        #expect(try notes("add", "Buy milk", "--tag", "errands").output == "added 1 [ ] Buy milk  #errands\n")
        #expect(try notes("add", "Call the bank").output == "added 2 [ ] Call the bank\n")
        #expect(try notes("tag", "2", "phone").output == "  2 [ ] Call the bank  #phone\n")
        #expect(try notes("done", "1").output == "  1 [x] Buy milk  #errands\n")
        #expect(try notes("list").output == "  1 [x] Buy milk  #errands\n  2 [ ] Call the bank  #phone\n")
        #expect(try notes("list", "--open").output == "  2 [ ] Call the bank  #phone\n")
        #expect(try notes("search", "phone").output == "  2 [ ] Call the bank  #phone\n")
        #expect(try notes("where").output == store.path + "\n")

        let missing = try notes("done", "9")
        #expect(missing.status == 1)
        #expect(missing.errors == "notes: there is no note 9 (`notes list` shows their numbers)\n")
        #expect(missing.output.isEmpty)
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    /// The `notes` executable in the build folder, next to the test bundle.
    static var binary: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("notes")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
