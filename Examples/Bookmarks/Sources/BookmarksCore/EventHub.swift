import Foundation
import Hummingbird
import LiteRecord
import ServiceLifecycle
import Synchronization

/// Feeds every `GET /events` client from one follower of the stack's
/// commits: per commit that touches bookmarks it runs **one** read (count and
/// newest id), whatever the number of clients, and hands the result to each
/// client's mailbox, which keeps only the newest (a slow client skips to the
/// present, it never queues). One timer beats every mailbox so that a client
/// that left is noticed at the next heartbeat even when nothing commits;
/// Hummingbird also ends a stream as soon as the client closes its side.
///
/// ```swift
/// let hub = EventHub(store: store, maximumClients: 1_000)
/// let subscription = try hub.subscribe()      // 503 past maximumClients
/// defer { subscription.cancel() }
/// ```
///
/// It follows `stack.changes`: the commits of this process's stack. A
/// commit by another process (a command-line tool, a migration script) is
/// found by the one read each heartbeat makes, when it changed the count or
/// the newest bookmark. On a read replica, which never commits (its
/// `stack.changes` stays empty), it follows the replica's position instead:
/// it asks for the replica's transaction id every ``replicaPollInterval``
/// (one call of a function of Litestream's VFS), and reads once when it moved — so a primary's
/// commit reaches the replica's clients about a second after Litestream
/// copied it.
public final class EventHub: Sendable {
    /// The store whose commits the hub follows.
    public let store: BookmarkStore
    /// The most clients at once; one more is answered 503.
    public let maximumClients: Int
    /// The most clients at once from one address, so that one client
    /// cannot take every place; one more from it is answered 503.
    public let maximumClientsPerAddress: Int
    /// How often each client gets a heartbeat comment.
    public let heartbeat: Duration

    struct State {
        var clients: [ObjectIdentifier: EventMailbox] = [:]
        /// The address of each client that has one, and how many each has.
        var addresses: [ObjectIdentifier: String] = [:]
        var perAddress: [String: Int] = [:]
        var follower: Task<Void, Never>?
        var latest: Event?
        var sequence = 0
    }

    /// What a client is sent: the summary and its number in this hub.
    public struct Event: Sendable, Equatable {
        /// Counts from 1 for each summary the hub read.
        public var sequence: Int
        /// The summary after that commit.
        public var summary: BookmarkSummary
    }

    private let state = Mutex(State())

    /// How often a hub over a read replica asks whether the replica moved:
    /// 0.25 s, as the library's observation does.
    public static let replicaPollInterval: Duration = .milliseconds(250)

    /// A hub over `store`.
    ///
    /// ```swift
    /// let hub = EventHub(store: store, maximumClients: 100, heartbeat: .seconds(15))
    /// ```
    public init(store: BookmarkStore, maximumClients: Int = 1_000, maximumClientsPerAddress: Int = 16,
                heartbeat: Duration = .seconds(15)) {
        self.store = store
        self.maximumClients = maximumClients
        self.maximumClientsPerAddress = maximumClientsPerAddress
        self.heartbeat = heartbeat
    }

    /// How many clients are subscribed now.
    public var clientCount: Int { state.withLock { $0.clients.count } }

    /// A subscription whose mailbox receives the current summary at once
    /// (when the hub has one; else after its first read) and then the newest
    /// after each commit. It ends with ``EventSubscription/cancel()``, or when
    /// the subscription is released — so a response that is never written
    /// (its client gone first) gives its place back too.
    ///
    /// - Parameter address: the client's address (`nil` when unknown), for
    ///   ``maximumClientsPerAddress``.
    /// - Throws: 503 with `Retry-After` when ``maximumClients`` are
    ///   subscribed, or ``maximumClientsPerAddress`` from `address`.
    public func subscribe(address: String? = nil) throws -> EventSubscription {
        EventSubscription(hub: self, mailbox: try register(address: address))
    }

    func register(address: String?) throws -> EventMailbox {
        let mailbox = EventMailbox()
        try state.withLock { state in
            guard state.clients.count < maximumClients else {
                throw HTTPError(
                    .serviceUnavailable, headers: [.retryAfter: "5"],
                    message: "this server streams events to at most \(maximumClients) clients at once"
                )
            }
            if let address {
                guard state.perAddress[address, default: 0] < maximumClientsPerAddress else {
                    throw HTTPError(
                        .serviceUnavailable, headers: [.retryAfter: "5"],
                        message: "this server streams events to at most \(maximumClientsPerAddress) clients of one address at once"
                    )
                }
                state.perAddress[address, default: 0] += 1
                state.addresses[ObjectIdentifier(mailbox)] = address
            }
            state.clients[ObjectIdentifier(mailbox)] = mailbox
            if let latest = state.latest { mailbox.post(latest) }
            if state.follower == nil { state.follower = Task { await self.follow() } }
        }
        return mailbox
    }

