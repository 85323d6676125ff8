import Foundation
import Testing
@testable import LiteRecord

/// History across processes: the `literecord` binary's hidden writers commit
/// to a store this process opened with history; their transactions are in
/// the history as soon as their commits return, and a writer SIGKILLed in
/// the middle of a save leaves no transaction without its rows, nor rows
/// without their transaction.
@Suite(.serialized) struct HistoryProcessTests {
    /// Runs `LiteRecordTestChild` to its end, off the cooperative threads.
    private static func runCLI(_ arguments: [String]) async throws -> ChildOutput {
        let binary = try BuiltExecutables.testChild()
        return try await Reliability.run(binary, arguments)
    }

    @Test func anotherProcessesTransactionsAreReadByTokenAndFollowed() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("shared.sqlite")
        // The child creates the store with its own model; this process then enables history on it.
        #expect(try await Self.runCLI(["stress-write", url.path, "--rows", "1", "--label", "first"]).status == 0)
        let stack = try RecordStack(storeAt: url, entities: [CLINote.self], history: .enabled)
        #expect(try stack.newestHistoryToken() == nil)
        let followed = Shared<[HistoryTransaction]>([])
        let follower = Task {
            for try await transaction in stack.history(after: nil) {
                let count = followed.withLock { list in
                    list.append(transaction)
                    return list.count
                }
                if count == 20 { return }
            }
        }
        // The child opens the store without `history:` and records all the same.
        #expect(try await Self.runCLI(["stress-write", url.path, "--rows", "20", "--label", "child"]).status == 0)
        let transactions = try stack.fetchHistory(after: nil)
        #expect(transactions.count == 20, "one transaction per write of the other process")
        let context = stack.newContext()
        let titles = try transactions.map { transaction -> String in
            let change = try #require(transaction.changes.first)
            #expect(transaction.changes.count == 1 && change.kind == .insert)
            return try context.object(with: change.recordID, as: CLINote.self)?.title ?? "missing"
        }
        #expect(titles == (0..<20).map { "child-\($0)" })
        let middle = transactions[9].token
        #expect(try stack.fetchHistory(after: middle).map(\.token) == transactions[10...].map(\.token))
        // The follower saw them too (within the cross-process polling interval;
        // the bound is generous for a loaded machine).
        let done = try await finishingOnThread(within: 60) {
            while followed.value.count < 20 { Thread.sleep(forTimeInterval: 0.05) }
            return true
        }
        #expect(done == true, "history(after:) saw \(followed.value.count) of 20 transactions")
        #expect(followed.value.map(\.token) == transactions.map(\.token))
        follower.cancel()
        try stack.close()
    }

    /// The crash-safety writer (`crash-writer`: numbered batches of notes
    /// and a counter, one save each) on a store keeping history, SIGKILLed at
    /// random moments: afterwards the records the history says were inserted
    /// are exactly the store's rows, and there is one transaction per save.
    @Test func sigkillMidSaveLeavesHistoryAndRowsInStep() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("crash.sqlite")
        #expect(try await Self.runCLI(["crash-writer", url.path, "--batch", "25", "--saves", "1"]).status == 0)
        try RecordStack(storeAt: url, entities: [CLINote.self], history: .enabled).close()
        var kills = 0
        for trial in 0..<8 {
            let process = Process()
            process.executableURL = binary
            process.arguments = ["crash-writer", url.path, "--batch", "25"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...400)))
            kill(process.processIdentifier, SIGKILL)
            let ended = try await finishingOnThread(within: 30) { process.waitUntilExit() } != nil
            #expect(ended, "trial \(trial): the killed writer did not end")
            if process.terminationReason == .uncaughtSignal { kills += 1 }

            let stack = try RecordStack(storeAt: url, entities: [CLINote.self], readOnly: true)
            let history = try stack.fetchHistory(after: nil)
            var recorded = Set<Int64>()
            for transaction in history {
                for change in transaction.changes where change.kind == .insert { recorded.insert(change.recordID.rowID) }
            }
            let rows = try stack.store.withConnection("") { connection in
                Set(try connection.rows("SELECT Z_PK FROM Note").compactMap { $0.first?.integerValue })
            }
            // The first save (before history) inserted 26 rows: its rows have no transaction.
            let beforeHistory = Set<Int64>(1...26)
            #expect(
                recorded == rows.subtracting(beforeHistory),
                "trial \(trial): rows without a transaction \(rows.subtracting(beforeHistory).subtracting(recorded).count), transactions without rows \(recorded.subtracting(rows).count)"
            )
            #expect(history.count == (rows.count - 26) / 25, "trial \(trial): one transaction per save (\(history.count) for \(rows.count) rows)")
            try stack.close()
        }
        #expect(kills > 0, "no writer was killed mid-run")
    }
}
