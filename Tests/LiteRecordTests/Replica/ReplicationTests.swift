import Foundation
import Testing
import LiteRecord

/// Litestream (Docs/Deployment.md, "Replication with Litestream"), for real: the `litestream`
/// binary that `make litestream` installs under `.build-tools/` replicates a
/// store that a `LiteRecordTestChild crash-writer` process keeps saving to (batches
/// of 50 notes plus a counter, `acked N` printed after save N returned) into a
/// `file` replica with `sync-interval: 1s`, and `litestream restore` brings
/// it back. The figures are printed in lines starting with `[replication]`;
/// Docs/Deployment.md quotes them. Skipped, with the reason, where the binary
/// is not installed.
@Suite(
    .serialized,
    .enabled(if: LitestreamBinary.url != nil, "litestream is not installed: run `make litestream` first"))
struct ReplicationTests {
    static let batch = 50

    static var litestream: URL? { LitestreamBinary.url }

    static func report(_ line: String) { print("[replication] \(line)") }
}

/// Where the Litestream binary is: `$LITESTREAM`, or where `make litestream`
/// installs it, `.build-tools/litestream/bin/litestream` in this package.
enum LitestreamBinary {
    static var url: URL? {
        if let path = ProcessInfo.processInfo.environment["LITESTREAM"], FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        let binary = PackageRoot.url.appendingPathComponent(".build-tools/litestream/bin/litestream")
        return FileManager.default.isExecutableFile(atPath: binary.path) ? binary : nil
    }
}

extension ReplicationTests {
    /// A store, its replica folder and the Litestream configuration for them.
    struct Setup {
        let folder: TemporaryDirectory
        let store: URL
        let replica: URL
        let config: URL
        let log: URL

        init(_ function: String = #function) throws {
            folder = try TemporaryDirectory(function)
            store = folder.file("app.sqlite")
            replica = folder.url.appendingPathComponent("replica", isDirectory: true)
            config = folder.file("litestream.yml")
            log = folder.file("litestream.log")
            // The configuration Docs/Deployment.md shows, with a file replica.
            let yaml = """
                dbs:
                  - path: \(store.path)
                    replica:
                      type: file
                      path: \(replica.path)
                      sync-interval: 1s

                """
            try Data(yaml.utf8).write(to: config)
        }

        func restoredPath(_ name: String) -> URL { folder.file(name) }
    }

    // MARK: Scenarios

