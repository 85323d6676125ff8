import Foundation

/// A small pool of read-only connections to a WAL store, so reads run beside
/// a long write instead of waiting for it
/// (https://sqlite.org/wal.html#concurrency).
///
/// A thread waits for a reader only when it holds no connection of the store:
/// one that holds the writer (inside a write: the store's ``WriterGate``
/// says) or a reader already (a `read` closure fetching through a pooled
/// context) opens one more reader instead when all are taken; debug builds
/// assert both where a thread waits. Otherwise four `read` closures that each save (and
/// so wait for the writer) while the write waits for a reader would wait for
/// each other forever, as would four `read` closures each waiting for a fifth
/// reader that only one of them could release.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: `idle`, `count`, `holders`, `own`, `isClosed` and
    // `lateReadersKeepWAL` are only touched
    // with `condition` locked; a connection is used by one thread between
    // acquire() and release(), never by two.
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var count = 0
    /// How many readers each thread holds (by ``ThreadIdentity``).
    private var holders = ReaderHolders()
    /// Connections handed out by ``acquireOwn(_:)``, outside the pool's count.
    private var own: Set<ObjectIdentifier> = []
    private var isClosed = false
    /// Set when ``close(waitingUpTo:)`` returned with readers still busy:
    /// those close, when released, without deleting `-wal` and `-shm`.
    private var lateReadersKeepWAL = false
    private let maximumCount: Int
    /// The store's writer gate: its holder never waits for a reader.
    private let writerGate: WriterGate
    private let open: () throws(LiteRecordError) -> Connection

    init(maximumCount: Int, writerGate: WriterGate, open: @escaping () throws(LiteRecordError) -> Connection) {
        self.maximumCount = maximumCount
        self.writerGate = writerGate
        self.open = open
    }

    /// An idle reader, a new one while fewer than the maximum exist, or else the
    /// next one released. A caller that must not wait (it holds the writer)
    /// or that holds a reader already gets a new reader beyond the maximum
    /// instead; it is closed when released.
    func acquire(_ operation: @autoclosure () -> String) throws(LiteRecordError) -> Connection {
        let thread = ThreadIdentity.current
        let mayWait = !writerGate.isHeldByCurrentThread
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw LiteRecordError(.storeUnavailable, "\(operation()) failed: the store is closed")
            }
            if let reader = idle.popLast() {
                holders.add(thread)
                condition.unlock()
                return reader
            }
            if count - own.count < maximumCount || !mayWait || holders.count(of: thread) > 0 {
                count += 1
                holders.add(thread)
                condition.unlock()
                do {
                    return try open()
                } catch {
                    condition.lock()
                    count -= 1
                    releaseHolder(thread)
                    condition.broadcast()
                    condition.unlock()
                    throw error
                }
            }
            assert(mayWait && holders.count(of: thread) == 0, "a thread holding the writer or a reader waits for a reader")
            condition.wait()
        }
    }

    /// A connection of the caller's own, beside the pool's (a backup's, which
    /// holds one read transaction for its whole copy and should not take a
    /// pooled reader from the reads), tracked as a busy reader is:
    /// ``close(waitingUpTo:)`` waits for it, and ``release(_:)`` closes it —
    /// keeping `-wal` and `-shm` when the pool closed without it.
    func acquireOwn(_ operation: @autoclosure () -> String) throws(LiteRecordError) -> Connection {
        condition.lock()
        if isClosed {
            condition.unlock()
            throw LiteRecordError(.storeUnavailable, "\(operation()) failed: the store is closed")
        }
        // Counted before it opens, so a close() that begins meanwhile waits for it.
        count += 1
        condition.unlock()
        let connection: Connection
        do {
            connection = try open()
        } catch {
            condition.lock()
            count -= 1
            condition.broadcast()
            condition.unlock()
            throw error
        }
        condition.lock()
        own.insert(ObjectIdentifier(connection))
        condition.unlock()
        return connection
    }

    func release(_ reader: Connection) {
        condition.lock()
        defer { condition.unlock() }
        let isOwn = own.remove(ObjectIdentifier(reader)) != nil
        if isOwn {
            if isClosed && lateReadersKeepWAL { reader.keepWALFilesOnClose() }
            reader.close()
            count -= 1
            condition.broadcast()
            return
        }
        releaseHolder(ThreadIdentity.current)
        if isClosed || count - own.count > maximumCount {
            // Closed, or one opened beyond the maximum: it is not kept.
            // Closed after its store was, it may be the file's last
            // connection, which deletes -wal and -shm by name; by now those
            // may be another store's (a restore swaps the files).
            if isClosed && lateReadersKeepWAL { reader.keepWALFilesOnClose() }
            reader.close()
            count -= 1
            condition.broadcast()
            return
        }
        // A reader must not come back inside a transaction, or it would pin an
        // old snapshot and keep the WAL from being checkpointed.
        if reader.isInTransaction { try? reader.execute("ROLLBACK") }
        idle.append(reader)
        condition.signal()
    }

    /// Must be called with `condition` locked.
    private func releaseHolder(_ thread: UInt) {
        holders.remove(thread)
    }

    /// Whether ``close(waitingUpTo:)`` has begun: the pool refuses readers.
    var isClosing: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isClosed
    }

    /// Refuses new readers, closes idle ones, and waits up to `timeout` for
    /// busy ones to be released (and closed); readers the calling thread
    /// holds (a read that closes its store) are not waited for.
    ///
    /// - Returns: `false` when readers were still busy after `timeout`; they
    ///   are closed when released.
    func close(waitingUpTo timeout: Duration) -> Bool {
        let thread = ThreadIdentity.current
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        for reader in idle { reader.close() }
        count -= idle.count
        idle.removeAll()
        condition.broadcast()
        let own = holders.count(of: thread)
        while count > own {
            if !condition.wait(until: deadline) {
                lateReadersKeepWAL = true
                return false
            }
        }
        if own > 0 { lateReadersKeepWAL = true }
        return true
    }
}

/// How many readers each thread holds: a thread's count, one more, one fewer.
/// A list, not a `[UInt: Int]`: the threads holding readers at once are few
/// (about the pool's size), and a dictionary keyed by `UInt` cost the first
/// read after launch a search of the runtime's conformance tables (for
/// `UInt: Hashable`), half a million instructions.
struct ReaderHolders {
    private var entries: [(thread: UInt, count: Int)] = []

    func count(of thread: UInt) -> Int {
        entries.first { $0.thread == thread }?.count ?? 0
    }

    mutating func add(_ thread: UInt) {
        if let index = entries.firstIndex(where: { $0.thread == thread }) {
            entries[index].count += 1
        } else {
            entries.append((thread, 1))
        }
    }

    /// One fewer for `thread`; a thread that holds none is left out.
    mutating func remove(_ thread: UInt) {
        guard let index = entries.firstIndex(where: { $0.thread == thread }) else { return }
        if entries[index].count > 1 { entries[index].count -= 1 } else { entries.remove(at: index) }
    }
}
