import Foundation
import Testing
import LiteRecord

/// A store the process cannot write (its file or its folder), opened without
/// `readOnly: true`: `.storeUnavailable` saying what is not writable and that
/// a read-only stack opens it; the file is left as it was; `literecord
/// inspect` reads it.
///
/// Modes do not stop root: in-process, the file or folder also gets the
/// immutable attribute; the CLI tests run the binary as root without the
/// capabilities that let it write any file (`setpriv`), where a 0444 file
/// stops it as it stops any user. Each skips, saying why, where it cannot.
@Suite struct UnwritableStoreTests {
    static let advice = "RecordStack(storeAt:entities:readOnly: true)"

    @Test func anUnwritableFileSaysItIsNotWritableAndHowToReadIt() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("locked.sqlite")
        try ReadOnlyStackTests.makeStore(at: url)
        let before = Reliability.snapshot(url)
        let done = try Reliability.withUnwritable(url) {
            let error = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            }
            #expect(error.kind == .storeUnavailable, "\(error)")
            #expect(error.message.contains(url.path), "names the file: \(error.message)")
            #expect(error.message.contains("the file is not writable"), "says what is wrong: \(error.message)")
            #expect(error.message.contains(Self.advice), "says what to do: \(error.message)")
            #expect(!error.message.contains("attempt to write a readonly database"), "\(error.message)")
            // What the message advises works.
            try ReadOnlyStackTests.exercise(url)
            Reliability.report("unwritable store file: \"\(error.message)\"")
        }
        if done {
            #expect(Reliability.snapshot(url) == before, "the file changed")
            #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url)) beside the store")
        }
    }

    @Test func aStoreInAnUnwritableFolderSaysSoAndHowToReadIt() throws {
        let holder = try TemporaryDirectory()
        let folder = holder.url.appendingPathComponent("locked", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let url = folder.appendingPathComponent("inside.sqlite")
        try ReadOnlyStackTests.makeStore(at: url)
        let before = Reliability.snapshot(url)
        let done = try Reliability.withUnwritable(folder) {
            let error = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            }
            #expect(error.kind == .storeUnavailable, "\(error)")
            #expect(error.message.contains(url.path), "names the file: \(error.message)")
            #expect(error.message.contains("its folder \(folder.path) is not writable"), "says what is wrong: \(error.message)")
            #expect(error.message.contains(Self.advice), "says what to do: \(error.message)")
            try ReadOnlyStackTests.exercise(url)

            // A new store there cannot be made: no advice to read what is not there.
            let new = folder.appendingPathComponent("new.sqlite")
            let creation = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: new, entities: [HandWrittenNote.self])
            }
            #expect(creation.kind == .storeUnavailable, "\(creation)")
            #expect(creation.message.contains("cannot create the store at \(new.path)"), "\(creation.message)")
            #expect(creation.message.contains("its folder \(folder.path) is not writable"), "\(creation.message)")
            #expect(!creation.message.contains(Self.advice), "\(creation.message)")
            #expect(!FileManager.default.fileExists(atPath: new.path))
            Reliability.report("store in an unwritable folder: \"\(error.message)\"")
        }
        if done {
            #expect(Reliability.snapshot(url) == before, "the file changed")
            #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url)) beside the store")
        }
    }

    /// A 0444 store as a process that permissions stop: a writing command fails
    /// with the advice, `inspect` reads the store.
    @Test func aReadOnlyFileStopsAWriterWithAdviceAndInspectReadsIt() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("mode0444.sqlite")
        let created = try await Reliability.run(BuiltExecutables.testChild(), ["stress-write", url.path, "--rows", "3"])
        #expect(created.status == 0, "\(created.standardError)")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        // No -wal/-shm can appear beside it either, as for a store someone else owns.
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path) }
        let before = Reliability.snapshot(url)

        guard
            let written = try await CLIFailureTests.runWithoutOverride(
                ["stress-write", url.path, "--rows", "1"], binary: BuiltExecutables.testChild())
        else {
            Reliability.report("SKIPPED \(#function): running as root and setpriv is not installed")
            return
        }
        #expect(written.status != 0, "the write into a 0444 store succeeded: \(written.standardOutput)")
        #expect(written.standardError.contains("not writable"), "\(written.standardError)")
        #expect(written.standardError.contains(Self.advice), "\(written.standardError)")

        let inspected = try #require(try await CLIFailureTests.runWithoutOverride(["inspect", url.path]))
        #expect(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardOutput.contains("Note: 3 rows"), "\(inspected.standardOutput)")
        let json = try #require(try await CLIFailureTests.runWithoutOverride(["inspect", "--json", url.path]))
        #expect(json.status == 0, "\(json.standardError)")
        #expect(Reliability.snapshot(url) == before, "the file changed")
        #expect(Reliability.companions(of: url).isEmpty, "left \(Reliability.companions(of: url)) beside the store")
    }
}
