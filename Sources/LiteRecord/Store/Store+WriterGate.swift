import Foundation
import Synchronization

extension Store {
    // MARK: Access

    /// Whether the calling thread holds the writer: it runs inside a write
    /// (a `write` closure, or code a save runs) on this store
    /// (``WriterGate/isHeldByCurrentThread``).
    var isWriterHeldByCurrentThread: Bool { gate.isHeldByCurrentThread }

    /// Runs `body` holding the writer gate, with the state only its holder
    /// touches and the writer connection. SQLite errors become
    /// ``LiteRecordError``s for `operation`; other errors (the caller's own,
    /// thrown from a `write` or `read` closure) pass through unchanged.
    func withWriter<T>(
        _ operation: @autoclosure () -> String, _ body: (WriterState, Connection) throws -> T
    ) throws -> T {
        gate.acquire()
        defer { gate.release() }
        let state = gate.state
        guard let connection = try replicaWatcher == nil ? state.connection : replicaConnection() else {
            throw unavailableError
                ?? LiteRecordError(.storeUnavailable, "\(operation()) failed: the store \(displayName) is closed")
        }
        connection.armTraceIfListened()
        return try attributingStoreErrors(operation()) {
            guard replicaWatcher != nil && !connection.isInTransaction else { return try body(state, connection) }
            try followReplica(connection)
            return try readingReplica(connection) { try body(state, $0) }
        }
    }

