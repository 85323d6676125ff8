import Foundation
public import Hummingbird
public import LiteRecord
import ServiceLifecycle
import Synchronization

/// A Server-Sent Events route fed by **one read per commit**, whatever the
/// number of clients: the hub follows the stack's commits, runs `read` once
/// after each that touches the entities it watches, and hands the value to
/// every client's mailbox, which keeps only the newest (a slow client skips
/// to the present, it never queues). One timer beats every client so that a
/// client that left is noticed at the next heartbeat even when nothing
/// commits; the stream also ends as soon as the client closes its side, when
/// the server shuts down gracefully, and when the stack closes.
///
/// ```swift
/// let hub = ChangeEventHub(stack: stack, touching: [Todo.self],
///                          read: { context in try Todo.count(in: context) },
///                          event: { update, _ in ServerSentEvent(id: "\(update.sequence)", data: "{\"count\":\(update.value)}") })
/// router.get("/events") { request, _ in try hub.response(to: request) }   // 503 past the cap
/// ```
///
/// Commits of another process (a command-line tool, a migration) are not in
/// `stack.changes`: each heartbeat reads once more, while clients listen,
/// and sends the value when it changed. On a read replica, which never
/// commits, the hub asks for the replica's position every 0.25 s instead and
/// reads once when it moved.
public final class ChangeEventHub<Value: Sendable & Equatable>: Sendable {
    /// What the hub read after a commit, numbered.
    public struct Update: Sendable, Equatable {
        /// Counts from 1 for each value the hub read and sent.
        public var sequence: Int
        /// The value `read` returned.
        public var value: Value
    }

    /// Turns an update into the event a client is sent; the second argument
    /// counts the events this client was sent before (0: its first, which
    /// is the present when it subscribed).
    public typealias Encode = @Sendable (Update, Int) -> ServerSentEvent

    /// The stack whose commits the hub follows.
    public let stack: RecordStack
    /// The most clients at once; one more is answered 503.
    public let maximumClients: Int
    /// The most clients of one address at once, so that one client cannot
    /// take every place; one more from it is answered 503.
    public let maximumClientsPerAddress: Int
    /// How often each client is sent a heartbeat comment.
    public let heartbeat: Duration
    /// The `retry:` sent first (how long a browser waits to reconnect);
    /// `nil`: none.
    public let retry: Duration?

    let entityNames: Set<String>?
    let read: @Sendable (RecordContext) throws -> Value
    let encode: Encode
    private let state = Mutex(State())

    struct State {
        var clients: [ObjectIdentifier: ChangeEventMailbox<Value>] = [:]
        var addresses: [ObjectIdentifier: String] = [:]
        var perAddress: [String: Int] = [:]
        var follower: Task<Void, Never>?
        var latest: Update?
        var sequence = 0
    }

    /// How often a hub over a read replica asks whether the replica moved:
    /// 0.25 s, as the library's observation does.
    public static var replicaPollInterval: Duration { .milliseconds(250) }

    /// A hub over `stack` that runs `read` after each commit touching
    /// `entities` (every commit when `nil`) and sends what `event` makes of it.
    ///
    /// ```swift
    /// let hub = ChangeEventHub(stack: stack, maximumClients: 100, heartbeat: .seconds(15),
    ///                          read: { try Todo.count(in: $0) },
    ///                          event: { update, _ in ServerSentEvent(data: "\(update.value)") })
    /// ```
    public init(stack: RecordStack, touching entities: [any Entity.Type]? = nil,
                maximumClients: Int = 1_000, maximumClientsPerAddress: Int = 16,
                heartbeat: Duration = .seconds(15), retry: Duration? = .seconds(3),
                read: @escaping @Sendable (RecordContext) throws -> Value,
                event: @escaping Encode) {
        self.stack = stack
        self.entityNames = entities.map { Set($0.map { $0.entityName }) }
        self.maximumClients = maximumClients
        self.maximumClientsPerAddress = maximumClientsPerAddress
        self.heartbeat = heartbeat
        self.retry = retry
        self.read = read
        self.encode = event
    }