    /// (a) The writer process is SIGKILLed; Litestream keeps running and
    /// syncs; the restored copy holds every acknowledged batch.
    @Test func processKillLosesNoAcknowledgedBatch() async throws {
        let setup = try Setup()
        let children = Children()
        defer { children.killAll() }
        let writer = try children.writer(setup.store)
        try await writer.waitForAcks(1, timeout: .seconds(20))
        let litestream = try children.litestream(setup)
        try await Self.writeFor(.seconds(3), writer: writer, litestream: litestream)
        writer.kill()
        _ = await writer.waitForExit(timeout: .seconds(5))
        let acked = writer.acked
        try #require(acked > 0)

        // Litestream is still running: wait (bounded) until a restore holds the last ack.
        let clock = ContinuousClock()
        let start = clock.now
        var restored: CrashSafetyTests.Contents?
        var attempt = 0
        while clock.now - start < .seconds(20) {
            attempt += 1
            let url = setup.restoredPath("restored-\(attempt).sqlite")
            if try await Self.restore(setup, to: url), let contents = try? CrashSafetyTests.contents(of: url),
                contents.counter >= acked
            {
                try Self.expectWholeStore(url, contents, "after a process kill")
                restored = contents
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let waited = clock.now - start
        await litestream.stop()
        let contents = try #require(restored, "no restore held save \(acked) within 20 s; litestream log:\n\(setup.logTail)")
        #expect(contents.counter >= acked)
        Self.report(
            "process kill: \(acked) acknowledged batches of \(Self.batch) rows, restored copy holds \(contents.counter) (0 acknowledged batches lost), replica caught up \(Self.seconds(waited)) after the kill, integrity ok"
        )
    }

    /// (b) Writer and Litestream are SIGKILLed at the same instant (the
    /// machine is lost): the copy restored from the replica opens, passes the
    /// integrity check and holds only whole batches; what it lacks is the
    /// sync window.
    @Test func machineLossKeepsAWholeConsistentCopy() async throws {
        let setup = try Setup()
        let children = Children()
        defer { children.killAll() }
        let writer = try children.writer(setup.store)
        try await writer.waitForAcks(1, timeout: .seconds(20))
        let litestream = try children.litestream(setup)
        try await Self.writeFor(.seconds(3), writer: writer, litestream: litestream)
        writer.kill()
        litestream.kill()
        _ = await writer.waitForExit(timeout: .seconds(5))
        _ = await litestream.waitForExit(timeout: .seconds(5))
        let acked = writer.acked

        let url = setup.restoredPath("restored.sqlite")
        let ok = try await Self.restore(setup, to: url)
        try #require(ok, "litestream restore failed; log:\n\(setup.logTail)")
        let contents = try CrashSafetyTests.contents(of: url)
        try Self.expectWholeStore(url, contents, "after a machine loss")
        let lost = max(0, acked - contents.counter)
        Self.report(
            "machine loss: \(acked) acknowledged batches, restored copy holds \(contents.counter) whole batches; \(lost) acknowledged batches (\(lost * Self.batch) rows) lost to the sync window (sync-interval 1s), integrity ok"
        )
    }

    /// (c) `litestream restore` while a writer (with `checkpoints:
    /// .leftToReplicator`) and a reader keep running in another process; the
    /// WAL stays bounded because Litestream checkpoints it.
    @Test func restoreWhileWritingAndReadingWithCheckpointsLeftToLitestream() async throws {
        let setup = try Setup()
        let children = Children()
        defer { children.killAll() }
        let writer = try children.writer(setup.store, extra: ["--left-to-replicator", "--reader"])
        try await writer.waitForAcks(1, timeout: .seconds(20))
        let litestream = try children.litestream(setup)
        let wal = URL(fileURLWithPath: setup.store.path + "-wal")
        var largestWAL: Int64 = 0
        func sampleWAL() {
            let size = ((try? FileManager.default.attributesOfItem(atPath: wal.path))?[.size] as? NSNumber)?.int64Value ?? 0
            largestWAL = max(largestWAL, size)
        }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(4)
        while clock.now < end {
            sampleWAL()
            try Self.expectRunning(writer, litestream, setup)
            try await Task.sleep(for: .milliseconds(50))
        }
        let ackedBeforeRestore = writer.acked
        let url = setup.restoredPath("restored-live.sqlite")
        let ok = try await Self.restore(setup, to: url)
        sampleWAL()
        try Self.expectRunning(writer, litestream, setup)
        let ackedAfterRestore = writer.acked
        writer.kill()
        await litestream.stop()
        try #require(ok, "litestream restore failed; log:\n\(setup.logTail)")
        let contents = try CrashSafetyTests.contents(of: url)
        try Self.expectWholeStore(url, contents, "restored while writing")
        #expect(contents.counter > 0)
        // A frame Litestream has not copied yet is never checkpointed away by
        // LiteRecord; Litestream checkpoints from 1000 pages (4 MB) on.
        #expect(largestWAL < 64 << 20, "the WAL grew to \(largestWAL) bytes")
        Self.report(
            "restore while writing: writer (checkpoints: .leftToReplicator) and reader running, \(ackedBeforeRestore)…\(ackedAfterRestore) batches acknowledged around the restore, restored copy holds \(contents.counter) whole batches, integrity ok; largest WAL \(largestWAL) bytes (\(String(format: "%.1f", Double(largestWAL) / 1_048_576)) MiB)"
        )
    }

    // MARK: Helpers

    /// Lets the writer save for `duration` with Litestream replicating,
    /// failing early if either stops.
    static func writeFor(_ duration: Duration, writer: Child, litestream: Child) async throws {
        let clock = ContinuousClock()
        let end = clock.now + duration
        while clock.now < end {
            try await Task.sleep(for: .milliseconds(100))
            #expect(writer.isRunning, "the writer stopped: \(writer.errorText)")
            #expect(litestream.isRunning, "litestream stopped")
            if !writer.isRunning || !litestream.isRunning { throw ChildStopped() }
        }
    }

    static func expectRunning(_ writer: Child, _ litestream: Child, _ setup: Setup) throws {
        guard writer.isRunning, litestream.isRunning else {
            Issue.record("a child stopped: writer \(writer.isRunning) \(writer.errorText); litestream log:\n\(setup.logTail)")
            throw ChildStopped()
        }
    }

    /// `litestream restore -o url file://replica`, bounded to 30 s.
    static func restore(_ setup: Setup, to url: URL) async throws -> Bool {
        let binary = try #require(litestream)
        let process = Child(
            binary, ["restore", "-o", url.path, "file://" + setup.replica.path], log: setup.folder.file("restore.log"))
        try process.run()
        let ended = await process.waitForExit(timeout: .seconds(30))
        if !ended { process.kill() }
        return ended && process.status == 0 && FileManager.default.fileExists(atPath: url.path)
    }

    /// The restored store passes `literecord check`'s checks, opens with
    /// LiteRecord, and holds saves 1…counter, each a whole batch.
    static func expectWholeStore(_ url: URL, _ contents: CrashSafetyTests.Contents, _ context: String) throws {
        let check = try StoreCheck(storeAt: url)
        #expect(check.isHealthy, "\(context): \(check.problems)")
        let expected = Set(contents.counter > 0 ? Array(1...contents.counter) : [])
        #expect(Set(contents.batches.keys) == expected, "\(context): the saves in the copy are not 1…\(contents.counter)")
        let partial = contents.batches.filter { $0.value != batch }
        #expect(partial.isEmpty, "\(context): partial batches \(partial)")
        let stack = try RecordStack(storeAt: url, entities: [CLINote.self], readOnly: true)
        defer { try? stack.close() }
        #expect(try CLINote.count(in: stack.newContext()) == contents.counter * batch + (contents.counter > 0 ? 1 : 0))
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", value)
    }
}

extension ReplicationTests.Setup {
    /// The end of Litestream's log, for failure messages.
    var logTail: String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(15).joined(separator: "\n")
    }
}

/// A child process whose standard output is collected as it comes.
final class Child: @unchecked Sendable {
    // @unchecked: `process` is configured before `run()` and afterwards only
    // read through Process's own thread-safe accessors; output goes through `Locked`.
    private let process = Process()
    private let output = Shared(Data())
    private let errors = Shared(Data())

