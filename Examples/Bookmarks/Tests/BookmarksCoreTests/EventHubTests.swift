import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// `/events` at scale: one read per commit whatever the number of clients,
/// a bounded client count, heartbeats, `id:` and `retry:`, and a client that
/// leaves is let go at once, without waiting for a commit.
@Suite struct EventHubTests {
    /// A live server over a fresh store with `options`; `body` gets the port,
    /// the hub and the store.
    func withLiveServer(
        options: BookmarksOptions = .init(),
        _ body: @Sendable (Int, EventHub, BookmarkStore) async throws -> Void
    ) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let store = BookmarkStore(stack: stack)
        let (router, hub) = BookmarksApp.makeRouter(store: store, options: options)
        try await Application(router: router).test(.live) { client in
            try await body(try #require(client.port), hub, store)
        }
    }

    /// Polls `condition` every 20 ms for at most `seconds`.
    func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    func openStream(_ port: Int, _ query: String = "") async throws -> RawConnection {
        let connection = try RawConnection(port: port, timeout: 20)
        try await connection.send("GET /events\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return connection
    }

    @Test(.timeLimit(.minutes(1)))
    func oneReadPerCommitWhateverTheNumberOfClients() async throws {
        try await withLiveServer { port, hub, store in
            let clients = try await (0..<5).asyncMap { _ in try await openStream(port) }
            for client in clients { try await client.read { $0.contains("event: snapshot") } }
            for index in 0..<4 {
                _ = try await store.create(BookmarkInput(url: "https://\(index).example", title: "T", folder: "F"))
            }
            for client in clients { try await client.read { $0.contains("\"count\":4") } }
            // One summary at start, then at most one per commit: 5, not 25.
            let ids = EventStreamTests.ids(String(decoding: clients[0].received, as: UTF8.self))
            #expect(ids.last.map { $0 <= 5 } == true, "\(ids)")
            #expect(hub.clientCount == 5)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func sendsRetryIdsAndHeartbeats() async throws {
        var options = BookmarksOptions()
        options.heartbeat = .milliseconds(100)
        try await withLiveServer(options: options) { port, _, _ in
            let stream = try await openStream(port)
            let text = try await stream.read { $0.contains(": heartbeat") }
            #expect(text.contains("retry: 3000"))
            #expect(text.contains("id: 1\nevent: snapshot"), "\(text)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientThatLeavesIsLetGoWithoutACommit() async throws {
        try await withLiveServer { port, hub, _ in
            var stream: RawConnection? = try await openStream(port)
            try await stream?.read { $0.contains("event: snapshot") }
            #expect(hub.clientCount == 1)
            stream = nil   // closes the socket
            #expect(try await eventually { hub.clientCount == 0 })
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientsPastTheLimitAre503() async throws {
        var options = BookmarksOptions()
        options.maximumEventClients = 2
        try await withLiveServer(options: options) { port, hub, _ in
            let first = try await openStream(port)
            let second = try await openStream(port)
            try await first.read { $0.contains("event: snapshot") }
            try await second.read { $0.contains("event: snapshot") }
            let third = try await openStream(port)
            let refused = try await third.read { $0.contains("\r\n\r\n") && $0.contains("}") }
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            #expect(refused.lowercased().contains("retry-after: 5"))
            #expect(hub.clientCount == 2)
        }
    }

    /// One address cannot take every place.
    @Test(.timeLimit(.minutes(1)))
    func clientsOfOneAddressPastItsLimitAre503() async throws {
        var options = BookmarksOptions()
        options.maximumEventClientsPerAddress = 2
        try await withLiveServer(options: options) { port, hub, _ in
            var open: [RawConnection] = []
            for _ in 0..<2 {
                let stream = try await openStream(port)
                try await stream.read { $0.contains("event: snapshot") }
                open.append(stream)
            }
            let third = try await openStream(port)
            let refused = try await third.read { $0.contains("\r\n\r\n") && $0.contains("}") }
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            #expect(refused.contains("of one address"), "\(refused)")
            #expect(hub.clientCount == 2)
            // A place given back is taken again.
            open.removeLast()
            #expect(try await eventually { hub.clientCount == 1 })
            let again = try await openStream(port)
            try await again.read { $0.contains("event: snapshot") }
            #expect(hub.clientCount == 2)
            _ = open
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anotherWritersCommitsArriveWithinAHeartbeat() async throws {
        var options = BookmarksOptions()
        options.heartbeat = .milliseconds(100)
        try await withLiveServer(options: options) { port, _, store in
            let stream = try await openStream(port)
            try await stream.read { $0.contains("event: snapshot") }
            // A second stack on the same file: its commits are not in the
            // server stack's `changes`, as another process's would not be.
            let other = try RecordStack(storeAt: store.stack.storeURL!, entities: BookmarksModel.entities)
            defer { try? other.close() }
            _ = try await BookmarkStore(stack: other).create(BookmarkInput(url: "https://elsewhere.example", title: "T", folder: "F"))
            let text = try await stream.read { $0.contains("\"count\":1") }
            #expect(text.contains("event: bookmarks"))
        }
    }

    @Test func aBadCountIs400() async throws {
        try await withService { client, _ in
            for query in ["?count=0", "?count=-1", "?count=many"] {
                let response = try await client.send(uri: "/events\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                #expect(errorMessage(response).contains("'count'"))
            }
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension EventStreamTests {
    /// The `id:` of each event in a stream's text.
    static func ids(_ body: String) -> [Int] {
        body.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").compactMap { line in
            line.hasPrefix("id: ") ? Int(line.dropFirst(4)) : nil
        }
    }
}
