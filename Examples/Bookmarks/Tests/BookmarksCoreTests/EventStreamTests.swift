import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// `GET /events`: a snapshot event, then one event per commit that changes
/// the bookmarks, from `observe(_:)`.
@Suite struct EventStreamTests {
    struct Event: Equatable {
        var name: String
        var count: Int
    }

    static func events(_ body: String) -> [Event] {
        // "\r\n" is one Character to Swift: make every line end in "\n" (a
        // raw chunked body has CR LF around its chunk sizes).
        body.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").compactMap { block in
            var name: String?
            var count: Int?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: "),
                   let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any] {
                    count = object["count"] as? Int
                }
            }
            guard let name, let count else { return nil }
            return Event(name: name, count: count)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func sendsSnapshotThenOneEventPerCommit() async throws {
        try await withService { client, store in
            try await post(client, url: "https://before.example")
            // Commits every 50 ms until the stream has had its three events
            // (the first commits may land before the observation starts: they
            // are then in the snapshot).
            let writer = Task {
                for index in 0..<200 where !Task.isCancelled {
                    _ = try await store.create(BookmarkInput(url: "https://\(index).example", title: "T", folder: "F"))
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let response = try await client.send(uri: "/events?count=3", method: .get)
            writer.cancel()
            _ = try? await writer.value
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/event-stream")
            let events = Self.events(text(response))
            #expect(events.count == 3, "\(text(response))")
            #expect(events.map(\.name) == ["snapshot", "bookmarks", "bookmarks"])
            #expect(events.first.map { $0.count >= 1 } == true)
            // Each commit added one bookmark: counts only grow.
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.count < $1.count }, "\(events)")
            let stored = try await store.counts().bookmarks
            #expect(events.last.map { $0.count <= stored } == true)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func updateAndDeleteEachSendAnEvent() async throws {
        // A live server and a raw connection, to read the snapshot event
        // before committing: a PUT that leaves the count at 1 is an event
        // only when it comes after the snapshot.
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let store = BookmarkStore(stack: stack)
        let created = try await store.create(BookmarkInput(url: "https://a.example", title: "Old", folder: "F"))
        let app = Application(router: BookmarksApp.makeRouter(store: store).router)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let connection = try RawConnection(port: port)
            try await connection.send("GET /events?count=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try await connection.read { Self.events($0).count >= 1 }
            _ = try await store.update(created.id, ifMatch: .tags([created.entityTag]), BookmarkInput(title: "New"))
            try await connection.read { Self.events($0).count >= 2 }
            try await store.delete(created.id)
            let body = try await connection.read { Self.events($0).count >= 3 }
            #expect(body.hasPrefix("HTTP/1.1 200"))
            #expect(Self.events(body) == [
                Event(name: "snapshot", count: 1), Event(name: "bookmarks", count: 1), Event(name: "bookmarks", count: 0),
            ], "\(body)")
        }
    }
}
