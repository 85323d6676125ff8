import Foundation

/// Counts work that has begun and not finished (the `write` calls queued or
/// running on a store), so that closing can wait for it and refuse what
/// begins after.
final class InFlightWork: @unchecked Sendable {
    // @unchecked: `count` and `isDraining` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var count = 0
    private var isDraining = false

    /// Counts one more piece of work; `false` once ``drain()`` was called.
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if isDraining { return false }
        count += 1
        return true
    }

    /// Counts one piece of work finished.
    func leave() {
        condition.lock()
        defer { condition.unlock() }
        count -= 1
        if count == 0 { condition.broadcast() }
    }

    /// Refuses new work from now on and waits until what began has finished.
    func drain() {
        condition.lock()
        defer { condition.unlock() }
        isDraining = true
        while count > 0 { condition.wait() }
    }
}
