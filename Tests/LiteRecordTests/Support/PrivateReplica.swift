import Foundation
import LiteRecord
import Testing

/// A primary store and a `litestream replicate` of its own into a `file`
/// replica, configured as a test needs (snapshots every second, a second
/// replica beside the shared ``ReplicaFixture``). ``stop()`` stops its
/// Litestream; a small shell stops it too once this process has ended, and
/// removes the folder.
final class PrivateReplica: Sendable {
    let folder: URL
    let primaryURL: URL
    let primary: RecordStack
    let replica: URL
    let vfs: URL
    let log: URL
    private let stopFile: URL

    /// Starts Litestream with `settings` (top-level YAML) and `databaseSettings`
    /// (under the database, indented by four spaces), after `seed` wrote the
    /// primary, and waits for the first snapshot.
    init(
        settings: String = "", databaseSettings: String = "",
        seed: @escaping @Sendable (RecordContext) throws -> Void = { $0.insert(ReplicaNote(tag: "seed", n: 0)) }
    ) async throws {
        vfs = try #require(LitestreamVFSExtension.url)
        let litestream = try #require(LitestreamBinary.url)
        folder = TemporaryDirectory.root
            .appendingPathComponent("literecord-replica-fixture-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        primaryURL = folder.appendingPathComponent("primary.sqlite")
        replica = folder.appendingPathComponent("replica", isDirectory: true)
        log = folder.appendingPathComponent("litestream.log")
        stopFile = folder.appendingPathComponent("stop")
        let config = folder.appendingPathComponent("litestream.yml")
        primary = try RecordStack(
            storeAt: primaryURL, entities: replicaEntities, migration: .none, onModelMismatch: .fail,
            checkpoints: .leftToReplicator)
        try await primary.write { try seed($0) }
        try Data(
            """
            \(settings)
            dbs:
              - path: \(primaryURL.path)
            \(databaseSettings)
                replica:
                  type: file
                  path: \(replica.path)
                  sync-interval: 200ms

            """.utf8
        ).write(to: config)
        let parent = ProcessInfo.processInfo.processIdentifier
        let script = """
            "$0" replicate -config "$1" >"$2" 2>&1 </dev/null &
            child=$!
            while kill -0 \(parent) 2>/dev/null && kill -0 $child 2>/dev/null && [ ! -e "$4" ]; do sleep 0.2; done
            kill $child 2>/dev/null
            kill -0 \(parent) 2>/dev/null && exit 0
            sleep 1; rm -rf "$3"
            """
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", script, litestream.path, config.path, log.path, folder.path, stopFile.path]
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = FileHandle.nullDevice
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        try await waitUntil("Litestream wrote a first snapshot", within: .seconds(30)) { ReplicaFixture.holdsSnapshot(self.replica) }
    }

    /// The replica's `ltx` files, as `<level>/<name>`.
    var files: Set<String> {
        let levels = replica.appendingPathComponent("ltx")
        var names = Set<String>()
        for level in (try? FileManager.default.contentsOfDirectory(atPath: levels.path)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [] {
                names.insert("\(level)/\(name)")
            }
        }
        return names
    }

    /// Waits (bounded) until `condition` holds, checking every 100 ms;
    /// records an issue with Litestream's log when it never does.
    func waitUntil(_ what: String, within limit: Duration, _ condition: @Sendable () throws -> Bool) async throws {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while try !condition() {
            guard clock.now < end else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                Issue.record("not within \(limit): \(what); Litestream's log:\n\(text.suffix(3000))")
                throw ReplicaFixtureFailed()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops Litestream: the replica's files stay as they are.
    func stopReplicating() async throws {
        _ = FileManager.default.createFile(atPath: stopFile.path, contents: nil)
        try await Task.sleep(for: .seconds(1))
    }

    /// Stops Litestream, closes the primary and removes the folder.
    func stop() {
        _ = FileManager.default.createFile(atPath: stopFile.path, contents: nil)
        try? primary.close()
        Thread.sleep(forTimeInterval: 0.5)
        try? FileManager.default.removeItem(at: folder)
    }
}
