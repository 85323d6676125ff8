import Foundation
import Logging
import Synchronization

/// One open store: a SQLite file (or in-memory database), its model, and the
/// connection every context of the stack goes through.
///
/// Every use of the connection is serialized by `lock`. The lock is recursive
/// because a write transaction runs user code (a `write` closure) that may
/// fetch through the same connection on the same thread.
final class Store: @unchecked Sendable {
    // @unchecked: `connection` is only touched while `lock` is held, which
    // serializes all access; `movedAsideFiles` and `migrationReport` are only
    // written during init; every other stored property is immutable or a lock (`Locked`).
    enum Location: Sendable, Equatable {
        case file(URL)
        case memory
    }

    let location: Location
    let model: Model
    /// Opened with `readOnly: true`: reads only, every write is refused with
    /// `.readOnlyStore`, and the file is never changed.
    let isReadOnly: Bool
    /// Whether LiteRecord checkpoints the WAL (``CheckpointPolicy``).
    let checkpoints: CheckpointPolicy
    /// The library's logger at the current ``RecordStack/logLevel``, read on
    /// each use so that a level set while the store is open takes effect.
    var logger: Logger { LogSettings.current }
    private let lock = NSRecursiveLock()
    /// The ``ThreadIdentity`` of the thread holding `lock`, 0 when none: a
    /// thread reading its own identity here is inside a write (or another
    /// use of the writer) on this store.
    private let lockOwner = Atomic<UInt>(0)
    /// How many times the owner took `lock`. Guarded by `lock`.
    private var lockDepth = 0
    private var connection: Connection?
    private let observers = SQLObservers()
    /// Reader connections for WAL file stores; in-memory stores read through
    /// the writer connection (a private in-memory database has only one).
    private(set) var readers: ReaderPool?
    /// Subscribers of ``ChangeSet``s, fed in commit order.
    let changes = ChangeBroadcaster()
    /// The observed queries of this store (`RecordContext.observe`).
    let observations: ObservationCenter
    /// Change sets recorded by saves inside the open write transaction; they
    /// are published as one when the outermost transaction commits. Guarded by `lock`.
    private var pendingChanges: [ChangeSet] = []
    /// Paths of files moved aside at open, when the model did not match.
    private(set) var movedAsideFiles: [URL] = []
    /// What the migration run at open did, if one ran.
    private(set) var migrationReport: MigrationReport?
    /// What every access throws when the store was never opened (the facade's
    /// placeholder before setup).
    let unavailableError: LiteRecordError?

    var url: URL? {
        if case .file(let url) = location { url } else { nil }
    }

    /// A human-readable name for messages: the path, or "in-memory store".
    var displayName: String { url?.path ?? "in-memory store" }

    init(
        location: Location, model: Model, migration: MigrationMode, onMismatch: ModelMismatchPolicy,
        readOnly: Bool = false, checkpoints: CheckpointPolicy = .automatic
    ) throws(LiteRecordError) {
        self.location = location
        self.model = model
        self.unavailableError = nil
        self.isReadOnly = readOnly
        self.checkpoints = checkpoints
        if case .file(let url) = location {
            observations = ObservationCenter(path: url.resolvingSymlinksInPath().path)
        } else {
            observations = ObservationCenter(path: nil)
        }
        if readOnly {
            connection = try openReadOnly()
            return
        }
        if case .file(let url) = location {
            let creation = try StoreFileCreation.prepare(url)
            do {
                connection = try openWritable(migration: migration, onMismatch: onMismatch)
            } catch {
                // A store that could not be created must not be left behind: the
                // next open would take the empty file for a new, empty store.
                // The file at `url` is this open's when there was none before or
                // the old one was moved aside.
                creation.removeLeftovers(after: error, fileIsNew: !creation.fileExisted || !movedAsideFiles.isEmpty)
                throw error
            }
        } else {
            connection = try openWritable(migration: migration, onMismatch: onMismatch)
        }
        if url != nil && checkpoints == .leftToReplicator, let connection {
            do {
                // Commits never checkpoint: the replicator copies WAL frames
                // before it folds them into the main file itself.
                try withStoreErrorContext("opening the store at \(displayName)") {
                    try connection.execute("PRAGMA wal_autocheckpoint = 0")
                }
            } catch {
                connection.close()
                self.connection = nil
                throw error
            }
        }
        if url != nil {
            let mappedSize = MemoryMapping.readSize.load(ordering: .relaxed)
            readers = ReaderPool(maximumCount: 4, open: { [weak self] () throws(LiteRecordError) -> Connection in
                guard let self else { throw LiteRecordError(.storeUnavailable, "the store was released") }
                let reader = try self.openReader()
                do throws(LiteRecordError) {
                    try withErrorContext("opening a reader") {
                        // A reader never writes; make SQLite enforce it.
                        try reader.execute("PRAGMA query_only = ON")
                        if mappedSize > 0 { try reader.execute("PRAGMA mmap_size = \(mappedSize)") }
                    }
                } catch {
                    reader.close()
                    throw error
                }
                return reader
            })
        }
    }