    init(_ executable: URL, _ arguments: [String], log: URL? = nil) {
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.withLock { $0.append(data) }
        }
        if let log {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try? FileHandle(forWritingTo: log)
        } else {
            let errorPipe = Pipe()
            process.standardError = errorPipe
            errorPipe.fileHandleForReading.readabilityHandler = { [errors] handle in
                let data = handle.availableData
                errors.withLock { $0.append(data) }
            }
        }
    }

    func run() throws { try process.run() }

    var isRunning: Bool { process.isRunning }
    var status: Int32 { process.terminationStatus }
    var text: String { String(decoding: output.withLock { $0 }, as: UTF8.self) }
    var errorText: String { String(decoding: errors.withLock { $0 }, as: UTF8.self) }

    /// The highest `acked N` printed so far.
    var acked: Int {
        text.split(separator: "\n").compactMap { $0.hasPrefix("acked ") ? Int($0.dropFirst(6)) : nil }.max() ?? 0
    }

    func waitForAcks(_ count: Int, timeout: Duration) async throws {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while acked < count {
            guard clock.now < end, isRunning else {
                Issue.record("no ack \(count) within \(timeout): \(errorText)")
                throw ChildStopped()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the process ended within `timeout`.
    func waitForExit(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while process.isRunning && clock.now < end {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !process.isRunning
    }

    func kill(_ signal: Int32 = SIGKILL) {
        guard process.isRunning else { return }
        sendSignal(signal, to: process.processIdentifier)
    }

    /// SIGTERM, then SIGKILL if it has not ended within a few seconds.
    func stop() async {
        kill(SIGTERM)
        if await !waitForExit(timeout: .seconds(5)) { kill(SIGKILL) }
    }

    /// SIGKILL and reap; SIGKILL cannot be ignored, so the wait is short.
    func killAndReap() {
        kill(SIGKILL)
        if process.processIdentifier != 0 { process.waitUntilExit() }
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler = nil
    }
}

/// Every process a test started, killed when the test ends however it ends.
final class Children: @unchecked Sendable {
    // @unchecked: only the test's own task touches `started`.
    private var started: [Child] = []

    func writer(_ store: URL, extra: [String] = []) throws -> Child {
        let binary = try BuiltExecutables.testChild()
        let child = Child(binary, ["crash-writer", store.path, "--batch", "\(ReplicationTests.batch)"] + extra)
        started.append(child)
        try child.run()
        return child
    }

    func litestream(_ setup: ReplicationTests.Setup) throws -> Child {
        let binary = try #require(ReplicationTests.litestream)
        let child = Child(binary, ["replicate", "-config", setup.config.path], log: setup.log)
        started.append(child)
        try child.run()
        return child
    }

    func killAll() {
        for child in started { child.killAndReap() }
        started.removeAll()
    }
}

/// A child process ended (or never got going) before the test was done with it.
struct ChildStopped: Error, CustomStringConvertible {
    var description: String { "a child process stopped early; see the recorded issue" }
}

private func sendSignal(_ signal: Int32, to process: Int32) {
    kill(process, signal)
}
