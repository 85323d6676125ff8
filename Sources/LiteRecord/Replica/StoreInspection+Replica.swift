public import Foundation

extension StoreInspection {
    /// Reads what a Litestream replica holds, through Litestream's VFS, as
    /// it is now or as it was at `asOf`: what `literecord inspect --replica`
    /// prints. Like ``RecordStack/init(replicaAt:entities:vfsExtension:snapshotTimeout:)``,
    /// it names its replica in its own connection, so any number of
    /// replicas can be inspected in one process.
    ///
    /// ```swift
    /// let report = try StoreInspection(replicaAt: URL(string: "file:///srv/replicas/notes")!, vfsExtension: vfsURL)
    /// print(report.replicaPosition!, report.tables.map { "\($0.name): \($0.rowCount)" })
    /// ```
    ///
    /// The report's `journalMode` is `"replica"` (the VFS shows SQLite a
    /// rollback-journal header, whatever the primary uses); `sizeInBytes` is
    /// the replica's pages; `replicaPosition` names the commit described.
    ///
    /// - Parameters:
    ///   - replica: the replica's location: a folder (`file:` URL or path)
    ///     or a Litestream storage URL.
    ///   - asOf: the instant to describe; `nil` for the newest commit.
    ///   - vfsExtension: Litestream's VFS extension; `nil` looks it up as
    ///     ``RecordStack/init(replicaAt:entities:vfsExtension:snapshotTimeout:)`` does.
    ///   - snapshotTimeout: how long to wait for the replica's first
    ///     snapshot (Litestream's VFS would wait without end).
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` (no
    ///   extension, a replica without a snapshot within `snapshotTimeout`,
    ///   `asOf` before its first snapshot).
    public init(replicaAt replica: URL, asOf: Date? = nil, vfsExtension: URL? = nil, snapshotTimeout: Duration = .seconds(10)) throws {
        let exports = try LitestreamVFS.prepare(extensionURL: vfsExtension)
        let location = try LitestreamVFS.location(replica)
        let name = "inspecting the replica at \(LitestreamVFS.spelling(location))"
        // Never polling: the facts and the txid are of one commit.
        let options = Connection.OpenOptions(
            readOnly: true, create: false, vfs: LitestreamVFS.name,
            uriParameters: LitestreamVFS.uriParameters(replica: location, pollInterval: Store.pinnedPollInterval))
        let connection: Connection
        do {
            connection = try ReplicaOpen.open(location, timeout: snapshotTimeout) {
                try Connection(path: Store.replicaFileName, options: options)
            }
            try connection.registerWithLitestream(exports)
        } catch {
            throw LiteRecordError.wrap(error, name)
        }
        defer { connection.close() }
        if let asOf {
            let stamp = ReplicaTime.format(asOf)
            do {
                try connection.setLitestreamTime(stamp)
            } catch let error as SQLiteError where Store.holdsNoStateThen(error) {
                throw LiteRecordError(
                    .storeUnavailable,
                    "\(name) as of \(stamp) failed: the replica holds no state of that time: it is before the replica's first snapshot, or older than its retention keeps (\(error.message))"
                )
            } catch {
                throw LiteRecordError.wrap(error, name)
            }
        }
        let (facts, position) = try withErrorContext(name) { () -> (Facts, ReplicaPosition) in
            let facts = try connection.transaction(.deferred) { try Facts(connection) }
            let txid = UInt64(try connection.litestreamTXID(), radix: 16) ?? 0
            let commitTime = location.isFileURL ? LTXFiles.commitTime(of: txid, in: location) : nil
            return (facts, ReplicaPosition(txid: txid, commitTime: commitTime, sinceLastPoll: nil))
        }
        // The VFS shows SQLite a rollback-journal header whatever the primary
        // uses, so the mode is named for what this is.
        self.init(
            url: replica, facts: facts, sizeInBytes: Int64(facts.pageSize) * Int64(facts.pageCount),
            journalMode: "replica", preMigrationCopies: [], replicaPosition: position)
    }
}