    init(unavailable error: LiteRecordError) {
        isReadOnly = false
        checkpoints = .automatic
        location = .memory
        model = Model()
        unavailableError = error
        observations = ObservationCenter(path: nil)
    }

    deinit {
        connection?.close()
    }

    /// Opens a reader connection. It never creates the file: when the store
    /// was moved or deleted while the stack is open, a read fails instead of
    /// leaving an empty database at the path for the next open to take as a
    /// new store.
    private func openReader() throws(LiteRecordError) -> Connection {
        do {
            return try openConnection(Connection.OpenOptions(create: false))
        } catch {
            if let url, !FileManager.default.fileExists(atPath: url.path) {
                throw LiteRecordError(
                    .storeUnavailable,
                    "opening a reader of \(url.path) failed: the file is no longer there (it was moved or deleted while the stack was open); no file was created. Close the stack and open the store again")
            }
            throw error
        }
    }

    /// Opens the writer connection and checks the store against the model
    /// (creating, migrating or moving it aside); the connection is closed
    /// again when that fails.
    private func openWritable(migration: MigrationMode, onMismatch: ModelMismatchPolicy) throws(LiteRecordError) -> Connection {
        var connection = try openConnection()
        do {
            try prepare(connection, migration: migration)
        } catch let error where error.kind == .modelMismatch && onMismatch == .moveAsideAndRecreate && url != nil {
            movedAsideFiles = try moveAside(closing: connection)
            logger.warning("store did not match the model; moved aside", metadata: ["files": "\(movedAsideFiles.map(\.path))"])
            connection = try openConnection()
            do {
                try prepare(connection, migration: .none)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    func openConnection(_ options: Connection.OpenOptions = .init()) throws(LiteRecordError) -> Connection {
        let connection: Connection
        do {
            let observers = self.observers
            connection = try Connection(
                path: url?.path, options: options, trace: makeTraceHandler(),
                traceFilter: { LogSettings.tracesSQL || observers.isObserved })
            // Predicates translate to SQL that relies on these collations and functions.
            try SQLFunctions.install(on: connection)
            // Any connection may be the last to close, and the last one checkpoints.
            if checkpoints == .leftToReplicator { try connection.setCheckpointOnClose(false) }
        } catch {
            throw LiteRecordError.wrap(error, "opening the store at \(displayName)")
        }
        return connection
    }

    private func makeTraceHandler() -> Connection.TraceHandler {
        let observers = self.observers
        return { sql, nanoseconds in
            if LogSettings.tracesSQL {
                LogSettings.current.trace("\(sql)", metadata: ["ms": "\(Double(nanoseconds) / 1_000_000)"])
            }
            observers.notify(sql)
        }
    }

    /// How many times an open plans a migration again because another
    /// connection committed between planning and the write lock.
    private static let migrationAttempts = 10

    /// Checks the store against the model: creates a new store's schema,
    /// accepts a matching one, migrates or refuses a different one. A
    /// migration that another connection overtook (it committed while this
    /// one was planning, perhaps the same migration) is decided again from
    /// what the store now holds.
    private func prepare(_ connection: Connection, migration: MigrationMode) throws(LiteRecordError) {
        for _ in 0..<Self.migrationAttempts {
            if try prepareOnce(connection, migration: migration) { return }
        }
        throw LiteRecordError(
            .migrationFailed,
            "other connections kept changing \(displayName) while it was being migrated (\(Self.migrationAttempts) attempts); nothing was migrated, open the store again to retry")
    }

    /// One attempt of ``prepare(_:migration:)``: `false` when a migration was
    /// overtaken and nothing was written.
    private func prepareOnce(_ connection: Connection, migration: MigrationMode) throws(LiteRecordError) -> Bool {
        return try withStoreErrorContext("opening the store at \(displayName)") {
            try connection.execute("PRAGMA foreign_keys = ON")
            // Read what the file holds before anything writes to it, so a refused
            // store stays byte-identical.
            let stored = try connection.storedModel()
            switch stored {
            case .empty:
                try enableWAL(connection)
                // Another process may be creating the same new store: decide again
                // under the write lock, and read what it wrote if it got there first.
                let created = try connection.transaction { () throws -> Bool in
                    guard case .empty = try connection.storedModel() else { return false }
                    try connection.createSchema(for: model)
                    // A plan's steps move older data forward; a new store has none,
                    // so they count as done and never run on it later.
                    if case .plan(let plan) = migration {
                        try plan.validate()
                        for step in plan.steps { try connection.recordStepRan(step.name) }
                    }
                    return true
                }
                if created {
                    logger.info("created store", metadata: ["store": "\(displayName)", "model": "\(model.fingerprint)"])
                    return true
                }
                return try prepareOnce(connection, migration: migration)
            case .foreign(let tables):
                throw LiteRecordError(
                    .modelMismatch,
                    "\(displayName) is a SQLite database that LiteRecord did not create (tables: \(tables.joined(separator: ", "))); it was left untouched")
            case .model(let fingerprint, let schema):
                if fingerprint == model.fingerprint && schema.canonicalText == model.schema.canonicalText {
                    try enableWAL(connection)
                    try upgradeFormat(connection)
                    // Steps added to a plan without a model change still run, once.
                    if case .plan(let plan) = migration, try !connection.pendingSteps(of: plan).isEmpty {
                        return try migrate(connection, stored: schema, plan: plan)
                    }
                    return true
                }
                return try handleMismatch(connection, stored: schema, migration: migration)
            }
        }
    }

    /// Adds what a store written by an earlier LiteRecord lacks (the version
    /// column of each table, this LiteRecord's full-text triggers). It belongs
    /// to the library, not to the model, so every setup does it, migrating or
    /// not; a migration does it as its first step (``Migrator``).
    private func upgradeFormat(_ connection: Connection) throws {
        guard try connection.storeNeedsUpgrade() else { return }
        let added = try connection.transaction {
            try connection.upgradeStoreFormat(tables: model.entities.map(\.tableName))
        }
        if !added.isEmpty {
            logger.info("added row versions", metadata: ["store": "\(displayName)", "tables": "\(added)"])
        }
    }

    /// Refuses or migrates a store written by another model; `false` when
    /// the migration was overtaken (see ``Migrator/run(_:)``).
    private func handleMismatch(_ connection: Connection, stored: ModelSchema, migration: MigrationMode) throws -> Bool {
        let changes = stored.changes(to: model.schema)
        switch migration {
        case .none:
            let summary = changes.isEmpty ? "the model fingerprints differ" : changes.summary
            // A removal is as likely a slip in the entity list as a decision, so
            // the advice is the declaration, never a setup that would infer it.
            let advice = changes.removalAdvice
                ?? "Use setupAutoMigrating (or migration: .automatic) to migrate it"
            throw LiteRecordError(
                .modelMismatch,
                "\(displayName) was written by a different model:\n\(summary)\n\(advice), or onModelMismatch: .moveAsideAndRecreate to start over; the store was left untouched")
        case .automatic:
            return try migrate(connection, stored: stored, plan: nil)
        case .plan(let plan):
            return try migrate(connection, stored: stored, plan: plan)
        }
    }

    /// Plans and runs a migration; `false` when another connection committed
    /// while it was planned, so that nothing was written and it must be
    /// planned again.
    private func migrate(_ connection: Connection, stored: ModelSchema, plan: MigrationPlan?) throws -> Bool {
        let migrator = Migrator(connection: connection, store: self, from: stored, to: model, plan: plan)
        // Decided by reading only: a refused migration must leave the file
        // byte-identical, so even the journal mode is set only afterwards.
        let work = try migrator.prepare()
        try enableWAL(connection)
        Migrator.afterPlanning?()
        guard let report = try migrator.run(work) else { return false }
        migrationReport = report
        return true
    }

    private func enableWAL(_ connection: Connection) throws {
        guard url != nil else { return }
        // WAL lets readers run beside the writer; NORMAL sync is safe in WAL mode
        // (https://sqlite.org/pragma.html#pragma_synchronous).
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
    }

    /// Renames the store file and its `-journal`/`-wal`/`-shm` companions
    /// with a timestamp suffix, keeping them next to their renamed main file,
    /// then closes `connection` (the one that found the mismatch).
    ///
    /// Only when no other connection has the store open: another stack or
    /// process would otherwise go on writing to the renamed file while this
    /// one starts a new store at the path. `connection` takes an exclusive
    /// lock first (`locking_mode = EXCLUSIVE` and `BEGIN EXCLUSIVE`, which in
    /// WAL mode fails while any other connection has the file open) and holds
    /// it while the files are renamed; the renamed files are not changed.
    private func moveAside(closing connection: Connection) throws(LiteRecordError) -> [URL] {
        defer { connection.close() }
        guard let url else { return [] }
        do {
            // Another connection that has the store open will not let go
            // within the usual busy timeout: say so now.
            try connection.execute("PRAGMA busy_timeout = 100")
            try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
            try connection.execute("BEGIN EXCLUSIVE TRANSACTION")
        } catch {
            let sqlite = error as? SQLiteError
            guard sqlite?.isBusy == true else {
                throw LiteRecordError.wrap(error, "moving \(url.path) aside", store: url.path)
            }
            throw LiteRecordError(
                .storeUnavailable,
                "\(url.path) does not match the model but was not moved aside: another connection has it open (another stack in this process, or another process). Close it and open the store again; nothing was moved or changed",
                sqlite: sqlite)
        }
        // Closing a connection deletes the -wal and -shm by name; after the
        // rename those names may belong to the new store.
        connection.keepWALFilesOnClose()
        defer { try? connection.execute("ROLLBACK TRANSACTION") }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = url.path + ".mismatch-" + formatter.string(from: Date())
        var target = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: target) {
            attempt += 1
            target = "\(base)-\(attempt)"
        }
        var moved: [URL] = []
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            do {
                try FileManager.default.moveItem(atPath: url.path + suffix, toPath: target + suffix)
                moved.append(URL(fileURLWithPath: target + suffix))
            } catch {
                throw LiteRecordError(.storeUnavailable, "cannot move \(url.path + suffix) aside: \(error.localizedDescription)")
            }
        }
        return moved
    }

    // MARK: Access

    private func acquireLock() {
        lock.lock()
        if lockDepth == 0 { lockOwner.store(ThreadIdentity.current, ordering: .relaxed) }
        lockDepth += 1
    }

    private func tryAcquireLock() -> Bool {
        guard lock.try() else { return false }
        if lockDepth == 0 { lockOwner.store(ThreadIdentity.current, ordering: .relaxed) }
        lockDepth += 1
        return true
    }

    private func releaseLock() {
        lockDepth -= 1
        if lockDepth == 0 { lockOwner.store(0, ordering: .relaxed) }
        lock.unlock()
    }

    /// Whether the calling thread holds the writer: it runs inside a write
    /// (a `write` closure, or code a save runs) on this store. Only the owner
    /// stores its own identity, so the answer is exact for the caller.
    var isWriterHeldByCurrentThread: Bool {
        lockOwner.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// Runs `body` with exclusive use of the connection. SQLite errors become
    /// ``LiteRecordError``s for `operation`; other errors (the caller's own,
    /// thrown from a `write` or `read` closure) pass through unchanged.
    func withConnectionPassingErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        acquireLock()
        defer { releaseLock() }
        guard let connection else {
            throw unavailableError
                ?? LiteRecordError(.storeUnavailable, "\(operation()) failed: the store \(displayName) is closed")
        }
        do {
            return try body(connection)
        } catch let error as SQLiteError {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        } catch let error as LiteRecordError {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        }
    }

    /// Runs `body`, turning any error into a ``LiteRecordError`` for
    /// `operation` that names the store's file.
    func withStoreErrorContext<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(LiteRecordError) -> T {
        do {
            return try body()
        } catch {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), or inside a
    /// savepoint when a transaction is already open on this thread. Errors are
    /// treated as in ``withConnectionPassingErrors(_:_:)``.
    func writePassingErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        if isReadOnly {
            throw LiteRecordError(
                .readOnlyStore,
                "\(operation()) failed: the store at \(displayName) was opened read-only (readOnly: true); nothing was written")
        }
        return try withConnectionPassingErrors(operation()) { connection in
            if connection.isInTransaction {
                let mark = pendingChanges.count
                do {
                    return try connection.savepoint("literecord_nested") { try body(connection) }
                } catch {
                    pendingChanges.removeSubrange(mark...)
                    throw error
                }
            }
            pendingChanges.removeAll()
            let result: T
            do {
                result = try connection.transaction(.immediate) { try body(connection) }
            } catch {
                pendingChanges.removeAll()
                throw error
            }
            // Still under the lock: subscribers see change sets in commit order.
            let committed = ChangeSet(merging: pendingChanges)
            pendingChanges.removeAll()
            if !committed.isEmpty {
                changes.publish(committed)
                observations.publishCommit(committed)
            }
            return result
        }
    }

    /// Records what a save wrote inside the current write transaction; it is
    /// published when the outermost transaction commits, dropped if it rolls back.
    /// Must be called from inside a `write` body.
    func noteCommitted(_ changeSet: ChangeSet) {
        if !changeSet.isEmpty { pendingChanges.append(changeSet) }
    }

    /// ``withConnectionPassingErrors(_:_:)`` for library code: every error
    /// becomes a ``LiteRecordError``.
    func withConnection<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try withStoreErrorContext(operation()) { try withConnectionPassingErrors(operation(), body) }
    }

