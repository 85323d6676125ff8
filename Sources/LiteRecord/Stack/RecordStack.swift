import Synchronization
public import Foundation
import Logging

/// A store and its contexts: what `RecordStack.setup…` creates for you, and
/// what you create yourself when you need several stores or explicit options.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: [Note.self], migration: .automatic)
/// let count = try await stack.read { context in try Note.count(in: context) }
/// try stack.close()
/// ```
///
/// A stack is `Sendable`: share it between tasks freely. Its contexts are not;
/// the main context belongs to the main actor and `write`/`read` hand a fresh
/// context to their closure. The entity conveniences without `in:` use the
/// main context, so they are `@MainActor`; off the main actor, pass a context.
/// The "Common compiler errors" section of `Docs/GettingStarted.md` shows the
/// messages these rules produce and the fix for each.
public final class RecordStack: Sendable {
    let store: Store
    private let main: MainContextBox
    let writeQueue = WriteQueue()

    /// Opens (or creates) the store file at `url` for `entities`.
    ///
    /// - Parameters:
    ///   - url: the store file; it is created, with its folder, when missing.
    ///   - entities: the entity types of the model.
    ///   - migration: `.none` (the default) refuses a store written by another
    ///     model; `.automatic` applies the inferred lightweight migration;
    ///     `.plan(_:)` adds custom steps.
    ///   - onModelMismatch: `.fail` (the default) throws `.modelMismatch`;
    ///     `.moveAsideAndRecreate` renames the old file and starts empty.
    /// - Throws: ``LiteRecordError`` of kind `.modelMismatch`, `.migrationFailed`,
    ///   `.invalidModel`, `.corruptStore` or `.storeUnavailable`.
    public convenience init(
        storeAt url: URL,
        entities: [any Entity.Type],
        migration: MigrationMode = .none,
        onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        try self.init(
            storeAt: url, entities: entities, migration: migration, onModelMismatch: onModelMismatch,
            checkpoints: .automatic)
    }

    /// Opens (or creates) the store file at `url` for `entities`, choosing who
    /// checkpoints its write-ahead log: pass `.leftToReplicator` for a store
    /// that Litestream replicates (`Docs/Deployment.md`).
    ///
    /// ```swift
    /// let stack = try RecordStack(
    ///     storeAt: url, entities: [Note.self], migration: .automatic, onModelMismatch: .fail,
    ///     checkpoints: .leftToReplicator)
    /// ```
    ///
    /// - Parameters:
    ///   - url: the store file; it is created, with its folder, when missing.
    ///   - entities: the entity types of the model.
    ///   - migration: as in ``init(storeAt:entities:migration:onModelMismatch:)``.
    ///   - onModelMismatch: as in ``init(storeAt:entities:migration:onModelMismatch:)``.
    ///   - checkpoints: `.automatic` (what the other initializers do) or
    ///     `.leftToReplicator`: no automatic checkpoint, none in ``close()``.
    /// - Throws: ``LiteRecordError`` of kind `.modelMismatch`, `.migrationFailed`,
    ///   `.invalidModel`, `.corruptStore` or `.storeUnavailable`.
    public convenience init(
        storeAt url: URL,
        entities: [any Entity.Type],
        migration: MigrationMode,
        onModelMismatch: ModelMismatchPolicy,
        checkpoints: CheckpointPolicy
    ) throws {
        let model = try Model(entities: entities)
        let store = try Store(
            location: .file(url.standardizedFileURL), model: model,
            options: StoreOpenOptions(
                migration: migration, onMismatch: onModelMismatch, checkpoints: checkpoints,
                memoryMappedReadSize: Self.memoryMappedReadSize))
        self.init(store: store)
    }

    /// Opens the existing store file at `url` for reading only.
    ///
    /// Fetches, counts and `read` work as usual; `save()`, `write` and the
    /// set-based deletes throw `.readOnlyStore`, and the file is never changed:
    /// no folder or file is created, nothing is migrated, no checkpoint runs.
    /// A store on read-only media or in a folder you cannot write opens too.
    /// When nothing else has the store open (no `-wal`/`-shm` beside it), it is
    /// opened without creating them, and changes another process makes while
    /// this stack is open are not seen; open it read-write to follow those.
    ///
    /// ```swift
    /// let stack = try RecordStack(storeAt: url, entities: [Note.self], readOnly: true)
    /// let notes = try Note.findAll(in: stack.newContext())
    /// try stack.close()
    /// ```
    ///
    /// - Parameters:
    ///   - url: the store file; it must exist when `readOnly` is `true`.
    ///   - entities: the entity types of the model.
    ///   - readOnly: `true` for a read-only stack; `false` opens it as
    ///     ``init(storeAt:entities:migration:onModelMismatch:)`` does.
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` (no such file,
    ///   a folder, an empty file), `.corruptStore` (not a database, damaged),
    ///   `.modelMismatch` (written by another model: a read-only stack cannot
    ///   migrate) or `.invalidModel`.
    public convenience init(storeAt url: URL, entities: [any Entity.Type], readOnly: Bool) throws {
        guard readOnly else {
            try self.init(storeAt: url, entities: entities)
            return
        }
        let model = try Model(entities: entities)
        let store = try Store(
            location: .file(url.standardizedFileURL), model: model,
            options: StoreOpenOptions(readOnly: true))
        self.init(store: store)
    }

    /// Whether the stack was opened with `readOnly: true`.
    public var isReadOnly: Bool { store.isReadOnly }

    /// Creates an empty in-memory store for `entities`; it disappears when the
    /// stack is closed or released.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidModel`.
    public convenience init(inMemoryWith entities: [any Entity.Type]) throws {
        let model = try Model(entities: entities)
        let store = try Store(location: .memory, model: model)
        self.init(store: store)
    }