    /// Removes `mailbox`; its stream ends.
    public func unsubscribe(_ mailbox: EventMailbox) {
        state.withLock { state in
            // Cancelled and then released: counted once.
            guard state.clients.removeValue(forKey: ObjectIdentifier(mailbox)) != nil,
                  let address = state.addresses.removeValue(forKey: ObjectIdentifier(mailbox)) else { return }
            state.perAddress[address, default: 1] -= 1
            if state.perAddress[address] == 0 { state.perAddress[address] = nil }
        }
        mailbox.finish()
    }

    /// Follows the stack's commits until it closes: one read per commit that
    /// touches bookmarks, handed to every client; a heartbeat for every client
    /// each ``heartbeat``. `stack.changes` also ends when its reader falls
    /// 10,000 change sets behind: the hub then subscribes again, and reads
    /// once to catch up. A read replica's position is followed instead
    /// (``followReplica()``).
    func follow() async {
        let beats = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                for mailbox in state.withLock({ Array($0.clients.values) }) { mailbox.beat() }
                // Another process's commits are not in `stack.changes`: one
                // read per heartbeat finds those that moved the summary
                // (none while no client listens).
                if clientCount > 0 { await publish(onlyIfChanged: true) }
            }
        }
        defer { beats.cancel() }
        if store.stack.isReplica {
            await followReplica()
        } else {
            while true {
                let changes = store.stack.changes
                guard await publish() else { break }   // the stack closed
                for await change in changes where Self.touchesBookmarks(change) {
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
    /// transaction id moves (a commit of the primary reached it; which
    /// entities it touched is not known, so any commit counts), checked every
    /// ``replicaPollInterval`` from the first client on — also while none
    /// listens, so that the next client's first event is the present.
    func followReplica() async {
        // The position first: a commit that lands before the read is then
        // both in the read and, at worst, read once more.
        var txid = await store.replicaPosition().txid
        guard await publish() else { return }
        while store.stack.isOpen {
            try? await Task.sleep(for: Self.replicaPollInterval)
            let now = await store.replicaPosition().txid
            guard now != txid else { continue }
            txid = now
            guard await publish() else { return }   // the stack closed
        }
    }

    /// Reads the summary once and posts it to every client (when
    /// `onlyIfChanged`, only when it differs from the last one posted);
    /// `false` when the store cannot be read (it closed).
    @discardableResult
    func publish(onlyIfChanged: Bool = false) async -> Bool {
        guard let summary = try? await store.summary() else { return false }
        state.withLock { state in
            if onlyIfChanged, state.latest?.summary == summary { return }
            state.sequence += 1
            let event = Event(sequence: state.sequence, summary: summary)
            state.latest = event
            for mailbox in state.clients.values { mailbox.post(event) }
        }
        return true
    }

    static func touchesBookmarks(_ change: ChangeSet) -> Bool {
        change.entityNames.contains(Bookmark.entityName)
    }
}

/// One client's place in the hub, given back when cancelled or released.
public final class EventSubscription: Sendable {
    let hub: EventHub
    /// Where the client's events arrive.
    public let mailbox: EventMailbox

    init(hub: EventHub, mailbox: EventMailbox) {
        self.hub = hub
        self.mailbox = mailbox
    }

    /// Leaves the hub: the mailbox's stream ends.
    public func cancel() { hub.unsubscribe(mailbox) }

    deinit { hub.unsubscribe(mailbox) }
}

/// One client's mailbox: the newest event not yet sent, whether a heartbeat
/// is due, and a signal that wakes the client's writer. Posting never waits
/// and never grows: a newer event replaces an unsent one.
public final class EventMailbox: Sendable {
    private let pending = Mutex<(event: EventHub.Event?, heartbeat: Bool)>((nil, false))
    private let signal: AsyncStream<Void>.Continuation
    /// Wakes once per post or beat (coalesced); ends when the hub lets go.
    let signals: AsyncStream<Void>

    init() {
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func post(_ event: EventHub.Event) {
        pending.withLock { $0.event = event }
        signal.yield()
    }

    func beat() {
        pending.withLock { $0.heartbeat = true }
        signal.yield()
    }

    func finish() { signal.finish() }

    /// The unsent event and whether a heartbeat is due, clearing both.
    func take() -> (event: EventHub.Event?, heartbeat: Bool) {
        pending.withLock { value in
            defer { value = (nil, false) }
            return value
        }
    }
}
