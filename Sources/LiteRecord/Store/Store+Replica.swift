import Foundation

/// What a replica store keeps about its reading connection (`Store+Replica.swift`):
/// part of the store's ``WriterState``, touched only by the holder of its
/// writer gate.
struct ReplicaState {
    /// Litestream's VFS exports, to open connections again.
    var exports: LitestreamExports?
    /// How long the first open waits for a snapshot (`snapshotTimeout:`).
    var snapshotTimeout: Duration = .seconds(10)
    /// The transaction id the reading connection is pinned at, and the
    /// watcher's id when it was pinned.
    var pinnedTXID: UInt64?
    var pinnedForWatcherTXID: UInt64?
    /// The reading connection was closed after a failure: the next use
    /// opens a fresh one, at the newest commit.
    var needsFreshConnection = false
}

/// A store read from a Litestream replica through Litestream's VFS
/// (Docs/Deployment.md, "Read replicas").
///
/// A replica store reads through one connection, **pinned**: opened with a
/// poll interval so long that the VFS never polls it, and moved to the
/// newest commit by rebuilding its page index from Litestream's restore
/// plan (the VFS's `ResetTime`, which lists files without their metadata).
/// A second connection, the ``ReplicaWatcher``, follows the replica as the
/// VFS polls it; before each use of the reading connection outside a
/// transaction, the store pins it again when the watcher has seen a newer
/// commit. Reads thus see whole commits, in order: the VFS's own polling
/// merge was seen to mix commits under load (``ReplicaWatcher``), and one
/// connection means a later read never goes back to an older commit.
///
/// Each connection names its replica in its URI (`replica_url`), so one
/// process reads any number of replicas.
///
/// What else the VFS does that the store relies on
/// (https://github.com/benbjohnson/litestream, `vfs.go`):
/// - it hands SQLite a fresh change counter with every read of page 1, so
///   SQLite drops its page cache each transaction (reads are never stale, and
///   `PRAGMA data_version` moves with every read): observation polls the
///   watcher's transaction id instead;
/// - a read-only open waits, without end, until the replica holds a first
///   snapshot: ``ReplicaOpen`` bounds that wait;
/// - a page whose file is gone (Litestream's retention deleted it after a
///   newer snapshot) fails the read with `SQLITE_BUSY` after its retries:
///   the store re-pins and runs the read once more.
extension Store {
    /// The name the replica's connection opens: the VFS ignores it, but
    /// SQLite names temporary files after it.
    static let replicaFileName = "literecord-replica.sqlite"

    /// The reading connection's poll interval: never, in practice (Go
    /// durations end near 292 years).
    static let pinnedPollInterval = "876000h"

