import Foundation

/// A small pool of read-only connections to a WAL store, so reads run beside
/// a long write instead of waiting for it
/// (https://sqlite.org/wal.html#concurrency).
final class ReaderPool: @unchecked Sendable {
    // @unchecked: `idle`, `count` and `isClosed` are only touched with
    // `condition` locked; a connection is used by one thread between acquire()
    // and release(), never by two.
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var count = 0
    private var isClosed = false
    private let maximumCount: Int
    private let open: () throws(LiteRecordError) -> Connection

    init(maximumCount: Int, open: @escaping () throws(LiteRecordError) -> Connection) {
        self.maximumCount = maximumCount
        self.open = open
    }

    /// An idle reader, a new one while fewer than the maximum exist, or else the
    /// next one released.
    func acquire(_ operation: @autoclosure () -> String) throws(LiteRecordError) -> Connection {
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw LiteRecordError(.storeUnavailable, "\(operation()) failed: the store is closed")
            }
            if let reader = idle.popLast() {
                condition.unlock()
                return reader
            }
            if count < maximumCount {
                count += 1
                condition.unlock()
                do {
                    return try open()
                } catch {
                    condition.lock()
                    count -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            condition.wait()
        }
    }

    func release(_ reader: Connection) {
        condition.lock()
        defer { condition.unlock() }
        if isClosed {
            reader.close()
            count -= 1
            return
        }
        // A reader must not come back inside a transaction, or it would pin an
        // old snapshot and keep the WAL from being checkpointed.
        if reader.isInTransaction { try? reader.execute("ROLLBACK") }
        idle.append(reader)
        condition.signal()
    }

    /// Closes idle readers now and busy ones when they are released.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        for reader in idle { reader.close() }
        count -= idle.count
        idle.removeAll()
        condition.broadcast()
    }
}
