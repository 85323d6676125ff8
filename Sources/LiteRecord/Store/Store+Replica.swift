import Foundation

/// A store read from a Litestream replica through Litestream's VFS
/// (API.md §15).
///
/// A replica store reads through one connection, **pinned**: moved to a
/// time (the far future for "the newest"), so that the VFS builds its page
/// index from Litestream's restore plan and does not poll. A second
/// connection, the ``ReplicaWatcher``, follows the replica as the VFS polls
/// it; before each use of the reading connection outside a transaction, the
/// store pins it again when the watcher has seen a newer commit. Reads thus
/// see whole commits, in order: the VFS's own polling merge was seen to mix
/// commits under load (``ReplicaWatcher``), and one connection means a later
/// read never goes back to an older commit.
///
/// What else the VFS does that the store relies on
/// (https://github.com/benbjohnson/litestream, `vfs.go`):
/// - it hands SQLite a fresh change counter with every read of page 1, so
///   SQLite drops its page cache each transaction (reads are never stale, and
///   `PRAGMA data_version` moves with every read): observation polls the
///   watcher's transaction id instead;
/// - a read-only open waits, without end, until the replica holds a first
///   snapshot: a `file` replica without one is refused before opening.
extension Store {
    /// The name the replica's connection opens: the VFS ignores it, but
    /// SQLite names temporary files after it.
    static let replicaFileName = "literecord-replica.sqlite"

    /// The time a pinned connection is moved to for "the newest commit":
    /// Litestream's restore plan then takes every file there is.
    static let newestTime = "2999-01-01T00:00:00Z"

    /// Opens the replica's reading connection, pinned at the newest commit,
    /// checks its model, and opens the watcher.
    func openReplica(_ exports: LitestreamExports) throws(LiteRecordError) -> Connection {
        guard let replicaURL else { throw LiteRecordError(.storeUnavailable, "\(displayName) is not a replica") }
        try Self.requireSnapshot(replicaURL)
        let options = Connection.OpenOptions(readOnly: true, create: false, vfs: LitestreamVFS.name)
        let connection = try openConnection(options)
        do {
            try attributingErrors("opening \(displayName)") {
                try connection.registerWithLitestream(exports)
                try pinAtNewest(connection, watcherTXID: nil)
                try connection.execute("PRAGMA query_only = ON")
                try requireStoredModel(
                    on: connection,
                    cannotMigrate: "A replica is never migrated: migrate its primary (open it with migration: .automatic), and the replica follows")
                let watcher = try openConnection(options)
                do {
                    try watcher.registerWithLitestream(exports)
                } catch {
                    watcher.close()
                    throw error
                }
                replicaWatcher?.attach(watcher)
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Moves `connection` to the newest commit Litestream's restore plan
    /// holds. Called with the lock held (or during init), outside a transaction.
    private func pinAtNewest(_ connection: Connection, watcherTXID: UInt64?) throws {
        try connection.setLitestreamTime(Self.newestTime)
        replicaPinnedTXID = try replicaTransactionID(connection)
        replicaPinnedForWatcherTXID = watcherTXID
    }

    /// Pins the reading connection again when the watcher has seen a commit
    /// since it was last pinned. Called with the lock held, outside a
    /// transaction, before every use of the connection.
    func followReplica(_ connection: Connection) throws {
        guard let seen = replicaWatcher?.transactionID(), seen != replicaPinnedForWatcherTXID, seen != replicaPinnedTXID
        else { return }
        try pinAtNewest(connection, watcherTXID: seen)
    }

    /// Refuses a `file` replica that holds no snapshot yet, which the VFS
    /// would wait for without end. Other storage (S3, …) is not looked at.
    static func requireSnapshot(_ replica: URL) throws(LiteRecordError) {
        guard replica.isFileURL else { return }
        let levels = replica.appendingPathComponent("ltx", isDirectory: true)
        let fileManager = FileManager.default
        let holdsSnapshot = ((try? fileManager.contentsOfDirectory(atPath: levels.path)) ?? []).contains { level in
            ((try? fileManager.contentsOfDirectory(atPath: levels.appendingPathComponent(level).path)) ?? [])
                .contains { $0.hasSuffix(".ltx") }
        }
        guard holdsSnapshot else {
            throw LiteRecordError(
                .storeUnavailable,
                "there is no Litestream replica at \(replica.path): the folder holds no snapshot (ltx/…/*.ltx) yet; run `litestream replicate` for the primary store first")
        }
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
    /// newest commit the watcher has seen), its time, and the poll age.
    func replicaPosition() throws(LiteRecordError) -> ReplicaPosition {
        guard let replicaURL else { return ReplicaPosition(txid: 0, commitTime: nil, sinceLastPoll: nil) }
        let txid = try withConnection("reading the position of \(displayName)") { connection in
            try replicaTransactionID(connection)
        }
        // Outside the lock: a file replica's time is a directory listing away.
        let seconds = replicaWatcher?.secondsSinceLastPoll()
        return ReplicaPosition(
            txid: txid, commitTime: replicaURL.isFileURL ? LTXFiles.commitTime(of: txid, in: replicaURL) : nil,
            sinceLastPoll: seconds.map { .seconds($0) })
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
                "\(operation) failed: \(displayName) is not a read replica; read(asOf:) reads a stack opened with RecordStack(replicaAt:entities:vfsExtension:)")
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
    /// read. Should the VFS refuse, the connection is closed and every later
    /// use of the store throws why, so that no read sees the past by mistake.
    /// Called with the lock held.
    private func returnToNewest(_ connection: Connection) throws(LiteRecordError) {
        do {
            try pinAtNewest(connection, watcherTXID: replicaWatcher?.transactionID())
        } catch {
            let failure = LiteRecordError.wrap(
                error, "returning \(displayName) to its newest commit after a point-in-time read (close the stack and open the replica again)")
            connection.close()
            self.connection = nil
            replicaFailure = failure
            throw failure
        }
    }
}
