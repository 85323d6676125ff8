public import Foundation
import Synchronization

extension RecordStack {
    /// Where the default stack lives. The static facade looks one up through
    /// a task-local first, so a test (or any task tree) can have its own default
    /// stack while other tests run in parallel; otherwise the global one.
    final class Slot: Sendable {
        struct State {
            var stack: RecordStack?
            /// Set by `cleanUp()`, so the `.notSetUp` message can say so.
            var wasCleanedUp = false
            /// How store names resolve to files in this scope; `nil` for the default.
            var locator: StoreLocator?

            /// Removes the stack for `cleanUp()` and returns it for closing;
            /// inside a write of that stack it throws and removes nothing.
            mutating func takeForCleanUp() throws(LiteRecordError) -> RecordStack? {
                let taken = stack
                try taken?.store.refuseCloseInsideWrite()
                stack = nil
                if taken != nil { wasCleanedUp = true }
                return taken
            }
        }

        let state = Locked(State())

        init(stack: RecordStack? = nil, locator: StoreLocator? = nil) {
            state.withLock {
                $0.stack = stack
                $0.locator = locator
            }
        }

        /// A slot for a scope inside this one: its own stack, and the
        /// locator set here (a scope changes where stores are, it does not
        /// forget it).
        func scoped(with stack: RecordStack?) -> Slot {
            Slot(stack: stack, locator: state.withLock { $0.locator })
        }
    }

    @TaskLocal static var taskSlot: Slot?
    static let globalSlot = Slot()
    static var slot: Slot { taskSlot ?? globalSlot }
    /// How many `withDefault` scopes are running, in any task: when a task
    /// outside all of them finds no default stack, one of them was probably
    /// meant (a `Task.detached` in a trait-scoped test), and `.notSetUp` says so.
    static let runningScopes = Atomic<Int>(0)

    /// The locator that `setup(storeNamed:)` and ``storeURL(forStoreNamed:)``
    /// use. Defaults to `StoreLocator()`; replace it to change the directories
    /// or application name. Like the default stack, it belongs to the current
    /// scope: set inside `withDefault` (or a test trait), it changes nothing
    /// outside.
    public static var locator: StoreLocator {
        get { slot.state.withLock { $0.locator } ?? StoreLocator() }
        set { slot.state.withLock { $0.locator = newValue } }
    }

    // MARK: The default stack

    /// The default stack: the task-local one if a test trait installed one,
    /// else the global one.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.notSetUp`, saying which call is
    ///   missing.
    public static func current() throws -> RecordStack {
        let state = slot.state.withLock { ($0.stack, $0.wasCleanedUp) }
        if let stack = state.0 { return stack }
        throw notSetUpError(wasCleanedUp: state.1)
    }

    /// Whether a default stack is set up (in this task's scope).
    public static var isSetUp: Bool { slot.state.withLock { $0.stack != nil } }

    static func notSetUpError(wasCleanedUp: Bool) -> LiteRecordError {
        let advice = "call RecordStack.setup(storeNamed:entities:), setupInMemory(entities:) or setupAutoMigrating(storeNamed:entities:) first"
        if taskSlot == nil, runningScopes.load(ordering: .relaxed) > 0 {
            return LiteRecordError(
                .notSetUp,
                "LiteRecord is not set up in this task: a default stack installed by RecordStack.withDefault or a LiteRecordTesting trait (.inMemoryStack, .temporaryStore) reaches only the task that runs the scope and its child tasks, and this one runs outside it — a Task.detached (or a task started outside the scope) inherits no task-local values. Use Task { } or async let, which inherit it, or pass the RecordStack to the detached task; otherwise \(advice)"
            )
        }
        return LiteRecordError(
            .notSetUp,
            wasCleanedUp
                ? "LiteRecord's default stack was cleaned up with RecordStack.cleanUp(); \(advice)"
                : "LiteRecord is not set up: \(advice)")
    }

    /// The store's URL from ``locator``, logged at `.info` with the rule that
    /// chose it and where the application name came from: a renamed binary
    /// otherwise opens a new, empty store elsewhere without a word.
    static func resolveLogging(storeNamed name: String) -> URL {
        let locator = self.locator
        let (url, source) = locator.resolve(storeNamed: name)
        LogSettings.current.info(
            "store located",
            metadata: [
                "store": "\(url.path)", "rule": "\(source)",
                "applicationName": "\(locator.applicationName) (\(locator.applicationNameSource))",
            ])
        return url
    }