    /// How many clients are subscribed now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// A place in the hub: its deliveries start with the present value (when
    /// the hub has one; else after its first read), then the newest after
    /// each commit, and heartbeats. It ends with
    /// ``ChangeEventSubscription/cancel()`` or when released — so a response
    /// that is never written (its client gone first) gives its place back.
    ///
    /// ```swift
    /// let subscription = try hub.subscribe(address: "192.0.2.7")
    /// for await delivery in subscription.deliveries { … }
    /// ```
    ///
    /// - Parameter address: the client's address (`nil` when unknown), for
    ///   ``maximumClientsPerAddress``.
    /// - Throws: `HTTPError(.serviceUnavailable)` with `Retry-After: 5` when
    ///   ``maximumClients`` are subscribed, or ``maximumClientsPerAddress``
    ///   from `address`.
    public func subscribe(address: String? = nil) throws -> ChangeEventSubscription<Value> {
        let mailbox = ChangeEventMailbox<Value>()
        try state.withLock { state in
            guard state.clients.count < maximumClients else {
                throw HTTPError(
                    .serviceUnavailable, headers: [.retryAfter: "5"],
                    message: "this server streams events to at most \(maximumClients) clients at once")
            }
            if let address {
                guard state.perAddress[address, default: 0] < maximumClientsPerAddress else {
                    throw HTTPError(
                        .serviceUnavailable, headers: [.retryAfter: "5"],
                        message: "this server streams events to at most \(maximumClientsPerAddress) clients of one address at once")
                }
                state.perAddress[address, default: 0] += 1
                state.addresses[ObjectIdentifier(mailbox)] = address
            }
            state.clients[ObjectIdentifier(mailbox)] = mailbox
            if let latest = state.latest { mailbox.post(latest) }
            if state.follower == nil { state.follower = Task { await self.follow() } }
        }
        return ChangeEventSubscription(mailbox: mailbox) { [weak self] in self?.unsubscribe(mailbox) }
    }

    /// The `text/event-stream` answer for one client: `retry:` first, then
    /// an event per update (`limit`: at most that many, then the stream
    /// ends) and a `: heartbeat` comment when nothing else was due. It ends
    /// when the client closes its side (noticed at once), the server shuts
    /// down gracefully, or the stack closes.
    ///
    /// ```swift
    /// router.get("/events") { request, _ in try hub.response(to: request) }
    /// ```
    ///
    /// - Throws: the 503 of ``subscribe(address:)``.
    public func response(to request: Request, limit: Int? = nil, address: String? = nil) throws -> Response {
        // Released with the response if its head is never written (the
        // client left first): the place goes back to the hub then too.
        let subscription = try subscribe(address: address)
        let retry = retry
        let encode = encode
        let body = ResponseBody { writer in
            defer { subscription.cancel() }
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Graceful shutdown ends the stream; so does cancellation.
                    group.addTask {
                        try? await gracefulShutdown()
                        subscription.mailbox.finish()
                    }
                    if let retry {
                        let parts = retry.components
                        let milliseconds = parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000
                        try await writer.write(ByteBuffer(string: "retry: \(milliseconds)\n\n"))
                    }
                    var sent = 0
                    for await delivery in subscription.deliveries {
                        switch delivery {
                        case .update(let update):
                            try await writer.write(ByteBuffer(string: encode(update, sent).text))
                            sent += 1
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        }
                        if let limit, sent >= limit { break }
                    }
                    group.cancelAll()
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// ``response(to:limit:address:)`` for a client whose address the
    /// context knows (a `RemoteAddressRequestContext`), so that
    /// ``maximumClientsPerAddress`` applies.
    ///
    /// ```swift
    /// router.get("/events") { request, context in try hub.response(to: request, context: context) }
    /// ```
    ///
    /// - Throws: the 503 of ``subscribe(address:)``.
    public func response(to request: Request, context: some RemoteAddressRequestContext, limit: Int? = nil) throws -> Response {
        try response(to: request, limit: limit, address: context.remoteAddress?.ipAddress)
    }

    func unsubscribe(_ mailbox: ChangeEventMailbox<Value>) {
        state.withLock { state in
            // Cancelled and then released: counted once.
            guard state.clients.removeValue(forKey: ObjectIdentifier(mailbox)) != nil,
                  let address = state.addresses.removeValue(forKey: ObjectIdentifier(mailbox)) else { return }
            state.perAddress[address, default: 1] -= 1
            if state.perAddress[address] == 0 { state.perAddress[address] = nil }
        }
        mailbox.finish()
    }

    /// Follows the stack until it closes. `stack.changes` also ends when its
    /// reader falls 10,000 change sets behind: the hub then subscribes
    /// again, and reads once to catch up.
    func follow() async {
        let beats = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                for mailbox in state.withLock({ Array($0.clients.values) }) { mailbox.beat() }
                // Another process's commits are not in `stack.changes`.
                if clientCount > 0 { await publish(onlyIfChanged: true) }
            }
        }
        defer { beats.cancel() }
        if stack.isReplica {
            await followReplica()
        } else {
            let names = entityNames
            while true {
                let changes = stack.changes
                guard await publish() else { break }   // the stack closed
                for await change in changes where names.map({ !$0.isDisjoint(with: change.entityNames) }) ?? true {
                    await publish()
                }
            }
        }
        // The stack closed: end every stream; a later client starts afresh.
        let clients = state.withLock { state in
            defer {
                state.clients = [:]
                state.addresses = [:]
                state.perAddress = [:]
                state.follower = nil
                state.latest = nil
            }
            return Array(state.clients.values)
        }
        for mailbox in clients { mailbox.finish() }
    }

