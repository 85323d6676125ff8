import Foundation

/// A store read from a Litestream replica through Litestream's VFS
/// (API.md §15).
///
/// A replica store has one connection, opened read-only through the VFS:
/// every read, observation check and point-in-time read goes through it, so
/// what one read saw a later read never un-sees (each VFS connection follows
/// the replica on its own, and two could be at different commits).
///
/// What the VFS does that the store relies on
/// (https://github.com/benbjohnson/litestream, `vfs.go`):
/// - it checks the replica for new commits once a second and applies a
///   commit's pages together, only between read transactions, so a read
///   transaction sees one whole commit;
/// - it hands SQLite a fresh change counter with every read of page 1, so
///   SQLite drops its page cache each transaction (reads are never stale, and
///   `PRAGMA data_version` moves with every read): observation polls the
///   replica's transaction id instead;
/// - its time export moves one connection to a past commit until reset;
/// - a read-only open waits, without end, until the replica holds a first
///   snapshot: a `file` replica without one is refused before opening.
extension Store {
    /// The name the replica's connection opens: the VFS ignores it, but
    /// SQLite names temporary files after it.
    static let replicaFileName = "literecord-replica.sqlite"

    /// Opens the replica's one connection and checks its model.
    func openReplica(_ exports: LitestreamExports) throws(LiteRecordError) -> Connection {
        guard let replicaURL else { throw LiteRecordError(.storeUnavailable, "\(displayName) is not a replica") }
        try Self.requireSnapshot(replicaURL)
        let connection = try openConnection(
            Connection.OpenOptions(readOnly: true, create: false, vfs: LitestreamVFS.name))
        do {
            try withStoreErrorContext("opening \(displayName)") {
                try connection.registerWithLitestream(exports)
                replicaOpenedTXID = try replicaTransactionID(connection)
                try connection.execute("PRAGMA query_only = ON")
                try requireStoredModel(
                    on: connection,
                    cannotMigrate: "A replica is never migrated: migrate its primary (open it with migration: .automatic), and the replica follows")
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
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

    /// Where the replica is: its transaction id, commit time and poll age.
    func replicaPosition() throws(LiteRecordError) -> ReplicaPosition {
        guard replicaURL != nil else { return ReplicaPosition(txid: 0, commitTime: nil, sinceLastPoll: nil) }
        return try withConnection("reading the position of \(displayName)") { connection in
            let txid = try replicaTransactionID(connection)
            let seconds = try connection.litestreamLag()
            return ReplicaPosition(txid: txid, commitTime: try commitTime(of: txid, connection), sinceLastPoll: seconds >= 0 ? .seconds(seconds) : nil)
        }
    }

    /// The time of commit `txid`: from its LTX file for a `file` replica;
    /// else the VFS's, which is that of the newest commit when the
    /// connection opened (the VFS does not move it as commits arrive), so
    /// only while the replica is still at that commit.
    func commitTime(of txid: UInt64, _ connection: Connection) throws -> Date? {
        guard let replicaURL else { return nil }
        if replicaURL.isFileURL { return LTXFiles.commitTime(of: txid, in: replicaURL) }
        return txid == replicaOpenedTXID ? ReplicaTime.parse(try connection.litestreamTime()) : nil
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
        return try withConnectionPassingErrors(operation) { connection in
            guard !connection.isInTransaction else {
                throw LiteRecordError(.storeUnavailable, "\(operation) failed: it was called inside another read of the replica")
            }
            do {
                try connection.setLitestreamTime(stamp)
            } catch let error as SQLiteError where error.message.contains("not available") {
                throw LiteRecordError(
                    .storeUnavailable,
                    "\(operation) failed: \(stamp) is before the replica's first snapshot, so it holds no state of that time (\(error.message))")
            }
            defer { returnToNewest(connection) }
            return try connection.transaction(.deferred) { try body(connection) }
        }
    }

    /// Moves the replica's connection back to the newest commit after a
    /// point-in-time read. Should the VFS refuse, the connection is replaced
    /// by a new one, so that no later read sees the past by mistake. Called
    /// with the lock held.
    private func returnToNewest(_ connection: Connection) {
        do {
            try connection.setLitestreamTime(nil)
            replicaOpenedTXID = try replicaTransactionID(connection)
        } catch {
            logger.warning("\(displayName): returning to the newest commit failed (\(error)); reopening the replica")
            let exports = connection.litestream
            connection.close()
            self.connection = exports.flatMap { try? openReplica($0) }
        }
    }
}
