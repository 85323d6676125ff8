import Foundation
import Testing
@testable import LiteRecord

/// A child process saves numbered batches (rows plus a counter row, one save
/// each) and prints every save that returned; it is SIGKILLed at a random
/// moment. Afterwards the store passes `integrity_check`, holds every
/// acknowledged save whole, and no batch is partial. The same store goes
/// through every trial, so each one also recovers the previous crash.
@Suite struct CrashSafetyTests {
    static let trials = 20
    static let batch = 25

    /// What the store holds: the counter and the row count of each save number.
    struct Contents {
        var counter: Int
        var batches: [Int: Int]
    }

    static func contents(of url: URL) throws -> Contents {
        let connection = try Connection(path: url.path, options: .init(readOnly: true, create: false))
        defer { connection.close() }
        var counter = 0
        if case .integer(let value)? = try connection.scalar("SELECT stars FROM Note WHERE title = 'counter'") {
            counter = Int(value)
        }
        var batches: [Int: Int] = [:]
        for row in try connection.rows("SELECT stars, count(*) FROM Note WHERE title <> 'counter' GROUP BY stars") {
            if case .integer(let save) = row[0], case .integer(let count) = row[1] { batches[Int(save)] = Int(count) }
        }
        return Contents(counter: counter, batches: batches)
    }

    @Test func sigkillAtRandomMomentsLosesNoAcknowledgedSave() async throws {
        let binary = try BuiltExecutables.testChild()
        let folder = try TemporaryDirectory()
        let url = folder.file("crash.sqlite")
        let baseSeed = UInt64.random(in: 1...UInt64(UInt32.max))
        var acknowledgedTotal = 0
        var lastAcknowledged = 0
        var killedInsideOpen = 0
        for trial in 0..<Self.trials {
            let seed = baseSeed &+ UInt64(trial)
            var random = TrialRandom(seed: seed)
            // From before the store is even open to well into the saves.
            let delay = Int.random(in: 5...600, using: &random)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["crash-writer", url.path, "--batch", "\(Self.batch)"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "trial \(trial) seed \(seed): the child ended before the kill")
            let acks = printed.split(separator: "\n").compactMap { line -> Int? in
                line.hasPrefix("acked ") ? Int(line.dropFirst(6)) : nil
            }
            let acknowledged = acks.max() ?? lastAcknowledged
            if acks.isEmpty { killedInsideOpen += 1 }
            acknowledgedTotal += acks.count

            let context = "trial \(trial), seed \(seed), killed after \(delay) ms"
            guard FileManager.default.fileExists(atPath: url.path) else {
                #expect(acknowledged == 0, "\(context): acknowledged saves but no file")
                continue
            }
            let check = try StoreCheck(storeAt: url)
            #expect(check.isHealthy, "\(context): \(check.problems)")
            let contents = try Self.contents(of: url)
            #expect(contents.counter >= acknowledged, "\(context): save \(acknowledged) was acknowledged, the store has \(contents.counter)")
            #expect(Set(contents.batches.keys) == Set(contents.counter > 0 ? Array(1...contents.counter) : []), "\(context): the saves in the store are not 1…\(contents.counter)")
            let partial = contents.batches.filter { $0.value != Self.batch }
            #expect(partial.isEmpty, "\(context): partial batches \(partial)")
            lastAcknowledged = max(acknowledged, contents.counter)
        }
        let final = try Self.contents(of: url)
        Reliability.report(
            "crash safety: \(Self.trials) SIGKILL trials, seeds \(baseSeed)…\(baseSeed &+ UInt64(Self.trials - 1)), \(acknowledgedTotal) acknowledged saves all whole, \(final.counter) saves (\(final.counter * Self.batch) rows) in the store, \(killedInsideOpen) kills before the first save of a trial, integrity_check ok after every kill"
        )
    }
}
