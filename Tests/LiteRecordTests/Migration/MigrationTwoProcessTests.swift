#if os(Linux)
import Foundation
import Glibc
import Testing
import LiteRecord

/// The model `LiteRecordTestChild migrate-large-store` migrates to (its
/// `Migrated.Person`); the fingerprints must match.
private enum TwoProcess {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .double, [.indexed]),
                attr("nick", .string, default: .text("")), attr("score", .double), attr("email", .string, optional: true),
            ]
        }
    }
}

/// Two processes open a store that needs migrating at
/// the same time. The second waited only the busy timeout (10 s) for the
/// first's migration, then failed with ".migrationFailed … rolled back; is
/// as it was before" while the first was still migrating. It now waits for
/// the other writer (up to ``Migrator/otherWriterWaitLimit``, logging as it
/// goes), then finds the store migrated.
@Suite struct MigrationTwoProcessTests {
    @Test(.timeLimit(.minutes(2)))
    func theSecondProcessWaitsForTheFirstOnesMigration() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("People.sqlite")
        let seed = try RecordStack(storeAt: url, entities: [Base.Person.self])
        let context = seed.newContext()
        for index in 0..<20 { context.insert(Base.Person(["name": .text("p\(index)"), "age": .integer(Int64(index)), "score": .real(1)])) }
        try context.save()
        try seed.close()
        let marker = folder.file("paused")
        let child = Process()
        child.executableURL = try BuiltExecutables.testChild()
        // Paused inside its migration transaction past this open's busy timeout.
        child.arguments = ["migrate-large-store", url.path, "--pause-marker", marker.path, "--pause-seconds", "12"]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker.path) && child.isRunning && Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        try #require(FileManager.default.fileExists(atPath: marker.path), "the child never reached its migration")

        let started = Date()
        // The open waits for the child for seconds: on a thread of its own,
        // not on one of the two that run every test.
        let opened = try await finishingOnThread(within: 90) {
            try RecordStack(storeAt: url, entities: [TwoProcess.Person.self], migration: .automatic)
        }
        let stack = try #require(opened, "the open did not end within 90 s")
        defer { try? stack.close() }
        #expect(Date().timeIntervalSince(started) > 5, "this open did not wait for the child's migration")
        #expect(stack.lastMigrationReport == nil, "the child migrated the store; this open had nothing left to do")
        #expect(try stack.newContext().count(FetchRequest<TwoProcess.Person>()) == 20)
        let ended = try await finishingOnThread(within: 60) { child.waitUntilExit() } != nil
        #expect(ended && child.terminationStatus == 0)
    }
}
#endif
