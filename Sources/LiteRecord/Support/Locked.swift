import Synchronization

#if LITERECORD_TSAN
import Foundation

/// A value guarded by a lock, for `make tsan`'s build only (it compiles with
/// `-D LITERECORD_TSAN`): the same `withLock` as `Mutex`, over a pthread
/// mutex.
///
/// On Linux, `Mutex` hands a contended lock from one thread to the next
/// through the kernel (a priority-inheritance futex, in the uninstrumented
/// runtime), so ThreadSanitizer sees no synchronization there and reports the
/// guarded accesses as races. A pthread mutex is one it understands, so
/// under TSan the library's locks are checked instead of excused.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
#else
/// A value guarded by a lock: `Mutex` (see the `LITERECORD_TSAN` variant
/// for the ThreadSanitizer build).
typealias Locked<Value> = Mutex<Value>
#endif
