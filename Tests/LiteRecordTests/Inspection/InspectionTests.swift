import Foundation
import Testing
import LiteRecord

/// What inspecting a store (`StoreInspection`, `literecord inspect` and
/// `check`) does to the processes that have it open.
@Suite struct InspectionTests {
    // Opening and closing a file descriptor on a store file
    // releases every POSIX lock this process holds on it
    // (https://sqlite.org/howtocorrupt.html, §2.2) — an open stack's `SHARED`
    // lock included. Another process closing its connection then takes itself
    // for the last one and deletes the `-wal` and `-shm` the open stack still
    // uses. `StoreInspection` reads what it needs through SQLite instead.

    static func runWriter(_ binary: URL, _ url: URL, label: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["stress-write", url.path, "--rows", "3", "--label", label]
        return try await process.runToEnd().status
    }

    @Test func inspectingAnOpenStoreKeepsThisProcessLocks() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        #expect(try await Self.runWriter(binary, url, label: "a") == 0)

        let stack = try RecordStack(
            storeAt: url, entities: [CLINote.self], migration: .none, onModelMismatch: .fail, checkpoints: .leftToReplicator)
        #expect(try await stack.read { try CLINote.count(in: $0) } == 3)
        let inspection = try StoreInspection(storeAt: url)
        #expect(inspection.journalMode == "wal")

        // Another process opens, writes and closes: with this process's lock
        // gone it would be "the last connection" and delete -wal and -shm.
        #expect(try await Self.runWriter(binary, url, label: "b") == 0)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"), "another process deleted the -wal of an open store")
        #expect(FileManager.default.fileExists(atPath: url.path + "-shm"), "another process deleted the -shm of an open store")
        #expect(try await stack.read { try CLINote.count(in: $0) } == 6)
        try stack.close()
    }
}
