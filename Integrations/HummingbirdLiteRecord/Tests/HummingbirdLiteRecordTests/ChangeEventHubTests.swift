import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Synchronization
import Testing

/// The change-stream hub: one read per commit whatever
/// the number of clients, its caps, heartbeats, the stream's text, and the
/// end when the stack closes or a client leaves.
@Suite struct ChangeEventHubTests {
    /// How many times a hub ran its read.
    final class Reads: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// A hub over a fresh store that counts its reads of the todos.
    func withHub(
        maximumClients: Int = 1_000, maximumClientsPerAddress: Int = 16, heartbeat: Duration = .seconds(60),
        _ body: @Sendable (ChangeEventHub<Int>, RecordStack, Reads) async throws -> Void
    ) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let reads = Reads()
        let hub = ChangeEventHub(
            stack: stack, touching: [Todo.self], maximumClients: maximumClients,
            maximumClientsPerAddress: maximumClientsPerAddress, heartbeat: heartbeat,
            read: { context in
                reads.count.withLock { $0 += 1 }
                return try Todo.count(in: context)
            },
            event: { update, sent in
                ServerSentEvent(id: "\(update.sequence)", event: sent == 0 ? "first" : "todos", data: "\(update.value)")
            })
        try await body(hub, stack, reads)
    }

    func add(_ title: String, to stack: RecordStack) async throws {
        try await stack.write { context in
            let todo = Todo()
            todo.title = title
            context.insert(todo)
        }
    }

    /// The first update whose value is `value`, at most `seconds` away.
    func firstUpdate(_ subscription: ChangeEventSubscription<Int>, where value: Int, seconds: Double = 10) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await delivery in subscription.deliveries {
                    if case .update(let update) = delivery, update.value == value { return true }
                }
                return false
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return false
            }
            let found = try await group.next() ?? false
            group.cancelAll()
            return found
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func oneReadPerCommitWhateverTheNumberOfClients() async throws {
        try await withHub { hub, stack, reads in
            let clients = try (0..<5).map { _ in try hub.subscribe() }
            for client in clients { #expect(try await firstUpdate(client, where: 0)) }
            for index in 0..<3 { try await add("t\(index)", to: stack) }
            for client in clients { #expect(try await firstUpdate(client, where: 3)) }
            // One read at start, then at most one per commit: 4, not 20.
            #expect(reads.value <= 4, "\(reads.value) reads")
            #expect(hub.clientCount == 5)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientsPastEitherCapAre503AndAPlaceGivenBackIsTakenAgain() async throws {
        try await withHub(maximumClients: 3, maximumClientsPerAddress: 2) { hub, _, _ in
            let first = try hub.subscribe(address: "192.0.2.1")
            var second: ChangeEventSubscription<Int>? = try hub.subscribe(address: "192.0.2.1")
            let error = #expect(throws: HTTPError.self) { try hub.subscribe(address: "192.0.2.1") }
            #expect(error?.status == .serviceUnavailable)
            #expect(error?.headers[.retryAfter] == "5")
            #expect(error?.body?.contains("of one address") == true)
            let third = try hub.subscribe(address: "192.0.2.2")
            #expect(throws: HTTPError.self) { try hub.subscribe() }
            #expect(hub.clientCount == 3)
            second = nil   // released: its place goes back
            #expect(hub.clientCount == 2)
            _ = try hub.subscribe(address: "192.0.2.1")
            _ = (first, second, third)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func deliveriesEndWhenTheStackCloses() async throws {
        try await withHub { hub, stack, _ in
            let subscription = try hub.subscribe()
            #expect(try await firstUpdate(subscription, where: 0))
            let reader = Task {
                var count = 0
                for await _ in subscription.deliveries { count += 1 }
                return count
            }
            try stack.close()
            _ = await reader.value   // ends; without it the time limit fails the test
            #expect(hub.clientCount == 0)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theStreamSendsRetryNumberedEventsAndHeartbeats() async throws {
        try await withHub(heartbeat: .milliseconds(50)) { hub, stack, _ in
            let router = Router()
            router.get("/events") { request, _ in try hub.response(to: request, limit: 2) }
            try await Application(router: router).test(.router) { client in
                let writer = Task {
                    try await Task.sleep(for: .milliseconds(300))   // heartbeats first
                    for index in 0..<100 where !Task.isCancelled {
                        try await add("w\(index)", to: stack)
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                let response = try await client.execute(uri: "/events", method: .get)
                writer.cancel()
                _ = try? await writer.value
                let text = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(text.hasPrefix("retry: 3000\n\n"), "\(text)")
                #expect(text.contains("id: 1\nevent: first\ndata: 0\n\n"), "\(text)")
                #expect(text.contains(": heartbeat\n\n"), "\(text)")
                #expect(text.contains("event: todos\ndata: "), "\(text)")
                // `limit: 2`: two events, then the stream ended.
                #expect(text.components(separatedBy: "event: ").count == 3, "\(text)")
            }
            #expect(hub.clientCount == 0)
        }
    }

    @Test func anEventsTextHasOneDataLinePerLineAndNoBreakInItsFields() {
        let event = ServerSentEvent(id: "1\n2", event: "a\rb", data: "x\ny")
        #expect(event.text == "id: 12\nevent: ab\ndata: x\ndata: y\n\n")
        #expect(ServerSentEvent(data: "").text == "data: \n\n")
    }
}