    /// ``writePassingErrors(_:_:)`` for library code: every error becomes a
    /// ``LiteRecordError``.
    func write<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try withStoreErrorContext(operation()) { try writePassingErrors(operation(), body) }
    }

    /// Whether the store is open.
    var isOpen: Bool {
        acquireLock()
        defer { releaseLock() }
        return connection != nil
    }

    /// Closes the connection after any running operation of another thread
    /// finishes. Closing the last connection checkpoints the WAL into the
    /// main file.
    ///
    /// - Throws: `.storeUnavailable` when called from inside a write on this
    ///   store (see ``refuseCloseInsideWrite()``; nothing is closed), or when
    ///   the final checkpoint failed (a full disk, an I/O error). The store is
    ///   closed all the same then, and every saved change is safe in the
    ///   `-wal` file: the next open reads it from there and checkpoints it.
    func close() throws(LiteRecordError) {
        try refuseCloseInsideWrite()
        acquireLock()
        defer { releaseLock() }
        readers?.close()
        var failure: LiteRecordError?
        if let connection, url != nil, !isReadOnly, checkpoints == .automatic {
            failure = finalCheckpoint(connection)
        }
        connection?.close()
        connection = nil
        changes.finish()
        observations.finish()
        if let failure { throw failure }
    }

    /// Throws when the calling thread is inside a write on this store. Closing
    /// there would close the connection under the write's own transaction
    /// (SQLite cannot checkpoint a file its own connection is writing, and
    /// the write would be rolled back), and waiting for the write instead
    /// would wait for itself.
    func refuseCloseInsideWrite() throws(LiteRecordError) {
        guard isWriterHeldByCurrentThread else { return }
        throw LiteRecordError(
            .storeUnavailable,
            "close() was called inside a write on \(displayName) (a write {} closure, or code that a save runs) and was refused: the write cannot finish while its own code waits for it to finish. Nothing was closed and the write goes on; call close() after write returns")
    }

    /// Copies the WAL into the main file before the last connection closes.
    /// `sqlite3_close` does the same but cannot report a failure, so the
    /// checkpoint runs here first, where its error is seen; PASSIVE never waits
    /// for another process's readers (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
    private func finalCheckpoint(_ connection: Connection) -> LiteRecordError? {
        do {
            try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            return nil
        } catch {
            let cause = (error as? SQLiteError)?.message ?? "\(error)"
            return LiteRecordError(
                .storeUnavailable,
                "closing the store at \(displayName): the final checkpoint failed (\(cause)); every saved change is safe in \(displayName)-wal and is read from there and checkpointed when the store is next opened",
                sqlite: error as? SQLiteError)
        }
    }

    /// Runs `body` on a reader connection from the pool (or the writer
    /// connection of an in-memory store). Errors are treated as in
    /// ``withConnectionPassingErrors(_:_:)``.
    func withReaderPassingErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        guard let readers else { return try withConnectionPassingErrors(operation(), body) }
        if let unavailableError { throw unavailableError }
        // A thread inside a write never waits for a reader: readers that wait
        // for the writer (a `read` closure that saves) would wait for it in turn.
        let reader = try readers.acquire("\(operation()) in \(displayName)", mayWait: !isWriterHeldByCurrentThread)
        defer { readers.release(reader) }
        do {
            return try body(reader)
        } catch let error as SQLiteError {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        } catch let error as LiteRecordError {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        }
    }

    /// The writer connection's `PRAGMA data_version`: it changes when another
    /// connection (another process, or another stack of this process) commits
    /// to the file, never for this store's own commits, which reach
    /// observers directly (https://sqlite.org/pragma.html#pragma_data_version).
    /// `nil` when the store is closed, or busy and `wait` is false.
    func dataVersion(wait: Bool) -> Int64? {
        if wait { acquireLock() } else if !tryAcquireLock() { return nil }
        defer { releaseLock() }
        guard let connection, !connection.isInTransaction,
            case .integer(let version)? = try? connection.scalar("PRAGMA data_version")
        else { return nil }
        return version
    }

    // MARK: Observing SQL

    /// Calls `observer` with every statement run on this store until the
    /// returned token is passed to ``removeObserver(_:)``.
    func addObserver(_ observer: @escaping @Sendable (String) -> Void) -> UInt64 {
        observers.add(observer)
    }

    func removeObserver(_ token: UInt64) {
        observers.remove(token)
    }
}

/// The statement observers of a store, callable from SQLite's trace callback
/// on whichever thread runs the statement.
final class SQLObservers: Sendable {
    private let state = Locked<(next: UInt64, observers: [UInt64: @Sendable (String) -> Void])>((0, [:]))
    /// How many observers there are, readable without taking the lock.
    private let count = Atomic<Int>(0)

    /// Whether anyone listens; checked for every statement.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    func add(_ observer: @escaping @Sendable (String) -> Void) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            count.store(state.observers.count, ordering: .relaxed)
            return state.next
        }
    }

    func remove(_ token: UInt64) {
        state.withLock { state in
            state.observers.removeValue(forKey: token)
            count.store(state.observers.count, ordering: .relaxed)
        }
    }

    func notify(_ sql: String) {
        let current = state.withLock { $0.observers.isEmpty ? [] : Array($0.observers.values) }
        for observer in current { observer(sql) }
    }
}
