import BookmarksCore
import Foundation
import LiteRecord
import Testing

/// The binary's production settings: a graceful shutdown with a deadline,
/// idle connections closed, checkpoints left to a replicator, bearer tokens
/// from a file or the environment.
@Suite struct ServerLifecycleTests {
    typealias Server = ServerProcessTests.Server

    @Test(.timeLimit(.minutes(2)))
    func aRequestThatNeverEndsDoesNotHoldShutdownPastItsDeadline() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let server = try Server(store: temporary.url, arguments: ["--shutdown-timeout", "2"])
        try await server.waitUntilListening()
        // An upload that stops halfway and never finishes.
        let stalled = try RawConnection(port: server.port)
        try await stalled.send("POST /import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[")
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        server.terminate()
        let status = await server.waitForExit(seconds: 30)
        #expect(status != nil, "the server was still running 30 s after SIGTERM")
        #expect(server.remainingOutput().contains("stopped; store closed"), "exit status \(status.map(String.init) ?? "none")")
        #expect(ContinuousClock.now - start < .seconds(15))
        // The stack was closed all the same: the store opens and is intact.
        let stack = try temporary.openStack()
        #expect(try await stack.read { try Bookmark.count(in: $0) } == 0)
        try stack.close()
    }

    @Test(.timeLimit(.minutes(2)))
    func idleConnectionsAreClosed() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let server = try Server(store: temporary.url, arguments: ["--idle-timeout", "1"])
        try await server.waitUntilListening()
        let idle = try RawConnection(port: server.port, timeout: 20)
        let start = ContinuousClock.now
        let received = try await idle.read()   // returns when the server closes
        #expect(received.isEmpty)
        #expect(ContinuousClock.now - start < .seconds(10))
        server.terminate()
        #expect(await server.waitForExit() == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func checkpointsCanBeLeftToAReplicator() async throws {
        for (mode, keepsWAL) in [("replicator", true), ("automatic", false)] {
            let temporary = try TemporaryStore()
            defer { temporary.remove() }
            let server = try Server(store: temporary.url, arguments: ["--checkpoints", mode])
            try await server.waitUntilListening()
            let connection = try RawConnection(port: server.port)
            try await connection.send(ServerProcessTests.request(
                "POST", "/bookmarks", body: #"{"url": "https://wal.example", "title": "T", "folder": "F"}"#))
            #expect(ServerProcessTests.status(try await connection.read()) == 201)
            server.terminate()
            #expect(await server.waitForExit() == 0)
            let wal = temporary.url.path + "-wal"
            let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            // Left to the replicator, nothing checkpoints at close: the
            // frames stay in the WAL for Litestream to copy.
            #expect((size > 0) == keepsWAL, "\(mode): -wal is \(size) bytes")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func tokensFromAFileOrTheEnvironmentGuardWrites() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let tokens = temporary.folder.appendingPathComponent("tokens")
        try "# writers\nfile-token\n".write(to: tokens, atomically: true, encoding: .utf8)
        let body = #"{"url": "https://auth.example", "title": "T", "folder": "F"}"#
        for (arguments, environment, token) in [
            (["--tokens-file", tokens.path], [String: String](), "file-token"),
            ([], ["BOOKMARKS_TOKENS": "env-token,other"], "env-token"),
        ] {
            let server = try Server(store: temporary.url, arguments: arguments, environment: environment)
            try await server.waitUntilListening()
            let refused = try RawConnection(port: server.port)
            try await refused.send(ServerProcessTests.request("POST", "/bookmarks", body: body))
            #expect(ServerProcessTests.status(try await refused.read()) == 401)
            let accepted = try RawConnection(port: server.port)
            try await accepted.send(ServerProcessTests.request(
                "DELETE", "/bookmarks/999", headers: "Authorization: Bearer \(token)\r\nIf-Match: *\r\n"))
            #expect(ServerProcessTests.status(try await accepted.read()) == 404)
            server.terminate()
            #expect(await server.waitForExit() == 0)
        }
    }
}
