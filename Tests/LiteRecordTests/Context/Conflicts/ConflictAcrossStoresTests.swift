import Foundation
import Testing
@testable import LiteRecord

/// Conflicts between two stacks on one file and between two processes, and
/// the version column in stores written before it existed.
@Suite struct ConflictAcrossStoresTests {
    @Test func twoStacksOnOneFile() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        let first = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let second = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let setup = first.newContext()
        setup.insert(MacroPerson(name: "Ann", age: 31))
        try setup.save()
        let a = first.newContext()
        let b = second.newContext()
        let annA = try #require(try MacroPerson.findAll(in: a).first)
        let annB = try #require(try MacroPerson.findAll(in: b).first)
        annB.age = 40
        try b.save()
        annA.age = 50
        let error = try #require(throws: LiteRecordError.self) { try a.save() }
        #expect(error.kind == .conflict)
        a.mergePolicy = .objectTrumps
        try a.save()
        #expect(try MacroPerson.findAll(in: second.newContext()).first?.age == 50)
        try first.close()
        try second.close()
    }

    @Test func twoProcessesEditingOneRow() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("notes.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [SharedNote.self])
        let setup = stack.newContext()
        setup.insert(SharedNote(title: "shared"))
        try setup.save()

        // This process reads the note; another changes it and saves.
        let mine = stack.newContext()
        let note = try #require(try SharedNote.findAll(in: mine).first)
        let other = try await Self.run(binary, [url.path, "--title", "shared", "--stars", "5"])
        #expect(other.status == 0, "\(other.output)")
        note.stars = 1
        let error = try #require(throws: LiteRecordError.self) { try mine.save() }
        #expect(error.kind == .conflict && error.message.contains("Note/1"), "\(error.message)")
        #expect(try SharedNote.findAll(in: stack.newContext()).first?.stars == 5)

        // The other way round: the other process read before this one saved.
        try mine.refresh(note, mergeChanges: false)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["edit-note", url.path, "--title", "shared", "--stars", "7", "--wait"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let first = output.fileHandleForReading.availableData
        #expect(String(decoding: first, as: UTF8.self).contains("read"))
        note.body = "edited here"
        try mine.save()
        input.fileHandleForWriting.write(Data("go\n".utf8))
        let ended = try await finishingOnThread(within: 60) { process.waitUntilExit() } != nil
        #expect(ended, "the other process did not end")
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 3, "the other process met the conflict: \(rest)")
        #expect(rest.contains("Note/1"))
        let row = try #require(try SharedNote.findAll(in: stack.newContext()).first)
        #expect(row.stars == 5 && row.body == "edited here")
        try stack.close()
    }

    private static func run(_ binary: URL, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["edit-note"] + arguments
        let child = try await process.runToEnd()
        return (child.status, child.text)
    }

    /// Turns a store just written into what LiteRecord wrote before row
    /// versions: no version column, layout version 1.
    private static func makeOld(_ url: URL, tables: [String]) throws {
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        for table in tables { try connection.execute("ALTER TABLE \(SQLIdentifier.quote(table)) DROP COLUMN \"Z_OPT\"") }
        try connection.execute("UPDATE literecord_metadata SET value = '1' WHERE key = 'format_version'")
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    @Test(arguments: [MigrationMode.none, .automatic])
    func anOldStoreGainsVersionsWhenOpened(_ migration: MigrationMode) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("old.sqlite")
        let writer = try RecordStack(storeAt: url, entities: [MacroPerson.self])
        let setup = writer.newContext()
        setup.insert(MacroPerson(name: "Ann", age: 31))
        try setup.save()
        try writer.close()
        try Self.makeOld(url, tables: ["Person"])

        let readOnly = #expect(throws: LiteRecordError.self) {
            try RecordStack(storeAt: url, entities: [MacroPerson.self], readOnly: true)
        }
        #expect(readOnly?.message.contains("row versions") == true)

        let stack = try RecordStack(storeAt: url, entities: [MacroPerson.self], migration: migration)
        let a = stack.newContext()
        let b = stack.newContext()
        let annA = try #require(try MacroPerson.findAll(in: a).first)
        let annB = try #require(try MacroPerson.findAll(in: b).first)
        #expect(annA.recordState.version == Model.initialVersion)
        annB.age = 40
        try b.save()
        annA.age = 50
        #expect(throws: LiteRecordError.self) { try a.save() }
        try stack.close()
        let format = try Connection(path: url.path)
        defer { format.close() }
        #expect(try format.storeFormat() == StoreFormat.current)
    }

    @Test func aMigrationOfAnOldStoreAddsVersionsAndRebuildsKeepThem() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.write([BeforeVersions.Person.self], [BeforeVersions.Person(["name": .text("Ann"), "age": .integer(31)])])
        try Self.makeOld(store.url, tables: ["Person"])
        let stack = try store.open([RebuiltWithVersions.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.actions.contains { $0.contains("added row versions to Person") }, "\(report.actions)")
        try stack.close()
        let columns = try store.inspect { try $0.columns("Person").map(\.name) }
        #expect(columns.contains("Z_OPT"))
        let versions = try store.inspect { try $0.values("Person", ["Z_OPT"]) }
        #expect(versions == [[.integer(1), .integer(Model.initialVersion)]])
    }
}

/// A model as an earlier LiteRecord stored it…
private enum BeforeVersions {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string), attr("age", .int)] }
    }
}

/// …and its next version, whose type change rebuilds the table.
private enum RebuiltWithVersions {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("name", .string), attr("age", .double)] }
    }
}

/// The `literecord` binary's `Note`, declared the same way, so that both
/// processes open the store with one model.
@Entity(name: "Note")
final class SharedNote {
    @Attribute(.indexed) var title = ""
    var body = ""
    var stars = 0
    var createdAt = Date()

    init() {}

    init(title: String) { self.title = title }
}