    /// Installs `make()`'s stack as the default, unless one is already there.
    ///
    /// `make()` opens (and may migrate) the store without the slot's lock
    /// held: a migration step that calls the facade (`current()`,
    /// `isSetUp`) must not wait for itself, and another task reading the
    /// default stack must not wait for the whole migration. When another
    /// setup installed a stack meanwhile, the store opened here is closed and
    /// `.alreadySetUp` thrown, as when it was there from the start.
    static func install(_ make: () throws -> RecordStack) throws {
        // One slot for the whole setup, whatever `make()` does to task-locals.
        let slot = self.slot
        if let existing = slot.state.withLock({ $0.stack }) { throw alreadySetUpError(existing) }
        let stack = try make()
        let existing = slot.state.withLock { (state: inout Slot.State) -> RecordStack? in
            if let existing = state.stack { return existing }
            state.stack = stack
            state.wasCleanedUp = false
            return nil
        }
        if let existing {
            try? stack.close()
            throw alreadySetUpError(existing)
        }
    }

    private static func alreadySetUpError(_ existing: RecordStack) -> LiteRecordError {
        LiteRecordError(
            .alreadySetUp,
            "LiteRecord is already set up with \(existing.displayName); call RecordStack.cleanUp() before setting it up again")
    }

    // MARK: Setup

    /// Sets up the default stack with the store `<applicationName>.sqlite`.
    ///
    /// - Throws: see ``setup(storeNamed:entities:onModelMismatch:)``.
    public static func setup(entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail) throws {
        try setup(storeNamed: locator.defaultStoreName, entities: entities, onModelMismatch: onModelMismatch)
    }

