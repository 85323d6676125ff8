import Foundation
import Synchronization

/// The observed queries of one store: who wants to hear of which commits, and
/// the poller that notices other processes' commits.
///
/// Each observation subscribes with the entities its request reads. A commit
/// of this process (any stack of the same file: see ``CommitHub``) wakes only
/// the subscribers whose entities it touches; another connection's commit,
/// found by polling `PRAGMA data_version`, wakes them all, since its change set
/// is unknown. A subscriber's stream buffers one wake-up at most, so a burst of
/// commits while it re-evaluates costs one more evaluation, not one per commit.
final class ObservationCenter: Sendable {
    /// How often a file store checks for another connection's commit while
    /// anything is observed: 0.25 s. The check is one `PRAGMA data_version` on
    /// the writer connection, skipped when the writer is busy.
    static let pollInterval: Duration = .milliseconds(250)

    private struct Subscriber {
        let entities: Set<String>
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var next: UInt64 = 0
        var subscribers: [UInt64: Subscriber] = [:]
        var finished = false
        var poller: Task<Void, Never>?
    }

    private let state = Locked(State())
    /// The number of subscribers, read by every commit without the lock.
    private let count = Atomic<Int>(0)
    /// The file the store is, for commits by other stacks of this process;
    /// `nil` for an in-memory store.
    let path: String?

    init(path: String?) {
        self.path = path
    }

    /// Reads the writer connection's `PRAGMA data_version`: `nil` when it is
    /// busy or closed; `wait` waits for a busy writer instead (observation
    /// never asks it to).
    typealias DataVersion = @Sendable (_ wait: Bool) -> Int64?

    /// How many observations are subscribed: what a cancelled or ended
    /// observation gives back.
    var liveCount: Int { count.load(ordering: .relaxed) }

    /// A stream that yields whenever a commit may have changed the results of
    /// a request reading `entities`; `nil` once the store is closed. It ends
    /// when the store closes; dropping or cancelling it unsubscribes.
    func subscribe(entities: Set<String>, dataVersion: @escaping DataVersion) -> AsyncStream<Void>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Read before the caller's first evaluation, so that a commit made
        // right after it counts as a change; outside the lock, since a commit
        // holding the store's lock publishes under ours. Never waiting for
        // the writer: starting to observe must not wait for another task's
        // write to commit (reads never wait behind a write). When the writer
        // is busy, the poller has no starting version and looks once more.
        let version = path == nil ? nil : dataVersion(false)
        let token: UInt64? = state.withLock { state in
            guard !state.finished else { return nil }
            state.next += 1
            state.subscribers[state.next] = Subscriber(entities: entities, continuation: continuation)
            count.store(state.subscribers.count, ordering: .relaxed)
            if state.subscribers.count == 1 { startObserving(&state, from: version, dataVersion) }
            return state.next
        }
        guard let token else { return nil }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(token) }
        return stream
    }

    private func unsubscribe(_ token: UInt64) {
        state.withLock { state in
            guard state.subscribers.removeValue(forKey: token) != nil else { return }
            count.store(state.subscribers.count, ordering: .relaxed)
            if state.subscribers.isEmpty { stopObserving(&state) }
        }
    }

    /// Hands a commit of this store to the observers of its file in this
    /// process (every stack's), or to its own for an in-memory store.
    func publishCommit(_ changes: ChangeSet) {
        if let path {
            CommitHub.shared.publish(changes, for: path)
        } else {
            publish(changes)
        }
    }

    /// Wakes the subscribers whose entities `changes` touches.
    func publish(_ changes: ChangeSet) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let touched = changes.entityNames
        let woken = state.withLock { state in
            state.subscribers.values.filter { !$0.entities.isDisjoint(with: touched) }.map(\.continuation)
        }
        for continuation in woken { continuation.yield() }
    }

    /// Wakes every subscriber: a commit whose changes are unknown.
    func publishUnknownChange() {
        let woken = state.withLock { state in state.subscribers.values.map(\.continuation) }
        for continuation in woken { continuation.yield() }
    }

    /// Ends every subscriber's stream: the store is closing.
    func finish() {
        let ended = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            state.finished = true
            let ended = state.subscribers.values.map(\.continuation)
            state.subscribers.removeAll()
            count.store(0, ordering: .relaxed)
            stopObserving(&state)
            return ended
        }
        for continuation in ended { continuation.finish() }
    }

    // MARK: Watching other connections

    /// Joins the process-wide hub and, for a file store, starts polling.
    private func startObserving(_ state: inout State, from start: Int64?, _ dataVersion: @escaping DataVersion) {
        guard let path else { return }
        CommitHub.shared.add(self, for: path)
        let interval = Self.pollInterval
        state.poller = Task.detached { [weak self] in
            var last = start
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                guard let version = dataVersion(false) else { continue }
                // Without a starting version (the writer was busy), another
                // connection may have committed since: one more evaluation,
                // which sends nothing when the results are the same.
                if last != version { self.publishUnknownChange() }
                last = version
            }
        }
    }

    private func stopObserving(_ state: inout State) {
        state.poller?.cancel()
        state.poller = nil
        if let path { CommitHub.shared.remove(self, for: path) }
    }
}

/// The commits of every stack of this process, by store file, so that an
/// observation on one stack hears of a commit made through another stack of
/// the same file at once, without waiting for the poller.
final class CommitHub: Sendable {
    static let shared = CommitHub()

    private struct WeakCenter {
        weak var center: ObservationCenter?
    }

    private let centers = Locked<[String: [ObjectIdentifier: WeakCenter]]>([:])
    /// Centers with subscribers, in any file; read by every commit without the lock.
    private let count = Atomic<Int>(0)

    func add(_ center: ObservationCenter, for path: String) {
        centers.withLock { centers in
            centers[path, default: [:]][ObjectIdentifier(center)] = WeakCenter(center: center)
            count.add(1, ordering: .relaxed)
        }
    }

    func remove(_ center: ObservationCenter, for path: String) {
        centers.withLock { centers in
            guard centers[path]?.removeValue(forKey: ObjectIdentifier(center)) != nil else { return }
            if centers[path]?.isEmpty == true { centers[path] = nil }
            count.subtract(1, ordering: .relaxed)
        }
    }

    /// Hands a commit to every observed stack of the file at `path`.
    func publish(_ changes: ChangeSet, for path: String) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        let listeners = centers.withLock { centers in centers[path]?.values.compactMap(\.center) ?? [] }
        for center in listeners { center.publish(changes) }
    }
}