    /// Follows a read replica until its stack closes: one read each time its
    /// transaction id moves (which entities a commit touched is not known
    /// there, so any commit counts).
    func followReplica() async {
        // The position first: a commit that lands before the read is then
        // both in the read and, at worst, read once more.
        var txid = await stack.replicaPositionOffThePool().txid
        guard await publish() else { return }
        while stack.isOpen {
            try? await Task.sleep(for: Self.replicaPollInterval)
            let now = await stack.replicaPositionOffThePool().txid
            guard now != txid else { continue }
            txid = now
            guard await publish() else { return }
        }
    }

    /// Reads once and posts the value to every client (when
    /// `onlyIfChanged`, only when it differs from the last one posted);
    /// `false` when the store cannot be read (it closed).
    @discardableResult
    func publish(onlyIfChanged: Bool = false) async -> Bool {
        guard let value = try? await stack.read(read) else { return false }
        state.withLock { state in
            if onlyIfChanged, state.latest?.value == value { return }
            state.sequence += 1
            let update = Update(sequence: state.sequence, value: value)
            state.latest = update
            for mailbox in state.clients.values { mailbox.post(update) }
        }
        return true
    }
}

/// What a client of a ``ChangeEventHub`` is handed next.
public enum ChangeEventDelivery<Value: Sendable & Equatable>: Sendable, Equatable {
    /// The newest value (older ones not yet sent are skipped).
    case update(ChangeEventHub<Value>.Update)
    /// Nothing new for a heartbeat's time: send a comment, so that a client
    /// that left is noticed.
    case heartbeat
}

/// One client's place in a ``ChangeEventHub``, given back when cancelled or
/// released.
///
/// ```swift
/// let subscription = try hub.subscribe()
/// defer { subscription.cancel() }
/// ```
public final class ChangeEventSubscription<Value: Sendable & Equatable>: Sendable {
    let mailbox: ChangeEventMailbox<Value>
    private let leave: @Sendable () -> Void

    init(mailbox: ChangeEventMailbox<Value>, leave: @escaping @Sendable () -> Void) {
        self.mailbox = mailbox
        self.leave = leave
    }

    /// The updates and heartbeats, as they come; it ends when the
    /// subscription is cancelled or the stack closes. Read it from one task.
    public var deliveries: some AsyncSequence<ChangeEventDelivery<Value>, Never> {
        let mailbox = mailbox
        return mailbox.signals.compactMap { _ in mailbox.take() }
    }

    /// Leaves the hub: ``deliveries`` ends.
    public func cancel() { leave() }

    deinit { leave() }
}

/// One client's mailbox: the newest update not yet sent, whether a heartbeat
/// is due, and a signal that wakes the client's writer. Posting never waits
/// and never grows: a newer update replaces an unsent one.
final class ChangeEventMailbox<Value: Sendable & Equatable>: Sendable {
    private let pending = Mutex<(update: ChangeEventHub<Value>.Update?, heartbeat: Bool)>((nil, false))
    private let signal: AsyncStream<Void>.Continuation
    /// Wakes once per post or beat (coalesced); ends when the hub lets go.
    let signals: AsyncStream<Void>

    init() {
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func post(_ update: ChangeEventHub<Value>.Update) {
        pending.withLock { $0.update = update }
        signal.yield()
    }

    func beat() {
        pending.withLock { $0.heartbeat = true }
        signal.yield()
    }

    func finish() { signal.finish() }

    /// The unsent update, else a due heartbeat, clearing both.
    func take() -> ChangeEventDelivery<Value>? {
        pending.withLock { value in
            defer { value = (nil, false) }
            if let update = value.update { return .update(update) }
            return value.heartbeat ? .heartbeat : nil
        }
    }
}

extension RecordStack {
    /// `replicaPosition`, off the cooperative pool: it waits while another
    /// read of the replica runs, and a cooperative thread should not.
    func replicaPositionOffThePool() async -> ReplicaPosition {
        let stack = self
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: stack.replicaPosition) }
        }
    }
}
