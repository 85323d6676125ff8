import Foundation
import Testing

/// `bookmarks-server --replica`, end to end on the built binary: a primary
/// with `--checkpoints replicator`, `litestream replicate` copying its store
/// into a `file` replica every 200 ms, and a replica server reading that
/// replica through Litestream's VFS. Reads reach the replica; writes to it
/// are 307 redirects to the primary's URL in `Location`, whatever their body.
@Suite struct ReadReplicaTests {
    typealias Server = ServerProcessTests.Server

    @Test(.enabled(if: Litestream.tools != nil, Litestream.skipReason), .timeLimit(.minutes(3)))
    func aReplicaServesReadsAndSendsWritesToThePrimary() async throws {
        let tools = try #require(Litestream.tools)
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let running = Running()
        do {
            try await scenario(tools: tools, folder: temporary.folder, running: running)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
        #expect(running.replicaExit == 0, "the replica did not exit 0 on SIGTERM")
        #expect(running.replicaOutput.contains("stopped; store closed"), "\(running.replicaOutput)")
    }

    func scenario(tools: Litestream.Tools, folder: URL, running: Running) async throws {
        let store = folder.appendingPathComponent("primary.sqlite")
        let replicaFolder = folder.appendingPathComponent("replica", isDirectory: true)
        let primary = try Server(store: store, arguments: ["--checkpoints", "replicator"])
        running.servers.append(primary)
        try await primary.waitUntilListening()

        running.replicator = try Litestream.Replicator(tools: tools, store: store, replica: replicaFolder, folder: folder)
        try await running.replicator?.waitForSnapshot(seconds: 30)

        let primaryBase = "http://127.0.0.1:\(primary.port)"
        let replica = try Server(binary: "bookmarks-server", arguments: [
            "--port", "0", "--replica", replicaFolder.absoluteString, "--vfs-extension", tools.vfs.path,
            "--primary", primaryBase,
        ])
        running.servers.append(replica)
        running.replica = replica
        try await replica.waitUntilListening()

        // A replica's /events wakes on the primary's commits (it follows the
        // replica's position): open it before the commit.
        let events = try RawConnection(port: replica.port, timeout: 25)
        try await events.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await events.read { $0.contains("event: snapshot") }

        // A write to the primary reaches the replica with the same ETag.
        let created = try await HTTP.exchange(primary.port, ServerProcessTests.request(
            "POST", "/bookmarks", body: #"{"url": "https://replicated.example", "title": "R", "folder": "F", "tags": ["r"]}"#))
        #expect(created.status == 201, "\(created.text)")
        let etag = try #require(created.header("ETag"))
        let id = try #require(created.json?["id"] as? Int)
        let path = "/bookmarks/\(id)"

        let clock = ContinuousClock()
        let start = clock.now
        var read = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", path))
        while read.status != 200, clock.now - start < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
            read = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", path))
        }
        #expect(read.status == 200, "the bookmark did not reach the replica within 20 s: \(read.text)")
        #expect(read.header("ETag") == etag)
        #expect(read.json?["url"] as? String == "https://replicated.example")
        let lag = clock.now - start
        print("ReadReplicaTests: the bookmark reached the replica after \(lag)")

        // The changes feed reads the history the replica copied: the same
        // answer as the primary's, the insert with its token.
        let feed = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", "/changes"))
        #expect(feed.status == 200, "\(feed.text)")
        #expect(feed.body.contains(#""entity":"Bookmark","id":\#(id),"kind":"insert""#), "\(feed.text)")
        let primaryFeed = try await HTTP.exchange(primary.port, ServerProcessTests.request("GET", "/changes"))
        #expect(feed.body == primaryFeed.body)

        let stream = try await events.read { $0.contains("event: bookmarks") }
        #expect(stream.contains(#"data: {"count":1,"newestID":\#(id)}"#), "\(stream)")

        // The read routes answer as on the primary.
        let notModified = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", path, headers: "If-None-Match: \(etag)\r\n"))
        #expect(notModified.status == 304)
        let listed = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", "/bookmarks?tag=r&q=r"))
        #expect(listed.status == 200)
        #expect(listed.text.hasSuffix(#""url":"https://replicated.example","version":2,"visits":0}]"#), "\(listed.text)")
        let health = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", "/health"))
        #expect(health.status == 200)
        let position = try #require(health.json?["replica"] as? [String: Any], "\(health.text)")
        let txid = try #require(position["txid"] as? Int)
        #expect(txid > 0)
        #expect(position["commitTime"] is String, "\(health.text)")
        #expect(health.json?["bookmarks"] as? Int == 1)
        let metrics = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", "/metrics"))
        #expect(metrics.status == 200 && metrics.text.contains("hb_requests"))

        // Every write is a 307 to the primary's URL for the same path and
        // query — decided before the body is read, so a bad body, a missing
        // If-Match or a body of the wrong type changes nothing.
        let bookmark = #"{"url": "https://refused.example", "title": "T", "folder": "F"}"#
        let writes: [(method: String, path: String, body: String, headers: String)] = [
            ("POST", "/bookmarks", bookmark, ""),
            ("POST", "/bookmarks", "{not json", ""),
            ("PUT", path, bookmark, "If-Match: \(etag)\r\n"),
            ("PATCH", path, #"{"title": "changed"}"#, ""),
            ("DELETE", path, "", ""),
            ("DELETE", "/bookmarks/999999", "", ""),
            ("POST", "/import?source=replica-test", "[\(bookmark)]", ""),
        ]
        for write in writes {
            let answer = try await HTTP.exchange(replica.port, ServerProcessTests.request(
                write.method, write.path, body: write.body, headers: write.headers))
            #expect(answer.status == 307, "\(write.method) \(write.path): \(answer.text)")
            #expect(answer.header("Location") == primaryBase + write.path, "\(write.method) \(write.path)")
            #expect(answer.errorMessage?.contains("read replica") == true, "\(answer.text)")
            #expect(answer.header("Retry-After") == nil)
        }
        // Not JSON at all: still 307, not 415.
        let plain = try await HTTP.exchange(replica.port,
            "POST /bookmarks HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
        #expect(plain.status == 307, "\(plain.text)")
        // A method no route has stays 405, an unknown path 404.
        let patchList = try await HTTP.exchange(replica.port, ServerProcessTests.request("PATCH", "/bookmarks", body: "{}"))
        #expect(patchList.status == 405 && patchList.header("Allow") == "GET, HEAD, POST", "\(patchList.text)")
        let deleteHealth = try await HTTP.exchange(replica.port, ServerProcessTests.request("DELETE", "/health"))
        #expect(deleteHealth.status == 405, "\(deleteHealth.text)")
        let unknown = try await HTTP.exchange(replica.port, ServerProcessTests.request("POST", "/nothing-here"))
        #expect(unknown.status == 404, "\(unknown.text)")

        // Nothing was written: the primary still has the one bookmark at
        // its version, and so has the replica, at the same position.
        let onPrimary = try await HTTP.exchange(primary.port, ServerProcessTests.request("GET", "/bookmarks"))
        #expect(onPrimary.jsonArray?.count == 1, "\(onPrimary.text)")
        let again = try await HTTP.exchange(primary.port, ServerProcessTests.request("GET", path))
        #expect(again.header("ETag") == etag)
        let replicaAgain = try await HTTP.exchange(replica.port, ServerProcessTests.request("GET", "/health"))
        #expect(replicaAgain.json?["bookmarks"] as? Int == 1)
        #expect((replicaAgain.json?["replica"] as? [String: Any])?["txid"] as? Int == txid, "\(replicaAgain.text)")
    }

    /// `--replica` takes no store (nor its history's retention),
    /// `--vfs-extension` and `--primary` go with it, and a replica that
    /// cannot be opened is a clear error: each an exit before anything is
    /// served (no Litestream needed).
    @Test(.timeLimit(.minutes(1)))
    func replicaOptionsAreCheckedBeforeServing() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-test-\(UUID().uuidString)")
        for (arguments, status, message) in [
            (["--replica", "file:///srv/replica", "--store", "/tmp/x.sqlite"], Int32(64), "takes no --store, --checkpoints or --history-retention"),
            (["--replica", "file:///srv/replica", "--checkpoints", "replicator"], 64, "takes no --store, --checkpoints or --history-retention"),
            (["--replica", "file:///srv/replica", "--history-retention", "60"], 64, "takes no --store, --checkpoints or --history-retention"),
            (["--replica", "srv/replica"], 64, "--replica takes a replica's location"),
            (["--primary", "http://127.0.0.1:8080"], 64, "go with --replica"),
            (["--replica", "file:///srv/replica", "--primary", "10.0.0.5:8080"], 64, "--primary takes the primary service's base URL"),
            (["--replica", missing.absoluteString, "--vfs-extension", "/nonexistent/litestream-vfs.so"], 1, "litestream-vfs.so"),
        ] {
            let (exit, errors) = try await Self.run(["--port", "0"] + arguments)
            #expect(exit == status, "\(arguments): \(errors)")
            #expect(errors.contains(message), "\(arguments): \(errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    /// Runs the binary to its exit (at most 30 s); its status and standard error.
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = try ServerProcessTests.binary()
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let timer = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
                DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: timer)
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                timer.cancel()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }

    /// The processes of one run, stopped however the test ends: the servers
    /// with SIGTERM (SIGKILL past 20 s), then Litestream.
    final class Running: @unchecked Sendable {
        var servers: [Server] = []
        var replica: Server?
        var replicator: Litestream.Replicator?
        private(set) var replicaExit: Int32?
        private(set) var replicaOutput = ""

        func stop() async {
            for server in servers.reversed() {
                server.terminate()
                let status = await server.waitForExit(seconds: 20)
                if server === replica {
                    replicaExit = status
                    replicaOutput = server.remainingOutput()
                }
            }
            servers = []
            await replicator?.stop()
            replicator = nil
        }
    }
}

/// Where `make litestream` installs Litestream and its VFS extension (or
/// `$LITESTREAM` and `$LITERECORD_LITESTREAM_VFS`), and `litestream
/// replicate` run for one test.
enum Litestream {
    struct Tools: Sendable {
        let binary: URL
        let vfs: URL
    }

    static let skipReason: Comment = "Litestream or its VFS extension is not installed: run `make litestream` first"

    /// Both tools, or `nil` when either is missing (or not on Linux, where
    /// the VFS extension is built for).
    static var tools: Tools? {
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        let fileManager = FileManager.default
        let installed = ServerGuideTests.root.appendingPathComponent(".build-tools/litestream")
        var binary = installed.appendingPathComponent("bin/litestream")
        if let path = environment["LITESTREAM"], fileManager.isExecutableFile(atPath: path) { binary = URL(fileURLWithPath: path) }
        guard fileManager.isExecutableFile(atPath: binary.path) else { return nil }
        if let path = environment["LITERECORD_LITESTREAM_VFS"], fileManager.fileExists(atPath: path) {
            return Tools(binary: binary, vfs: URL(fileURLWithPath: path))
        }
        let lib = installed.appendingPathComponent("lib")
        for python in ((try? fileManager.contentsOfDirectory(atPath: lib.path)) ?? []).sorted() where python.hasPrefix("python3") {
            let vfs = lib.appendingPathComponent("\(python)/site-packages/litestream_vfs/litestream-vfs.so")
            if fileManager.fileExists(atPath: vfs.path) { return Tools(binary: binary, vfs: vfs) }
        }
        return nil
        #else
        return nil
        #endif
    }

    /// `litestream replicate` copying `store` into the `file` replica
    /// `replica` every 200 ms, under a small shell that stops it when
    /// `stop()` asks, when Litestream exits, or when the test process has
    /// ended (so a crashed test leaves no Litestream running).
    final class Replicator: @unchecked Sendable {
        let watcher = Process()
        let replica: URL
        let log: URL
        let stopFile: URL

        init(tools: Tools, store: URL, replica: URL, folder: URL) throws {
            self.replica = replica
            log = folder.appendingPathComponent("litestream.log")
            stopFile = folder.appendingPathComponent("litestream.stop")
            let config = folder.appendingPathComponent("litestream.yml")
            try Data("""
                dbs:
                  - path: \(store.path)
                    replica:
                      type: file
                      path: \(replica.path)
                      sync-interval: 200ms

                """.utf8).write(to: config)
            let script = """
                "$0" replicate -config "$1" >"$2" 2>&1 </dev/null &
                child=$!
                while [ ! -e "$3" ] && kill -0 \(ProcessInfo.processInfo.processIdentifier) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.2; done
                kill $child 2>/dev/null; wait $child
                """
            watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
            watcher.arguments = ["-c", script, tools.binary.path, config.path, log.path, stopFile.path]
            // Nothing of the test process's output: `swift test` reads that
            // to its end before it reaps this process.
            watcher.standardInput = FileHandle.nullDevice
            watcher.standardOutput = FileHandle.nullDevice
            watcher.standardError = FileHandle.nullDevice
            try watcher.run()
        }

        /// Waits until the replica holds Litestream's first snapshot (an
        /// `ltx/<level>/*.ltx` file); a replica server cannot open before.
        func waitForSnapshot(seconds: Int) async throws {
            let clock = ContinuousClock()
            let end = clock.now + .seconds(seconds)
            while !holdsSnapshot() {
                guard clock.now < end, watcher.isRunning else {
                    throw RawError("Litestream wrote no snapshot within \(seconds) s; its log:\n\((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        func holdsSnapshot() -> Bool {
            let levels = replica.appendingPathComponent("ltx")
            let fileManager = FileManager.default
            return ((try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? []).contains { level in
                ((try? fileManager.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [])
                    .contains { $0.hasSuffix(".ltx") }
            }
        }

        /// Stops Litestream and waits (at most 15 s) until it has exited.
        func stop() async {
            _ = FileManager.default.createFile(atPath: stopFile.path, contents: nil)
            let clock = ContinuousClock()
            let end = clock.now + .seconds(15)
            while watcher.isRunning, clock.now < end {
                try? await Task.sleep(for: .milliseconds(100))
            }
            if watcher.isRunning {
                Issue.record("Litestream's watcher did not stop within 15 s")
                kill(watcher.processIdentifier, SIGKILL)
                watcher.waitUntilExit()
            }
        }
    }
}

/// One HTTP/1.1 exchange over a `RawConnection` that the server closes
/// (`Connection: close`), parsed.
struct HTTP {
    let text: String

    static func exchange(_ port: Int, _ request: String) async throws -> HTTP {
        let connection = try RawConnection(port: port, timeout: 20)
        try await connection.send(request)
        return HTTP(text: try await connection.read())
    }

    var status: Int? { ServerProcessTests.status(text) }

    var head: String { text.components(separatedBy: "\r\n\r\n").first ?? "" }

    var body: String {
        guard let range = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[range.upperBound...])
    }

    /// The first field named `name` (any case), its value trimmed.
    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
    var jsonArray: [Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [Any] }
    var errorMessage: String? { (json?["error"] as? [String: Any])?["message"] as? String }
}