    /// Runs `body` with exclusive use of the connection: ``withWriter(_:_:)``
    /// for code that needs the connection only.
    func withConnectionPassingCallerErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        try withWriter(operation()) { _, connection in try body(connection) }
    }

    /// The error a write to a read-only or replica store throws: for a
    /// replica `.storeUnavailable` naming it (Docs/Internals/Invariants.md,
    /// "A replica never writes"), else `.readOnlyStore`.
    func refusedWrite(_ operation: String) -> LiteRecordError {
        if let replicaURL {
            return LiteRecordError(
                .storeUnavailable,
                "\(operation) failed: \(displayName) is a read replica (RecordStack(replicaAt:)), which is never written; write to its primary store, which Litestream replicates to \(replicaURL.absoluteString)"
            )
        }
        return LiteRecordError(
            .readOnlyStore,
            "\(operation) failed: the store at \(displayName) was opened read-only (readOnly: true); nothing was written")
    }

    // MARK: Errors
    //
    // One idea, two strengths: an error from the store is attributed to the
    // operation that met it and to the store's file. Library code attributes
    // every error (`attributingErrors`, and `withConnection`/`write` below);
    // code running a caller's closure attributes only the store's errors
    // (`attributingStoreErrors`, and the `…PassingCallerErrors` functions), so
    // the caller's own errors reach the caller unchanged.

    /// Runs `body`, turning any error into a ``LiteRecordError`` for
    /// `operation` that names the store's file.
    func attributingErrors<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(LiteRecordError) -> T {
        do {
            return try body()
        } catch {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        }
    }

    /// Runs `body`, turning SQLite's errors and the library's own into
    /// ``LiteRecordError``s for `operation` that name the store's file; any
    /// other error (the caller's own) passes through unchanged.
    func attributingStoreErrors<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch  where error is SQLiteError || error is LiteRecordError {
            throw LiteRecordError.wrap(error, operation(), store: url?.path)
        }
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), or inside a
    /// savepoint when a transaction is already open on this thread. Errors are
    /// treated as in ``withConnectionPassingCallerErrors(_:_:)``.
    func writePassingCallerErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        if isReadOnly { throw refusedWrite(operation()) }
        return try withWriter(operation()) { state, connection in
            if connection.isInTransaction { return try inSavepoint(state, connection, body) }
            return try inTransaction(state, connection, body)
        }
    }

    /// A write nested in the open transaction: a savepoint, whose rollback
    /// takes back what the participants noted since it began.
    private func inSavepoint<T>(_ state: WriterState, _ connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        let mark = state.mark
        do {
            return try connection.savepoint("literecord_nested") { try body(connection) }
        } catch {
            state.rollback(to: mark)
            throw error
        }
    }

    /// The outermost write: one transaction, whose participants commit with
    /// it — the change audit and the history inside it, the change sets
    /// published after it, still under the gate — or roll back with it.
    private func inTransaction<T>(_ state: WriterState, _ connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        // Drops what writes outside a transaction left (the audit's hook sees
        // the open's own transactions).
        state.rollback(to: .start)
        let result: T
        do {
            result = try connection.transaction(.immediate) {
                // Another connection may have enabled or disabled history.
                if url != nil { try checkHistorySchema(on: connection) }
                let result = try body(connection)
                try prepareCommit(state, connection)
                return result
            }
        } catch {
            state.rollbackTransaction()
            throw error
        }
        boundWAL(connection)
        // Still under the gate: subscribers see change sets in commit order.
        let committed = state.pendingChanges.commit()
        if !committed.isEmpty {
            changes.publish(committed)
            observations.publishCommit(committed)
        }
        return result
    }

    /// Inside the transaction, just before it commits: the change audit
    /// checks what the writes noted, and the history is written (no commit
    /// without its history).
    private func prepareCommit(_ state: WriterState, _ connection: Connection) throws {
        if let audit = state.changeAudit, let difference = audit.verify(state.pendingChanges.merged) {
            throw LiteRecordError(.sqlite, "\(difference); nothing was committed")
        }
        if !state.history.pending.isEmpty { try recordHistory(connection) }
    }

    /// ``withConnectionPassingCallerErrors(_:_:)`` for library code: every error
    /// becomes a ``LiteRecordError``.
    func withConnection<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try attributingErrors(operation()) { try withConnectionPassingCallerErrors(operation(), body) }
    }

    /// ``writePassingCallerErrors(_:_:)`` for library code: every error becomes a
    /// ``LiteRecordError``.
    func write<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws(LiteRecordError) -> T {
        try attributingErrors(operation()) { try writePassingCallerErrors(operation(), body) }
    }

    /// Runs `body` on a reader connection from the pool (or the writer
    /// connection of an in-memory store). Errors are treated as in
    /// ``withConnectionPassingCallerErrors(_:_:)``.
    func withReaderPassingCallerErrors<T>(_ operation: @autoclosure () -> String, _ body: (Connection) throws -> T) throws -> T {
        guard let readers else { return try withConnectionPassingCallerErrors(operation(), body) }
        if let unavailableError { throw unavailableError }
        // A thread inside a write never waits for a reader (the pool asks the
        // gate): readers that wait for the writer (a `read` closure that
        // saves) would wait for it in turn.
        let reader = try readers.acquire("\(operation()) in \(displayName)")
        defer { readers.release(reader) }
        reader.armTraceIfListened()
        return try attributingStoreErrors(operation()) { try body(reader) }
    }

    /// The writer connection's ``StoreStamp`` when nothing holds the writer
    /// and no transaction is open on it; `nil` otherwise (and for a
    /// replica, which is never written): taken before a read whose result a
    /// later write trusts while the stamp has not moved. Never waits, and
    /// runs no statement.
    func idleStamp() -> StoreStamp? {
        guard replicaWatcher == nil else { return nil }
        return gate.withStateIfFree { state in
            guard let connection = state.connection, !connection.isInTransaction else { return nil }
            return connection.stamp
        }
    }

    /// The writer connection's `PRAGMA data_version`: it changes when another
    /// connection (another process, or another stack of this process) commits
    /// to the file, never for this store's own commits, which reach
    /// observers directly (https://sqlite.org/pragma.html#pragma_data_version).
    /// `nil` when the store is closed, or busy and `wait` is false.
    ///
    /// A replica answers its watcher's Litestream transaction id instead: its
    /// `data_version` changes with every read, since the VFS hands SQLite a
    /// new change counter each time (`Store+Replica.swift`).
    func dataVersion(wait: Bool) -> Int64? {
        if let replicaWatcher {
            // Without the store's lock: reads hold it, and would starve observers.
            return replicaWatcher.transactionID().map { Int64(bitPattern: $0) }
        }
        let read = { (state: WriterState) -> Int64? in
            guard let connection = state.connection, !connection.isInTransaction,
                case .integer(let version)? = try? connection.scalar("PRAGMA data_version")
            else { return nil }
            return version
        }
        return wait ? gate.withState(read) : gate.withStateIfFree(read)
    }
}
