import Foundation

extension RecordStacks {
    /// Runs `body` with the stack of the tenant `name`, opening it (and
    /// migrating it, as `RecordStack.setupAutoMigrating` does) on first use.
    /// The stack is not closed while `body` runs; after it, the stack stays
    /// open for the next caller until the cap needs its room.
    ///
    /// ```swift
    /// let count = try await tenants.withStack(for: "acme") { stack in
    ///     try await stack.read { context in try Note.count(in: context) }
    /// }
    /// ```
    ///
    /// Many tasks asking at once for a tenant that is not open open it once.
    /// When `maxOpen` stacks are open and every one is held, the task waits
    /// (suspended, holding no thread) for a closure to return, or until the
    /// task is cancelled, which throws `CancellationError`. `body` runs in
    /// the caller's isolation; don't keep `stack` after it returns.
    ///
    /// - Parameters:
    ///   - name: the tenant, in any letter case.
    ///   - isolation: the caller's isolation, filled in by the compiler;
    ///     leave it out.
    ///   - body: the work to do with the tenant's stack.
    /// - Returns: what `body` returns.
    /// - Throws: ``LiteRecordError`` of kind `.validationFailed` for an
    ///   invalid name, `.storeUnavailable` for a tenant that does not exist,
    ///   is being deleted, or after ``close()``; what opening the store throws
    ///   (`.migrationFailed`, `.modelMismatch`, `.corruptStore`), its message
    ///   starting with the tenant's name; `CancellationError` when the task
    ///   is cancelled while it waits for room; and what `body` throws, unchanged.
    public func withStack<T>(
        for name: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (RecordStack) async throws -> T
    ) async throws -> T {
        let tenant = try TenantName(name)
        let stack = try await acquire(tenant)
        defer { release(tenant.key) }
        let hold = TenantHold(owner: ObjectIdentifier(self), key: tenant.key)
        return try await TenantHold.$current.withValue(TenantHold.current + [hold]) {
            try await body(stack)
        }
    }

    /// How many stacks are open now (tests read it).
    var openStackCount: Int { table.withLock { $0.openCount } }

    /// How many stacks were opened since `init` (tests read it).
    var openedStackCount: Int { table.withLock { $0.opens } }

    func acquire(_ tenant: TenantName) async throws -> RecordStack {
        while true {
            switch table.withLock({ $0.acquire(tenant, maxOpen: maxOpen) }) {
            case .ready(let stack): return stack
            case .fail(let error): throw error
            case .wait(let generation):
                await waitForChange(after: generation)
                try Task.checkCancellation()
            case .open(let evicted): return try await open(tenant, evicting: evicted)
            }
        }
    }

    /// Opens the stack of a reserved slot, after closing the stack whose room
    /// it takes: there are never more than `maxOpen` open.
    private func open(_ tenant: TenantName, evicting evicted: RecordStack?) async throws -> RecordStack {
        let result: Result<RecordStack, any Error>
        do {
            if let evicted { try await Self.offPool { self.closeLogging(evicted) } }
            guard let diskName = try existingName(of: tenant) else { throw unknownTenant(tenant) }
            result = .success(try await Self.offPool { try self.openStack(diskName) })
        } catch {
            result = .failure(error)
        }
        let stack = try? result.get()
        let kept = update { table -> (Bool, RecordStack?) in
            let late = table.opened(tenant.key, stack)
            return (late == nil, late)
        }
        let opened = try result.get()
        // close() came while it opened: the stack was closed again.
        guard kept else { throw Self.closedError() }
        return opened
    }

    func release(_ key: String) {
        update { table in ((), table.release(key)) }
    }

    /// Changes the table, then resumes the waiters, closes the stack the
    /// change hands back and wakes a `close()` waiting for the last one.
    @discardableResult
    func update<R: Sendable>(_ change: (inout TenantTable) -> (R, RecordStack?)) -> R {
        let (result, toClose, waiters, drained) = table.withLock { table in
            let (result, toClose) = change(&table)
            table.changed()
            return (result, toClose, table.takeWaiters(), table.takeDrainedIfEmpty())
        }
        waiters.forEach { $0.resume() }
        if let toClose { closeLogging(toClose) }
        drained.forEach { $0.signal() }
        return result
    }

    /// Suspends until the table changes after `generation`, or the task is
    /// cancelled (which wakes every waiter: each looks again).
    func waitForChange(after generation: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = table.withLock { table -> Bool in
                    guard table.generation == generation else { return true }
                    table.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            update { _ in ((), nil) }
        }
    }
}

/// A tenant whose stack the current task holds in a `withStack` closure: a
/// `close()` or `delete` there would wait for itself.
struct TenantHold: Sendable, Equatable {
    let owner: ObjectIdentifier
    let key: String

    @TaskLocal static var current: [TenantHold] = []
}

extension RecordStacks {
    static func holdsAny(of stacks: RecordStacks) -> Bool {
        TenantHold.current.contains { $0.owner == ObjectIdentifier(stacks) }
    }

    func holds(_ key: String) -> Bool {
        TenantHold.current.contains(TenantHold(owner: ObjectIdentifier(self), key: key))
    }
}
