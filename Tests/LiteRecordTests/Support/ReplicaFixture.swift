import Foundation
import LiteRecord
import Testing

@Entity(name: "ReplicaNote") final class ReplicaNote {
    var tag = ""
    var n = 0
    @Attribute(.searchable) var body = ""
    @Relationship var shelf: ReplicaShelf?
    init() {}
    init(tag: String, n: Int, body: String = "") {
        self.tag = tag
        self.n = n
        self.body = body
    }
}

@Entity(name: "ReplicaShelf") final class ReplicaShelf {
    var name = ""
    @Relationship(deleteRule: .nullify, inverse: \ReplicaNote.shelf) var notes: [ReplicaNote] = []
    init() {}
    init(name: String) { self.name = name }
}

@Entity(name: "ReplicaCounter") final class ReplicaCounter {
    @Attribute(.unique) var tag = ""
    var value = 0
    init() {}
    init(tag: String) { self.tag = tag }
}

/// A model the replica's primary was not written with.
@Entity(name: "ReplicaNote") final class ReplicaNoteV2 {
    var tag = ""
    var n = 0
    var body = ""
    var extra = ""
    init() {}
}

let replicaEntities: [any Entity.Type] = [ReplicaNote.self, ReplicaShelf.self, ReplicaCounter.self]

/// The package's root folder (the one holding `Package.swift`), found from
/// this file's folder upward rather than by counting folders, so that what
/// `make litestream` installs under `.build-tools/` is found from any test
/// file wherever the test tree puts it.
enum PackageRoot {
    static let url: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.pathComponents.count > 1 {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder }
            folder.deleteLastPathComponent()
        }
        return folder
    }()
}

/// Where `make litestream` installs Litestream's VFS extension:
/// `$LITERECORD_LITESTREAM_VFS`, or the `litestream_vfs` package in the
/// `.build-tools/litestream` virtual environment of this package.
enum LitestreamVFSExtension {
    static var url: URL? {
        if let path = ProcessInfo.processInfo.environment["LITERECORD_LITESTREAM_VFS"],
            FileManager.default.fileExists(atPath: path)
        {
            return URL(fileURLWithPath: path)
        }
        let lib = PackageRoot.url.appendingPathComponent(".build-tools/litestream/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python3") {
            let so = lib.appendingPathComponent("\(python)/site-packages/litestream_vfs/litestream-vfs.so")
            if FileManager.default.fileExists(atPath: so.path) { return so }
        }
        return nil
    }

    static var isUsable: Bool {
        #if os(Linux)
        return url != nil && LitestreamBinary.url != nil
        #else
        return false
        #endif
    }

    static let skipReason: Comment = "Litestream or its VFS extension is not installed: run `make litestream` first"
}

/// The replica most replica tests share (tests that need their own use
/// ``PrivateReplica``). A primary store
/// (written by this process), `litestream replicate` copying it every 200 ms
/// into a `file` replica, and the replica's location.
///
/// Litestream runs under a small shell that stops it, and removes the
/// fixture's folder, once this process has ended; the folder's name is not
/// one `scripts/check-temp.sh` looks for, since it outlives the run by a
/// moment.
actor ReplicaFixture {
    static let shared = ReplicaFixture()

    struct Running: Sendable {
        let folder: URL
        let primaryURL: URL
        let primary: RecordStack
        let replica: URL
        let vfs: URL
        let log: URL
    }

    private var running: Running?

    func start() async throws -> Running {
        if let running { return running }
        let vfs = try #require(LitestreamVFSExtension.url)
        let litestream = try #require(LitestreamBinary.url)
        let folder = TemporaryDirectory.root
            .appendingPathComponent("literecord-replica-fixture-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let primaryURL = folder.appendingPathComponent("primary.sqlite")
        let replica = folder.appendingPathComponent("replica", isDirectory: true)
        let config = folder.appendingPathComponent("litestream.yml")
        let log = folder.appendingPathComponent("litestream.log")
        let primary = try RecordStack(
            storeAt: primaryURL, entities: replicaEntities, migration: .none, onModelMismatch: .fail,
            checkpoints: .leftToReplicator)
        try await primary.write { context in
            context.insert(ReplicaNote(tag: "seed", n: 0))
        }
        try Data(
            """
            dbs:
              - path: \(primaryURL.path)
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
            while kill -0 \(parent) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.5; done
            kill $child 2>/dev/null; sleep 1; rm -rf "$3"
            """
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = ["-c", script, litestream.path, config.path, log.path, folder.path]
        // Nothing of the test process's output: `swift test` reads that to
        // its end before it reaps this process, and until it is reaped the
        // watcher would see its parent alive.
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        let started = Running(folder: folder, primaryURL: primaryURL, primary: primary, replica: replica, vfs: vfs, log: log)
        // The replica exists once Litestream has written its first snapshot.
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while !Self.holdsSnapshot(replica) {
            guard clock.now < end else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                Issue.record("Litestream wrote no snapshot within 30 s; its log:\n\(text)")
                throw ReplicaFixtureFailed()
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        running = started
        return started
    }

    /// Whether Litestream has written the replica's first snapshot (an
    /// `ltx/<level>/*.ltx` file).
    static func holdsSnapshot(_ replica: URL) -> Bool {
        let levels = replica.appendingPathComponent("ltx", isDirectory: true)
        let fileManager = FileManager.default
        return ((try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? []).contains { level in
            ((try? fileManager.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [])
                .contains { $0.hasSuffix(".ltx") }
        }
    }
}

struct ReplicaFixtureFailed: Error {}

/// Waits (bounded) until `condition` holds, reading `replica` every 50 ms;
/// returns how long that took, or `nil` when it never held.
func waitForReplica(
    _ replica: RecordStack, timeout: Duration = .seconds(20),
    until condition: @escaping @Sendable (RecordContext) throws -> Bool
) async throws -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < timeout {
        if try await replica.read({ try condition($0) }) { return clock.now - start }
        try await Task.sleep(for: .milliseconds(50))
    }
    return nil
}