    /// Opens the replica's reading connection at the newest commit, waiting
    /// at most `snapshotTimeout` for a first snapshot, checks its model,
    /// and opens the watcher.
    func openReplica(_ exports: LitestreamExports, snapshotTimeout: Duration) throws(LiteRecordError) -> Connection {
        writer.replica.exports = exports
        writer.replica.snapshotTimeout = snapshotTimeout
        let connection = try openReadingConnection()
        do {
            try attributingErrors("opening \(displayName)") {
                try requireStoredModel(
                    on: connection,
                    cannotMigrate: "A replica is never migrated: migrate its primary (open it with migration: .automatic), and the replica follows")
                let watcher = try openReplicaConnection(pollInterval: nil)
                if let replicaURL { replicaWatcher?.attach(watcher, replica: replicaURL) }
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// A connection on the replica through the VFS, registered with it.
    private func openReplicaConnection(pollInterval: String?) throws(LiteRecordError) -> Connection {
        guard let replicaURL, let exports = writer.replica.exports else {
            throw LiteRecordError(.storeUnavailable, "\(displayName): Litestream's VFS is not loaded")
        }
        let options = Connection.OpenOptions(
            readOnly: true, create: false, vfs: LitestreamVFS.name,
            uriParameters: LitestreamVFS.uriParameters(replica: replicaURL, pollInterval: pollInterval))
        let store = self
        let connection: Connection
        do {
            connection = try ReplicaOpen.open(replicaURL, timeout: writer.replica.snapshotTimeout) {
                try store.openConnection(options)
            }
        } catch {
            throw LiteRecordError.wrap(error, "opening \(displayName)")
        }
        do {
            try attributingErrors("opening \(displayName)") { try connection.registerWithLitestream(exports) }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// The reading connection: opened at the newest commit (the VFS builds
    /// its index from the restore plan when it opens), never polling.
    private func openReadingConnection() throws(LiteRecordError) -> Connection {
        let connection = try openReplicaConnection(pollInterval: Self.pinnedPollInterval)
        do {
            try attributingErrors("opening \(displayName)") {
                writer.replica.pinnedTXID = try replicaTransactionID(connection)
                writer.replica.pinnedForWatcherTXID = replicaWatcher?.transactionID()
                try connection.execute("PRAGMA query_only = ON")
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// The reading connection, opened afresh when a failure closed it.
    /// Called holding the writer gate; `nil` when the store is closed.
    func replicaConnection() throws(LiteRecordError) -> Connection? {
        assert(isWriterHeldByCurrentThread, "the replica's connection is reached without holding the writer gate")
        if let connection = writer.connection { return connection }
        guard writer.replica.needsFreshConnection else { return nil }
        let fresh = try openReadingConnection()
        writer.connection = fresh
        writer.replica.needsFreshConnection = false
        return fresh
    }

    /// Moves `connection` to the newest commit Litestream's restore plan
    /// holds. Called holding the writer gate (init holds it too), outside a transaction.
    private func pinAtNewest(_ connection: Connection, watcherTXID: UInt64?) throws {
        try connection.setLitestreamTime(nil)
        writer.replica.pinnedTXID = try replicaTransactionID(connection)
        writer.replica.pinnedForWatcherTXID = watcherTXID
    }

    /// Pins the reading connection again when the watcher has seen a commit
    /// since it was last pinned. Called holding the writer gate, outside a
    /// transaction, before every use of the connection.
    func followReplica(_ connection: Connection) throws {
        guard let seen = replicaWatcher?.transactionID(), seen != writer.replica.pinnedForWatcherTXID, seen != writer.replica.pinnedTXID
        else { return }
        try pinAtNewest(connection, watcherTXID: seen)
    }

    /// Runs `body`, a read on the reading connection outside a transaction;
    /// when it fails as a read of a file that is gone does, pins the
    /// connection again (a fresh restore plan) and runs it once more, then
    /// reports what that run throws. Called holding the writer gate.
    func readingReplica<T>(_ connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        assert(isWriterHeldByCurrentThread, "the replica is read without holding the writer gate")
        do {
            return try body(connection)
        } catch let error where Self.isStorageReadFailure(error) && connection.isOpen && !connection.isInTransaction {
            logger.notice(
                "a read of the replica failed as when Litestream removed a file it was pinned to; reading a fresh restore plan and reading again",
                metadata: ["store": "\(displayName)", "error": "\(error)"])
            try pinAtNewest(connection, watcherTXID: replicaWatcher?.transactionID())
            return try body(connection)
        }
    }

    /// Whether `error` is how the VFS fails a page it cannot fetch: after
    /// its retries of a missing file `SQLITE_BUSY`, else an I/O error.
    static func isStorageReadFailure(_ error: any Error) -> Bool {
        let code: Int32?
        switch error {
        case let error as SQLiteError: code = error.code
        case let error as LiteRecordError: code = error.resultCode
        default: code = nil
        }
        return code == 5 || code == 10  // SQLITE_BUSY, SQLITE_IOERR
    }

    /// The replica's Litestream transaction id, on `connection`.
    func replicaTransactionID(_ connection: Connection) throws -> UInt64 {
        let text = try connection.litestreamTXID()
        guard let txid = UInt64(text, radix: 16) else {
            throw LiteRecordError(.storeUnavailable, "\(displayName): Litestream's VFS gave no transaction id (\(text))")
        }
        return txid
    }

    /// Where the replica is: the transaction id of what its reads see (the
    /// newest commit the watcher has seen), its time, the poll age, and
    /// whether the watcher stopped advancing.
    func replicaPosition() throws(LiteRecordError) -> ReplicaPosition {
        guard let replicaURL else { return ReplicaPosition(txid: 0, commitTime: nil, sinceLastPoll: nil) }
        let txid = try withConnection("reading the position of \(displayName)") { connection in
            try replicaTransactionID(connection)
        }
        // Outside the lock: a file replica's time is a directory listing away.
        let seconds = replicaWatcher?.secondsSinceLastPoll()
        return ReplicaPosition(
            txid: txid, commitTime: replicaURL.isFileURL ? LTXFiles.commitTime(of: txid, in: replicaURL) : nil,
            sinceLastPoll: seconds.map { .seconds($0) }, staleReason: replicaWatcher?.staleReason())
    }

    /// Runs `body` in one read transaction on the replica as it was at `date`
    /// (the newest commit made at or before it), then returns the connection
    /// to the newest commit.
    ///
    /// - Throws: `.storeUnavailable` for a store that is not a replica, or a
    ///   `date` before the replica's first snapshot; what `body` throws.
    func readAsOf<T>(_ date: Date, _ body: (Connection) throws -> T) throws -> T {
        let stamp = ReplicaTime.format(date)
        let operation = "reading \(displayName) as of \(stamp)"
        guard replicaURL != nil else {
            throw LiteRecordError(
                .storeUnavailable,
                "\(operation) failed: \(displayName) is not a read replica; read(asOf:) reads a stack opened with RecordStack(replicaAt:entities:vfsExtension:snapshotTimeout:)")
        }
        return try withConnectionPassingCallerErrors(operation) { connection in
            guard !connection.isInTransaction else {
                throw LiteRecordError(.storeUnavailable, "\(operation) failed: it was called inside another read of the replica")
            }
            do {
                try connection.setLitestreamTime(stamp)
            } catch let error as SQLiteError where Self.holdsNoStateThen(error) {
                try returnToNewest(connection)
                throw LiteRecordError(
                    .storeUnavailable,
                    "\(operation) failed: the replica holds no state of \(stamp): it is before the replica's first snapshot, or older than its retention keeps (\(error.message))")
            }
            let result: T
            do {
                result = try connection.transaction(.deferred) { try body(connection) }
            } catch {
                try returnToNewest(connection)
                throw error
            }
            try returnToNewest(connection)
            return result
        }
    }

    /// Whether the VFS refused a time because no file of the replica holds it.
    static func holdsNoStateThen(_ error: SQLiteError) -> Bool {
        error.message.contains("not available") || error.message.contains("no backup files")
    }

    /// Pins the connection at the newest commit again after a point-in-time
    /// read. Should the VFS refuse, the connection is closed, so that no
    /// read sees the past by mistake, and the next use of the store opens a
    /// fresh one at the newest commit. Called holding the writer gate.
    private func returnToNewest(_ connection: Connection) throws(LiteRecordError) {
        do {
            try pinAtNewest(connection, watcherTXID: replicaWatcher?.transactionID())
        } catch {
            connection.close()
            writer.connection = nil
            writer.replica.needsFreshConnection = true
            throw LiteRecordError.wrap(
                error, "returning \(displayName) to its newest commit after a point-in-time read (the next read opens the replica afresh)")
        }
    }
}
