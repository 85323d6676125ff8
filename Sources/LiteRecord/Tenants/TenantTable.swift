import Foundation

/// What ``RecordStacks`` knows about its tenants, kept behind its lock: the
/// open stacks and who holds them, the ones opening, deleting or being
/// created, and the tasks waiting for any of that to change.
///
/// Every change that could let a waiting task go on bumps `generation` and
/// hands back the waiters to resume; a waiter compares the generation it saw
/// with the current one before it suspends, so no wake-up is lost.
struct TenantTable {
    /// One tenant with a stack open or opening.
    struct Slot {
        /// The name as its file is spelled on disk.
        var name: String
        /// `nil` while the stack is opening.
        var stack: RecordStack?
        /// The closures holding the stack now.
        var users = 0
        /// When the stack was last released, by `clock`.
        var lastUse: UInt64 = 0
    }

    /// What an acquiring task does next.
    enum Step: Sendable {
        /// The stack is open and now held once more.
        case ready(RecordStack)
        /// A slot is reserved: open the stack (after closing `evicted`).
        case open(evicted: RecordStack?)
        /// Nothing can be done now: wait for the generation to change.
        case wait(UInt64)
        case fail(LiteRecordError)
    }

    /// The open and opening stacks, by `TenantName.key`.
    var slots: [String: Slot] = [:]
    /// Tenants being deleted or created: no one opens them meanwhile.
    var deleting: Set<String> = []
    var creating: Set<String> = []
    var closed = false
    var clock: UInt64 = 0
    var generation: UInt64 = 0
    /// How many stacks were opened, ever (tests read it).
    var opens = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Callers of `close()` waiting for the last stack to close.
    var drained: [DispatchSemaphore] = []

    /// Open stacks (tests read it).
    var openCount: Int { slots.values.count(where: { $0.stack != nil }) }

    /// Takes the stack of `tenant` if it is open, or reserves a slot to open
    /// it: a free one under `maxOpen`, or the least recently used idle stack's.
    mutating func acquire(_ tenant: TenantName, maxOpen: Int) -> Step {
        if closed { return .fail(RecordStacks.closedError()) }
        if deleting.contains(tenant.key) {
            return .fail(LiteRecordError(.storeUnavailable, "the tenant '\(tenant.name)' is being deleted"))
        }
        if creating.contains(tenant.key) { return .wait(generation) }
        if var slot = slots[tenant.key] {
            guard let stack = slot.stack else { return .wait(generation) }
            slot.users += 1
            slots[tenant.key] = slot
            return .ready(stack)
        }
        var evicted: RecordStack?
        if slots.count >= maxOpen {
            guard let victim = leastRecentlyUsedIdle() else { return .wait(generation) }
            evicted = slots.removeValue(forKey: victim)?.stack
        }
        slots[tenant.key] = Slot(name: tenant.name, stack: nil, users: 1)
        return .open(evicted: evicted)
    }

    private func leastRecentlyUsedIdle() -> String? {
        slots.filter { $0.value.users == 0 && $0.value.stack != nil }
            .min { $0.value.lastUse < $1.value.lastUse }?.key
    }

    /// Records the end of an open: the stack, or `nil` when it failed (the
    /// reservation goes). Returns a stack to close when `close()` came first.
    mutating func opened(_ key: String, _ stack: RecordStack?) -> RecordStack? {
        changed()
        guard let stack, !closed else {
            slots.removeValue(forKey: key)
            return stack
        }
        opens += 1
        slots[key]?.stack = stack
        return nil
    }

    /// One holder of `key` is done. Returns the stack to close when the
    /// tenants are closed and it was the last holder.
    mutating func release(_ key: String) -> RecordStack? {
        changed()
        guard var slot = slots[key] else { return nil }
        slot.users -= 1
        clock += 1
        slot.lastUse = clock
        if closed, slot.users == 0 {
            slots.removeValue(forKey: key)
            return slot.stack
        }
        slots[key] = slot
        return nil
    }

    /// Bumps the generation: the caller resumes `takeWaiters()` after the lock.
    mutating func changed() {
        generation += 1
    }

    mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters = [] }
        return waiters
    }

    /// The semaphores to signal when the last stack has closed.
    mutating func takeDrainedIfEmpty() -> [DispatchSemaphore] {
        guard closed, slots.isEmpty else { return [] }
        defer { drained = [] }
        return drained
    }
}
