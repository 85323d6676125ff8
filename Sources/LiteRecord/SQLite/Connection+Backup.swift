internal import CSQLite

/// One run of SQLite's online backup API from a source connection's `main`
/// database into a destination connection's (https://sqlite.org/backup.html).
///
/// What a step copies depends on what else happens to the source
/// (https://sqlite.org/c3ref/backup_finish.html):
/// - written through *another* connection, the backup starts over at its next
///   step, unless the source connection holds a read transaction, in which
///   case every step reads that one snapshot and later commits are not seen;
/// - written through the *same* connection, a file database's changed pages
///   are copied into the destination as they are written, and an in-memory
///   database's commit makes the backup start over
///   (`sqlite3PagerCommitPhaseOne`). Either way no half-applied transaction
///   is copied, as long as no step runs while a write transaction is open on
///   that connection (it would fail with `SQLITE_LOCKED`).
///
/// Not thread-safe: the caller serializes use of both connections.
final class Backup {
    private var handle: OpaquePointer?
    private let destination: Connection

    /// Starts a backup of `source` into `destination`, which must not be in use.
    init(from source: Connection, to destination: Connection) throws {
        guard let sourceHandle = source.handle, let destinationHandle = destination.handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is closed")
        }
        guard let backup = sqlite3_backup_init(destinationHandle, "main", sourceHandle, "main") else {
            // The error is left on the destination connection.
            throw SQLiteError(resultCode: sqlite3_errcode(destinationHandle), db: destinationHandle)
        }
        handle = backup
        self.destination = destination
    }

    deinit {
        if let handle { sqlite3_backup_finish(handle) }
    }

    /// Copies up to `pages` more pages (all of them when negative); `true`
    /// once every page is copied. A locked source or destination is an error
    /// (`SQLITE_BUSY`, or `SQLITE_LOCKED` when a write transaction is open on
    /// the source connection): the destination's busy timeout has already
    /// been waited out by then.
    func step(pages: Int32) throws -> Bool {
        guard let handle else { return true }
        let result = sqlite3_backup_step(handle, pages)
        switch result {
        case SQLITE_DONE: return true
        case SQLITE_OK: return false
        default: throw SQLiteError(resultCode: result, db: destination.handle)
        }
    }

    /// Pages still to copy after the last step.
    var remaining: Int { handle.map { Int(sqlite3_backup_remaining($0)) } ?? 0 }
    /// Pages in the source at the last step.
    var pageCount: Int { handle.map { Int(sqlite3_backup_pagecount($0)) } ?? 0 }

    /// Releases the backup; throws the first error any step met.
    func finish() throws {
        guard let handle else { return }
        self.handle = nil
        let result = sqlite3_backup_finish(handle)
        if result != SQLITE_OK {
            throw SQLiteError(resultCode: result, db: destination.handle)
        }
    }
}

extension Connection {
    /// Whether closing this connection may checkpoint the WAL into the main
    /// file. SQLite's last connection to close a WAL database checkpoints and
    /// deletes the `-wal`; an external replicator wants to do that itself
    /// (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`, https://sqlite.org/c3ref/c_dbconfig_defensive.html).
    func setCheckpointOnClose(_ enabled: Bool) throws {
        let db = try openHandleForConfig()
        var current: Int32 = 0
        let result = literecord_db_config_int(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, &current)
        if result != SQLITE_OK { throw SQLiteError(resultCode: result, db: db) }
    }

    private func openHandleForConfig() throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the connection is closed")
        }
        return handle
    }
}
