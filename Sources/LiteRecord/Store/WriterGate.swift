import Foundation
import Synchronization

/// The lock that serializes every use of a store's writer connection, and
/// the state only its holder touches (``WriterState``).
///
/// What the gate guarantees (Docs/Internals/Architecture.md, "The writer gate"):
/// - One thread at a time holds it; the holder may take it again (a `write`
///   closure that fetches, a save inside a `write`), and only the holder
///   releases it. Debug builds assert both.
/// - ``state`` is reachable only by the holder: the accessor asserts in
///   debug builds that the calling thread holds the gate, where the rule
///   used to live in comments ("Guarded by `lock`").
/// - ``isHeldByCurrentThread`` is exact for the caller, since only the
///   holder stores its own identity: the reader pool relies on it so that a
///   thread holding the writer never waits for a reader.
final class WriterGate: @unchecked Sendable {
    // @unchecked: `depth` and `state` are only touched while `lock` is held
    // (asserted in debug builds); `owner` is atomic.
    private let lock = NSRecursiveLock()
    /// The ``ThreadIdentity`` of the thread holding `lock`, 0 when none.
    private let owner = Atomic<UInt>(0)
    /// How many times the holder took `lock`.
    private var depth = 0
    private let guarded = WriterState()

    func acquire() {
        lock.lock()
        entered()
    }

    /// Takes the gate when no other thread holds it; `false` otherwise.
    func tryAcquire() -> Bool {
        guard lock.try() else { return false }
        entered()
        return true
    }

    func release() {
        assert(isHeldByCurrentThread, "the writer gate is released by a thread that does not hold it")
        depth -= 1
        if depth == 0 { owner.store(0, ordering: .relaxed) }
        lock.unlock()
    }

    private func entered() {
        // Re-entry is the holder's only: a first entry finds no owner.
        assert(depth == 0 ? owner.load(ordering: .relaxed) == 0 : isHeldByCurrentThread, "the writer gate is held by two threads")
        if depth == 0 { owner.store(ThreadIdentity.current, ordering: .relaxed) }
        depth += 1
    }

    /// Whether the calling thread holds the gate: it runs inside a write (a
    /// `write` closure, or code a save runs) or another use of the writer.
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// The state the gate guards. Only for the thread that holds the gate
    /// (asserted in debug builds).
    var state: WriterState {
        assert(isHeldByCurrentThread, "the writer's state is touched without holding the writer gate")
        return guarded
    }

    /// Runs `body` holding the gate, with the state it guards: for code that
    /// needs the state whether or not the connection is open (closing,
    /// asking whether the store is open).
    func withState<T, E: Error>(_ body: (WriterState) throws(E) -> T) throws(E) -> T {
        acquire()
        defer { release() }
        return try body(guarded)
    }

    /// ``withState(_:)`` when no other thread holds the gate; `nil`, without
    /// waiting, when one does.
    func withStateIfFree<T>(_ body: (WriterState) -> T?) -> T? {
        guard tryAcquire() else { return nil }
        defer { release() }
        return body(guarded)
    }
}

/// What a store keeps that only the holder of its ``WriterGate`` touches:
/// the writer connection itself, the open transaction's participants
/// (``TransactionParticipant``), the history recording, the WAL bound's
/// counters and a replica's pin. One instance per store, made once: a save
/// allocates nothing here.
final class WriterState {
    /// The writer connection (a replica's reading connection): `nil` before
    /// the store opened it, after it closed, and while a replica waits to
    /// open a fresh one. Reached in ``Store/withWriter(_:_:)``, which hands
    /// it to its body, or by code holding the gate (opening, closing).
    var connection: Connection?
    /// Change sets recorded by the writes of the open transaction, published
    /// as one when the outermost transaction commits.
    var pendingChanges = PendingChanges()
    /// Whether commits record history, and what the open transaction's
    /// writes noted for it (`Store+History.swift`).
    var history = HistoryState()
    /// For tests: the check that every commit's change set is what SQLite
    /// changed (``ChangeAudit``); `nil` otherwise.
    var changeAudit: ChangeAudit?
    /// Commits since ``Store/boundWAL(_:)`` last looked at the `-wal` file.
    var commitsSinceWALCheck = 0
    /// Whether ``Store/boundWAL(_:)`` turned the writer's automatic
    /// checkpoint off while the WAL is past its bound.
    var writerCheckpointsPaused = false
    /// For a replica: its reading connection's pin and how to reopen it
    /// (`Store+Replica.swift`).
    var replica = ReplicaState()

    /// Where each participant stood when a savepoint began.
    struct Mark {
        var changes: Int
        var history: Int
        var audit: Int

        /// An empty transaction: where each participant stands when the
        /// outermost transaction begins.
        static let start = Mark(changes: 0, history: 0, audit: 0)
    }

    /// Where the open transaction's participants stand now.
    var mark: Mark {
        Mark(changes: pendingChanges.mark, history: history.mark, audit: changeAudit?.mark ?? 0)
    }

    /// The savepoint begun at `mark` rolled back (or, at ``Mark/start``, a
    /// transaction begins): every participant forgets what came after it.
    func rollback(to mark: Mark) {
        pendingChanges.rollback(to: mark.changes)
        history.rollback(to: mark.history)
        changeAudit?.rollback(to: mark.audit)
    }

    /// The outermost transaction rolled back: every participant forgets it,
    /// with what it decided inside it.
    func rollbackTransaction() {
        pendingChanges.rollbackTransaction()
        history.rollbackTransaction()
        changeAudit?.rollbackTransaction()
    }
}

/// Something a write transaction carries beside SQLite's own rows, which a
/// rollback must undo as SQLite undoes the rows: the savepoint path and the
/// transaction path each undo every participant at once
/// (``WriterState/rollback(to:)``, ``WriterState/rollbackTransaction()``)
/// instead of resetting fields by hand. Each commits in its own way, in
/// order, at the commit (`Store+WriterGate.swift`).
protocol TransactionParticipant {
    /// How much the open transaction holds: where a savepoint begins.
    var mark: Int { get }
    /// A savepoint rolled back: forgets what came after `mark`. At 0, before
    /// a transaction begins, drops what was left outside any write.
    mutating func rollback(to mark: Int)
    /// The transaction rolled back: forgets all of it, and any decision
    /// made inside it.
    mutating func rollbackTransaction()
}

extension TransactionParticipant {
    mutating func rollbackTransaction() { rollback(to: 0) }
}

/// The change sets the writes of the open transaction noted
/// (``Store/noteCommitted(_:by:updatedNames:)``).
struct PendingChanges: TransactionParticipant {
    private(set) var sets: [ChangeSet] = []

    mutating func append(_ changeSet: ChangeSet) { sets.append(changeSet) }

    /// What the open transaction changed so far, as one change set.
    var merged: ChangeSet { ChangeSet(merging: sets) }

    var mark: Int { sets.count }

    mutating func rollback(to mark: Int) {
        sets.removeSubrange(mark...)
    }

    /// The transaction committed: what it changed, to publish, and nothing
    /// pending after.
    mutating func commit() -> ChangeSet {
        // Keeps its buffer: the next transaction appends without allocating.
        defer { sets.removeAll(keepingCapacity: true) }
        return merged
    }
}