    init(store: Store) {
        self.store = store
        self.main = MainContextBox()
    }

    /// The store file, or `nil` for an in-memory store.
    public var storeURL: URL? { store.url }
    /// The model the stack was opened with.
    public var model: Model { store.model }
    /// Whether the stack is still open.
    public var isOpen: Bool { store.isOpen }
    /// The files moved aside because the store did not match the model
    /// (`onModelMismatch: .moveAsideAndRecreate`); empty otherwise.
    public var movedAsideFiles: [URL] { store.movedAsideFiles }

    /// A name for messages: the store's path or "in-memory store".
    var displayName: String { store.displayName }

    /// The context for the main actor: what UI code and the entity
    /// conveniences without `in:` use. Background writes are merged into it.
    @MainActor public var mainContext: RecordContext {
        main.context(for: store)
    }

    /// A new context of your own, for code that is neither on the main actor nor
    /// inside `write`/`read`. It must stay in the isolation domain that made it.
    ///
    /// A context made on the main actor is observable
    /// (``RecordContext/isObservable``), as the main context is; one made
    /// elsewhere is not, unless you set it.
    ///
    /// - Parameter isolation: the caller's isolation, filled in by the
    ///   compiler; leave it out.
    public func newContext(isolation: isolated (any Actor)? = #isolation) -> RecordContext {
        let onMainActor = isolation.map { ObjectIdentifier($0) == ObjectIdentifier(MainActor.shared) } ?? false
        return RecordContext(store: store, isObservable: onMainActor)
    }

    /// Closes the store once a write running in another task finishes.
    /// Contexts still around throw `.storeUnavailable` afterwards.
    ///
    /// Closing copies the write-ahead log into the main file (a checkpoint),
    /// unless the stack was opened with `checkpoints: .leftToReplicator`.
    ///
    /// Called from inside a `write` closure of this stack (or from code a
    /// save runs, such as `validateForSave()`), it would wait for the write
    /// it is part of, so it throws instead: nothing is closed, and the write
    /// goes on and commits as if `close()` had not been called. Close after
    /// `write` returns.
    ///
    /// ```swift
    /// try await stack.write { context in Note.create(in: context).title = "Last" }
    /// try stack.close()
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` when called
    ///   inside a write of this stack (nothing closed), or when the final
    ///   checkpoint failed (a full disk, an I/O error). In the second case the
    ///   stack is closed all the same and nothing saved is lost: every saved
    ///   change is in the store's `-wal` file, which the next open reads and
    ///   checkpoints.
    public func close() throws {
        try store.close()
    }

    // MARK: Observing SQL

    /// Runs `body` and returns, with its result, every SQL statement run on this
    /// stack meanwhile (without bound values). Statements run by other tasks on
    /// the same stack at the same time are included too, every one that
    /// starts after the recording does, a save or read already under way
    /// included.
    ///
    /// ```swift
    /// let (_, statements) = try stack.recordingSQL { try context.save() }
    /// #expect(statements.isEmpty)
    /// ```
    ///
    /// - Throws: what `body` throws, unchanged.
    public func recordingSQL<T>(_ body: () throws -> T) rethrows -> (result: T, statements: [String]) {
        let recorder = StatementRecorder()
        let token = store.addObserver { recorder.append($0) }
        defer { store.removeObserver(token) }
        let result = try body()
        return (result, recorder.statements)
    }

    /// The async form of ``recordingSQL(_:)``.
    ///
    /// - Throws: what `body` throws, unchanged.
    public func recordingSQL<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> (result: T, statements: [String]) {
        let recorder = StatementRecorder()
        let token = store.addObserver { recorder.append($0) }
        defer { store.removeObserver(token) }
        let result = try await body()
        return (result, recorder.statements)
    }
}

/// Holds the lazily created main context.
private final class MainContextBox: @unchecked Sendable {
    // @unchecked: `context` is only read and written from `context(for:)`, which
    // is @MainActor, so all access is serialized on the main actor.
    private var context: RecordContext?
    /// Whether `context` was made, readable from any thread.
    private let made = Atomic<Bool>(false)

    @MainActor func context(for store: Store) -> RecordContext {
        if let context { return context }
        let context = RecordContext(store: store, isObservable: true)
        self.context = context
        made.store(true, ordering: .releasing)
        return context
    }

    /// Whether the main context exists (it is made on first use).
    var wasMade: Bool { made.load(ordering: .acquiring) }

    @MainActor var existing: RecordContext? { context }
}

extension RecordStack {
    /// The main context if it has been created, for merging.
    @MainActor var existingMainContext: RecordContext? { main.existing }

    /// Whether the main context has been created, from any thread.
    var hasMainContext: Bool { main.wasMade }
}

import Synchronization

/// Collects statements reported from any thread.
final class StatementRecorder: Sendable {
    private let storage = Locked<[String]>([])
    func append(_ sql: String) { storage.withLock { $0.append(sql) } }
    var statements: [String] { storage.withLock { $0 } }
}
