import Synchronization

/// The statement observers of a store, callable from SQLite's trace callback
/// on whichever thread runs the statement.
final class SQLObservers: Sendable {
    private let state = Locked<(next: UInt64, observers: [UInt64: @Sendable (String) -> Void])>((0, [:]))
    /// How many observers there are, readable without taking the lock.
    private let count = Atomic<Int>(0)

    /// Whether anyone listens: checked each time the store takes a
    /// connection for use and before a statement runs after an observer came
    /// or went (``TraceListeners``), which arms SQLite's trace only while
    /// someone does (``Connection/armTraceIfListened()``), and for every
    /// traced statement.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    func add(_ observer: @escaping @Sendable (String) -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            count.store(state.observers.count, ordering: .relaxed)
            TraceListeners.changed()
            return state.next
        }
    }

    func remove(_ token: UInt64) {
        state.withLock { state in
            state.observers.removeValue(forKey: token)
            count.store(state.observers.count, ordering: .relaxed)
            TraceListeners.changed()
        }
    }

    func notify(_ sql: String) {
        let current = state.withLock { $0.observers.isEmpty ? [] : Array($0.observers.values) }
        for observer in current { observer(sql) }
    }
}
