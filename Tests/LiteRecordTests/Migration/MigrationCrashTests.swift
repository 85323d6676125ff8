#if os(Linux)
import Foundation
import Glibc
import Testing
@testable import LiteRecord

/// The crash tests run the migration in a child process —
/// `LiteRecordTestChild migrate-large-store`, which migrates to its copy of
/// ``Crash/Person`` — and kill it with SIGKILL.
private enum Crash {
    static let rows = 200_000

    /// Base.Person with `age` as Double (a CAST of every row), `nick`
    /// non-optional with a default (a rebuild before the custom step runs)
    /// and a new optional `email`, so the migration rewrites the table and
    /// both indexes. The child's copy (`Migrated.Person` in LiteRecordTestChild)
    /// must match it: ``outcome(of:)`` checks a migrated store's fingerprint.
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

    /// Writes a Base store of `rows` records with one statement.
    static func makeLargeStore(at url: URL) throws {
        try RecordStack(storeAt: url, entities: [Base.Person.self]).close()
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        try connection.execute(
            """
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows))
            INSERT INTO Person (name, age, nick, score)
            SELECT 'p' || x, x % 100, CASE WHEN x % 3 = 0 THEN NULL ELSE 'n' || x END, x * 0.5 FROM n
            """)
    }

    enum Outcome: Equatable { case old, new }

    /// Opens the store the way an app would after the crash and checks that
    /// it is wholly one model version with every row.
    static func outcome(of url: URL) throws -> Outcome {
        let connection = try Connection(path: url.path)
        let fingerprint = try connection.metadata(MetadataKey.fingerprint)
        let integrity = try connection.rows("PRAGMA integrity_check")
        let columns = try connection.columns("Person").map(\.name)
        let sums = try connection.rows("SELECT COUNT(*), SUM(age), SUM(score), COUNT(nick) FROM Person").first ?? []
        connection.close()
        #expect(integrity == [[.text("ok")]])
        let outcome: Outcome
        let stack: RecordStack
        if fingerprint == Base.Person.fingerprint {
            outcome = .old
            #expect(columns == ["Z_PK", "Z_OPT", "name", "age", "nick", "score"])
            #expect(sums == [.integer(Int64(rows)), .integer(Int64(rows / 100 * 4950)), .real(Double(rows) * Double(rows + 1) / 4), .integer(Int64(rows - rows / 3))])
            stack = try RecordStack(storeAt: url, entities: [Base.Person.self])
        } else {
            #expect(fingerprint == Person.fingerprint)
            outcome = .new
            #expect(columns == ["Z_PK", "Z_OPT", "name", "age", "nick", "score", "email"])
            #expect(sums == [.integer(Int64(rows)), .real(Double(rows / 100 * 4950)), .real(Double(rows) * Double(rows + 1) / 4), .integer(Int64(rows))])
            stack = try RecordStack(storeAt: url, entities: [Person.self])
        }
        let context = stack.newContext()
        #expect(try (outcome == .old ? Base.Person.count(in: context) : Person.count(in: context)) == rows)
        try stack.close()
        return outcome
    }

    /// Starts the child, which migrates the store (with a pause marker, a
    /// custom step inside the migration transaction and after the rebuild
    /// announces itself and waits to be killed), waits until `killWhen` says
    /// so (polled every millisecond), kills it with SIGKILL and returns
    /// whether it had to be killed (`false` when it finished first). The
    /// polling runs on a thread of its own: a test thread blocked for the
    /// child's run stalled other tests, and sleeping a task between polls
    /// (a coarser wait under load) let the child finish past a kill point.
    static func runChild(
        store: URL, pauseMarker: URL?, timeout: TimeInterval = 60, killWhen: @escaping @Sendable () -> Bool
    ) async throws -> Bool {
        let process = Process()
        process.executableURL = try BuiltExecutables.testChild()
        process.arguments = ["migrate-large-store", store.path] + (pauseMarker.map { ["--pause-marker", $0.path] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let polled = try await finishingOnThread(within: timeout + 30) { () -> (killed: Bool, reachedKillPoint: Bool) in
            let deadline = Date().addingTimeInterval(timeout)
            var killed = false
            while process.isRunning && Date() < deadline {
                if killWhen() {
                    kill(process.processIdentifier, SIGKILL)
                    killed = true
                    break
                }
                usleep(1000)
            }
            let late = process.isRunning && !killed
            if late { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return (killed, !late)
        }
        let outcome = try #require(polled, "the child process did not end")
        #expect(outcome.reachedKillPoint, "the child process did not reach the kill point within \(timeout) s")
        if outcome.killed {
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        }
        return outcome.killed
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

@Suite("Migration: SIGKILL in the middle of migrating a large store")
struct MigrationCrashTests {
    @Test(.timeLimit(.minutes(2)))
    func killedMigrationLeavesTheOldOrTheNewStoreWithAllRows() async throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        let pristine = store.folder.appendingPathComponent("pristine.sqlite")
        try Crash.makeLargeStore(at: pristine)
        let backup = store.url.path + ".pre-migration-" + Base.Person.fingerprint
        let wal = store.url.path + "-wal"
        func reset() throws {
            for path in [store.url.path, wal, store.url.path + "-shm", backup] {
                try? FileManager.default.removeItem(atPath: path)
            }
            try FileManager.default.copyItem(at: pristine, to: store.url)
        }

        // 1. Killed inside the transaction, after 200,000 rows were rebuilt
        //    (the custom step runs after the inferred changes): the old store.
        try reset()
        let marker = store.folder.appendingPathComponent("paused")
        #expect(
            try await Crash.runChild(store: store.url, pauseMarker: marker) {
                FileManager.default.fileExists(atPath: marker.path)
            })
        #expect(Crash.fileSize(wal) > 1_000_000, "the rebuild should have spilled into the WAL")
        #expect(try Crash.outcome(of: store.url) == .old)

        // 2. Killed at arbitrary moments once the transaction is writing:
        //    either version, never a mix.
        for threshold in [1, 4_000_000] {
            try reset()
            _ = try await Crash.runChild(store: store.url, pauseMarker: nil) { Crash.fileSize(wal) > threshold }
            _ = try Crash.outcome(of: store.url)
        }

        // 3. Killed once the copy is renamed to be kept (the child's plan has a
        //    step, so something could be lost), which happens after COMMIT
        //    (while the child checkpoints and closes): the new store.
        try reset()
        let copied = Shared(false)
        _ = try await Crash.runChild(store: store.url, pauseMarker: nil) {
            let exists = FileManager.default.fileExists(atPath: backup)
            defer { if exists { copied.value = true } }
            return copied.value && !exists
        }
        #expect(try Crash.outcome(of: store.url) == .new)

        // 4. Killed while the copy is being written: the old store.
        try reset()
        _ = try await Crash.runChild(store: store.url, pauseMarker: nil) { FileManager.default.fileExists(atPath: backup) }
        #expect(try Crash.outcome(of: store.url) == .old)

        // 5. The next open (with the child's step, so it copies too) replaces
        //    the half-written copy, migrates completely and keeps the copy
        //    under a timestamped name.
        let plan = MigrationPlan().step("pause") { _ in }
        let stack = try RecordStack(storeAt: store.url, entities: [Crash.Person.self], migration: .plan(plan))
        #expect(stack.lastMigrationReport?.rebuiltTables == ["Person"])
        try stack.close()
        #expect(try Crash.outcome(of: store.url) == .new)
        #expect(!FileManager.default.fileExists(atPath: backup))
    }
}
#endif
