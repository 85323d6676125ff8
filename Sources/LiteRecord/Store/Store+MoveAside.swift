import Foundation

extension Store {
    /// Renames the store file and its `-journal`/`-wal`/`-shm` companions
    /// with a timestamp suffix, keeping them next to their renamed main file,
    /// then closes `connection` (the one that found the mismatch).
    ///
    /// Only when no other connection has the store open: another stack or
    /// process would otherwise go on writing to the renamed file while this
    /// one starts a new store at the path. `connection` takes an exclusive
    /// lock first (`locking_mode = EXCLUSIVE` and `BEGIN EXCLUSIVE`, which in
    /// WAL mode fails while any other connection has the file open) and holds
    /// it while it checkpoints the WAL into the main file (`TRUNCATE`, even
    /// with ``CheckpointPolicy/leftToReplicator``) and renames the files.
    /// The renamed main file alone then holds every committed change: an
    /// opener that arrives between two renames creates a new database at the
    /// path and SQLite deletes the `-wal` it finds beside it, which held the
    /// commits not yet checkpointed. The rows are not otherwise changed.
    func moveAside(closing connection: Connection) throws(LiteRecordError) -> [URL] {
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
        // The exclusive lock outlives the transaction (locking_mode =
        // EXCLUSIVE), and a checkpoint cannot run inside one.
        try? connection.execute("ROLLBACK TRANSACTION")
        try checkpointBeforeMovingAside(connection, url)
        // Closing a connection deletes the -wal and -shm by name; after the
        // rename those names may belong to the new store.
        connection.keepWALFilesOnClose()
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

    /// Copies every committed frame of the WAL into the main file and empties
    /// the WAL, under the exclusive lock `connection` holds.
    private func checkpointBeforeMovingAside(_ connection: Connection, _ url: URL) throws(LiteRecordError) {
        var failure = "another connection kept part of the WAL"
        do {
            let result = try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)").first
            // (busy, frames in the WAL, frames checkpointed); -1 when not in WAL mode.
            if result?.first != .integer(1) { return }
        } catch {
            failure = (error as? SQLiteError)?.message ?? "\(error)"
        }
        throw LiteRecordError(
            .storeUnavailable,
            "\(url.path) does not match the model but was not moved aside: checkpointing its WAL into the main file first failed (\(failure)); nothing was moved")
    }
}
