import Synchronization

/// Values computed once per key and shared by every thread: what a query
/// derives from types and descriptors that repeat from one query to the next
/// (a type's value kind, a node type's translator, an `ORDER BY`).
final class MemoTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let storage = Locked<[Key: Value]>([:])
    /// When the table holds this many values it starts over, so that keys
    /// made from values (sort descriptors) cannot grow it without bound.
    private let limit: Int

    init(limit: Int = .max) {
        self.limit = limit
    }

    /// The number of values kept.
    var count: Int { storage.withLock { $0.count } }

    /// The value kept for `key`, or `make()`'s, kept now. `make` runs outside
    /// the lock (two threads may both make a value; either is kept).
    func value<Failure: Error>(for key: Key, _ make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let known = storage.withLock({ $0[key] }) { return known }
        let made = try make()
        storage.withLock { table in
            if table.count >= limit { table.removeAll() }
            table[key] = made
        }
        return made
    }
}
