import Foundation
import Testing
import LiteRecord

/// Runs the built `literecord` binary end to end.
@Suite struct CLITests {
    struct Output {
        var status: Int32
        var text: String
    }

    /// The `literecord` executable next to the test bundle in the build folder.
    static var binary: URL? { BuiltExecutables.url("literecord") }

    func run(_ arguments: String...) async throws -> Output {
        try await run(arguments, environment: nil)
    }

    func run(_ arguments: [String], environment: [String: String]?) async throws -> Output {
        let binary = try #require(Self.binary, "build the literecord product first (swift build)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        let child = try await process.runToEnd(includingErrors: true)
        return Output(status: child.status, text: child.text)
    }

    @Test func locatePrintsTheURLAndTheRule() async throws {
        let output = try await run("locate", "Notes", "--app", "CLITestApp")
        #expect(output.status == 0)
        #expect(output.text.contains("CLITestApp/Notes.sqlite"))
        #expect(output.text.contains("rule: default"))
    }

    /// Without HOME, Application Support is under the user's home from the
    /// password database, as Documents is: never /home/.local/share, a
    /// folder every user shares.
    @Test func withoutHomeTheStoreStaysInTheUsersHome() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = nil
        environment["XDG_DATA_HOME"] = nil
        let output = try await run(["locate", "Notes", "--app", "CLITestApp"], environment: environment)
        let home = FileManager.default.homeDirectoryForCurrentUser.path  // platform-audit: the CLI tests run on Linux and macOS only
        #expect(output.status == 0)
        #expect(output.text.hasPrefix("\(home)/.local/share/CLITestApp/Notes.sqlite"), "\(output.text)")
        environment["XDG_DATA_HOME"] = "relative/data"
        let relative = try await run(["locate", "Notes", "--app", "CLITestApp"], environment: environment)
        #expect(relative.text.hasPrefix("\(home)/.local/share/CLITestApp/"), "a relative XDG_DATA_HOME is ignored: \(relative.text)")
    }

    @Test func locateWithoutAppSaysWhatItAssumed() async throws {
        let output = try await run("locate", "Notes")
        #expect(output.status == 0)
        #expect(output.text.contains("application name: literecord (the executable's name, assumed"))
        #expect(output.text.contains("--app NAME"))
    }

    @Test func inspectListsCopiesKeptBeforeMigrations() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        let copy = folder.file("people.sqlite.pre-migration-20260101T000000Z")
        try FileManager.default.copyItem(at: url, to: copy)
        let output = try await run("inspect", url.path)
        #expect(output.status == 0)
        #expect(output.text.contains("copy:         \(copy.path) (before a migration)"))
    }

    @Test func inspectShowsEntitiesColumnsAndCounts() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        context.insert(HandWrittenPerson(name: "Bob", age: 40))
        try context.save()
        try stack.close()
        let output = try await run("inspect", url.path)
        #expect(output.status == 0)
        #expect(output.text.contains("Person: 2 rows"))
        #expect(output.text.contains("email TEXT (nullable)"))
        #expect(output.text.contains("journal mode: wal"))
        #expect(output.text.contains(try Model(entities: [HandWrittenPerson.self]).fingerprint))
    }

    /// `literecord backup STORE DEST`: one line with rows, bytes
    /// and time; the copy opens with the same entities and passes `check`.
    @Test func backupWritesACopyAndPrintsOneLine() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        for index in 0..<25 { context.insert(HandWrittenPerson(name: "P\(index)", age: index)) }
        try context.save()
        let copy = folder.file("copy.sqlite")
        // The store stays open with its -wal, as it is for a running app.
        let output = try await run("backup", url.path, copy.path)
        #expect(output.status == 0, "\(output.text)")
        let lines = output.text.split(separator: "\n")
        #expect(lines.count == 1, "\(output.text)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? NSNumber)
        #expect(output.text.hasPrefix("backed up \(url.path) to \(copy.path): 25 rows, \(size.intValue) bytes in "), "\(output.text)")
        #expect(output.text.hasSuffix(" s\n"), "\(output.text)")
        #expect(try await run("check", copy.path).status == 0)
        let reopened = try RecordStack(storeAt: copy, entities: [HandWrittenPerson.self])
        defer { try? reopened.close() }
        #expect(try HandWrittenPerson.count(in: reopened.newContext()) == 25)
    }

    @Test func checkPassesAHealthyStoreAndFailsGarbage() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("ok.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        let healthy = try await run("check", url.path)
        #expect(healthy.status == 0)
        #expect(healthy.text.hasPrefix("ok:"))

        let garbage = folder.file("garbage.sqlite")
        try Data(repeating: 7, count: 8192).write(to: garbage)
        let bad = try await run("check", garbage.path)
        #expect(bad.status != 0)
        let missing = try await run("check", folder.file("missing.sqlite").path)
        #expect(missing.status != 0)
        #expect(missing.text.contains("no store"))
    }

    @Test func locateFindsAnExistingStoreInApplicationSupport() async throws {
        // Application Support is $XDG_DATA_HOME on Linux; Documents cannot be
        // moved from outside, so the Documents rule is the demo's to show.
        let home = try TemporaryDirectory()
        let share = home.url.appendingPathComponent("share", isDirectory: true)
        let folder = share.appendingPathComponent("CLILocate", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try RecordStack(storeAt: folder.appendingPathComponent("Notes.sqlite"), entities: [HandWrittenPerson.self]).close()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = share.path
        let output = try await Reliability.run(Reliability.binary(), ["locate", "Notes", "--app", "CLILocate"], environment: environment)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardOutput.hasPrefix(folder.appendingPathComponent("Notes.sqlite").path + "\n"))
        #expect(output.standardOutput.contains("rule: applicationSupport (an existing file in Application Support/CLILocate)"))
        #expect(!output.standardOutput.contains("application name:"), "--app was given: nothing assumed")
    }

    @Test func demoRunsInMemory() async throws {
        let output = try await run("demo", "--in-memory")
        #expect(output.status == 0)
        #expect(output.text.contains("Done."))
        #expect(output.text.contains("alreadySetUp"))
        #expect(output.text.contains("Skipping the migration step"))
        #expect(output.text.contains("Where stores live"))
        #expect(output.text.contains("ursula.books has 3 books before any save"))
        #expect(output.text.contains("one save, one transaction: 4 INSERTs"))
        #expect(output.text.contains("cascade rule in the context: 4 objects marked deleted"))
        #expect(output.text.contains("books left after the save: 0"))
    }

    /// The demo with its temporary folder inside a test folder (`TMPDIR`),
    /// so what it leaves behind can be seen.
    func demo(_ arguments: String...) async throws -> (output: ChildOutput, temporary: TemporaryDirectory) {
        let temporary = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.url.path
        let output = try await Reliability.run(Reliability.binary(), ["demo"] + arguments, environment: environment)
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.isEmpty, "\(output.standardError)")
        return (output, temporary)
    }

    @Test func demoTimesEveryStepMigratesLocatesAndLeavesNothingBehind() async throws {
        let (output, temporary) = try await demo()
        let text = output.standardOutput
        #expect(text.hasSuffix("Done.\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let steps = lines.filter { $0.first?.isNumber == true && $0.contains(". ") }
        let timings = lines.filter { $0.hasPrefix("   (") && $0.hasSuffix(" ms)") }
        #expect(steps.count >= 10 && timings.count == steps.count, "one timing per step: \(steps.count) steps, \(timings.count) timings")

        // The migration, as the MigrationReport tells it.
        #expect(text.contains("requiresMigration(storeAt: url, entities: [Chore.self]): true"))
        #expect(text.contains("modelMismatch"), "setup alone refuses the old store")
        #expect(text.contains("what changed, from the MigrationReport:"))
        #expect(text.contains("'title'") && text.contains("'name'"), "the rename is reported")
        #expect(text.contains("'priority'") && text.contains("'due'"), "the added attributes are reported")
        #expect(text.contains("Pay rent (done: true, priority: 0), Water the plants (done: false, priority: 0)"))
        #expect(text.contains("requiresMigration now: false"))

        // StoreLocator's three rules, in injected folders.
        #expect(text.contains("no file yet       : default → Application Support/Demo/Notes.sqlite"))
        #expect(text.contains("in App Support    : applicationSupport → Application Support/Demo/Notes.sqlite"))
        #expect(text.contains("also in Documents : documents → Documents/Notes.sqlite"))

        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
        #expect(left.isEmpty, "the demo left \(left)")
    }

    @Test func demoKeepPrintsTheStoreItKept() async throws {
        let (output, temporary) = try await demo("--keep")
        let prefix = "The store is kept at "
        let line = try #require(output.standardOutput.split(separator: "\n").first { $0.hasPrefix(prefix) })
        let store = URL(fileURLWithPath: String(line.dropFirst(prefix.count)))
        #expect(store.deletingLastPathComponent().lastPathComponent.hasPrefix("literecord-demo-"))
        #expect(store.deletingLastPathComponent().deletingLastPathComponent().path == temporary.url.path)
        let inspected = try await Reliability.run(Reliability.binary(), ["inspect", store.path])
        #expect(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardOutput.contains("Note: 0 rows"), "the tour truncated its notes")
    }

    @Test func demoInMemoryHasNothingToKeep() async throws {
        let (output, temporary) = try await demo("--in-memory", "--keep")
        #expect(output.standardOutput.contains("Nothing to keep: the store was in memory."))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).isEmpty)
    }
}