    /// Sets up the default stack with the store called `name` (`.sqlite` is added
    /// when it has no extension), found by ``locator``.
    ///
    /// ```swift
    /// try RecordStack.setup(storeNamed: "Notes", entities: [Note.self, Tag.self])
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.alreadySetUp` when a default stack
    ///   exists, `.modelMismatch` when the store was written by another model,
    ///   `.invalidModel`, `.corruptStore` or `.storeUnavailable`.
    public static func setup(
        storeNamed name: String, entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        let url = resolveLogging(storeNamed: name)
        try install {
            try RecordStack(storeAt: url, entities: entities, onModelMismatch: onModelMismatch)
        }
    }

    /// Sets up the default stack with the store file at `url`.
    ///
    /// - Throws: see ``setup(storeNamed:entities:onModelMismatch:)``.
    public static func setup(
        storeAt url: URL, entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        try install {
            try RecordStack(storeAt: url, entities: entities, onModelMismatch: onModelMismatch)
        }
    }

    /// Sets up the default stack with an empty in-memory store.
    ///
    /// ```swift
    /// try RecordStack.setupInMemory(entities: [Note.self])
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.alreadySetUp` or `.invalidModel`.
    public static func setupInMemory(entities: [any Entity.Type]) throws {
        try install { try RecordStack(inMemoryWith: entities) }
    }

    /// Sets up the default stack with `<applicationName>.sqlite`, migrating it
    /// when it was written by an older model.
    ///
    /// - Throws: see ``setupAutoMigrating(storeNamed:entities:onModelMismatch:)``.
    public static func setupAutoMigrating(entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail) throws {
        try setupAutoMigrating(storeNamed: locator.defaultStoreName, entities: entities, onModelMismatch: onModelMismatch)
    }

    /// Sets up the default stack with the store called `name`, applying the
    /// inferred lightweight migration when it was written by an older model.
    ///
    /// ```swift
    /// try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: [Note.self])
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.migrationFailed` (with the reason;
    ///   the store is left as it was), `.alreadySetUp`, `.invalidModel`,
    ///   `.corruptStore` or `.storeUnavailable`.
    public static func setupAutoMigrating(
        storeNamed name: String, entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        let url = resolveLogging(storeNamed: name)
        try setupAutoMigrating(storeAt: url, entities: entities, onModelMismatch: onModelMismatch)
    }

    /// Sets up the default stack with the store file at `url`, migrating it when
    /// needed. See ``setupAutoMigrating(storeNamed:entities:onModelMismatch:)``.
    ///
    /// - Throws: ``LiteRecordError``, as ``setupAutoMigrating(storeNamed:entities:onModelMismatch:)``.
    public static func setupAutoMigrating(
        storeAt url: URL, entities: [any Entity.Type], onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        try install {
            try RecordStack(storeAt: url, entities: entities, migration: .automatic, onModelMismatch: onModelMismatch)
        }
    }

    /// Closes the default stack (after any running write finishes) and removes
    /// it, so that `setup…` may be called again. Does nothing when nothing is
    /// set up.
    ///
    /// ```swift
    /// try RecordStack.cleanUp()
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` when closing the store fails, or of kind
    ///   `.storeUnavailable` when called inside a `write` closure of the
    ///   default stack; then nothing is closed or removed (see ``close()``).
    public static func cleanUp() throws {
        let stack = try slot.state.withLock { state in try state.takeForCleanUp() }
        try stack?.close()
    }

    // MARK: Facade sugar

    /// The default stack's main context.
    ///
    /// Before setup (or after `cleanUp()`) this is a context whose every
    /// operation throws `.notSetUp`, so the mistake surfaces as an error at the
    /// first fetch or save rather than as a crash.
    @MainActor public static var mainContext: RecordContext {
        if let stack = try? current() { return stack.mainContext }
        return RecordContext(store: Store.unavailable(notSetUpError(wasCleanedUp: slot.state.withLock { $0.wasCleanedUp })))
    }

    /// ``write(_:)`` on the default stack.
    ///
    /// - Throws: `.notSetUp`, what `body` throws, or the save's error.
    public static func write<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        try await current().write(body)
    }

    /// ``read(_:)`` on the default stack.
    ///
    /// - Throws: `.notSetUp`, or what `body` throws.
    public static func read<T: Sendable>(_ body: @Sendable (RecordContext) throws -> T) async throws -> T {
        try await current().read(body)
    }

    /// Where the store called `name` is (or would be created) according to
    /// ``locator``.
    ///
    /// ```swift
    /// print(RecordStack.storeURL(forStoreNamed: "Notes").path)
    /// ```
    public static func storeURL(forStoreNamed name: String) -> URL {
        locator.url(forStoreNamed: name)
    }

    // MARK: Scoped defaults

    /// Runs `body` with `stack` as the default stack of this task and its child
    /// tasks, leaving the global default alone. `setup…` and `cleanUp()` inside
    /// `body` act on this scope only. The test traits of `LiteRecordTesting`
    /// are built on this. The scope starts with the enclosing ``locator``;
    /// setting `locator` inside it changes nothing outside.
    ///
    /// A `Task.detached` started in `body` is outside the scope (task-local
    /// values are not inherited by detached tasks): there the facade uses the
    /// global default, and `.notSetUp` says why when there is none.
    ///
    /// ```swift
    /// try await RecordStack.withDefault(try RecordStack(inMemoryWith: [Note.self])) {
    ///     try await Note.count()
    /// }
    /// ```
    ///
    /// - Throws: what `body` throws, unchanged.
    public static func withDefault<T>(
        _ stack: RecordStack?, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        runningScopes.add(1, ordering: .relaxed)
        defer { runningScopes.subtract(1, ordering: .relaxed) }
        return try await $taskSlot.withValue(slot.scoped(with: stack), operation: body, isolation: isolation)
    }

    /// The synchronous form of ``withDefault(_:_:)-(_,()->T)``.
    ///
    /// - Throws: what `body` throws, unchanged.
    public static func withDefault<T>(_ stack: RecordStack?, _ body: () throws -> T) rethrows -> T {
        runningScopes.add(1, ordering: .relaxed)
        defer { runningScopes.subtract(1, ordering: .relaxed) }
        return try $taskSlot.withValue(slot.scoped(with: stack)) { try body() }
    }
}

extension Store {
    /// A store that is never open: every access throws `error`.
    static func unavailable(_ error: LiteRecordError) -> Store {
        Store(unavailable: error)
    }
}
