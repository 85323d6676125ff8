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
    /// with ``CheckpointPolicy/leftToReplicator``) and renames the files
    /// (``renameAside(_:to:)``: companions first, then the folder synced).
    /// The renamed main file alone then holds every committed change, so no
    /// `-wal` left at the path or taken by a newcomer can lose or add a
    /// commit. The rows are not otherwise changed.
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
        let target = freeName(url.path + ".mismatch-" + FileStamp.string(Date()))
        return try renameAside(url.path, to: target)
    }

    /// The first of `base`, `base-2`, `base-3`, … that is free for a main
    /// file and all its companions.
    private func freeName(_ base: String) -> String {
        var target = base
        var attempt = 1
        while (["", "-journal", "-wal", "-shm"].contains { FileManager.default.fileExists(atPath: target + $0) }) {
            attempt += 1
            target = "\(base)-\(attempt)"
        }
        return target
    }

    /// Renames the files of the store at `path` to `target`, companions
    /// first and the main file last, then syncs the folder.
    ///
    /// Until the main file moves, the path names the old store, which this
    /// connection holds locked exclusively: an opener waits for the lock and
    /// creates nothing. Once it moves, no companion is left at the path, so
    /// a new store starts without the old one's `-wal`. The other order
    /// (main file first) let an opener in between create a new database,
    /// whose `-wal` and `-shm` the next renames then carried off beside the
    /// old main file. A rename is durable only once its folder is synced.
    private func renameAside(_ path: String, to target: String) throws(LiteRecordError) -> [URL] {
        let files = FileOperations.current
        var moved: [String] = []
        for suffix in ["-journal", "-wal", "-shm", ""] where FileManager.default.fileExists(atPath: path + suffix) {
            do {
                try files.rename(path + suffix, to: target + suffix)
                moved.append(suffix)
            } catch {
                // Put back what moved, so the store stays whole at its path.
                for done in moved.reversed() { try? files.rename(target + done, to: path + done) }
                throw LiteRecordError(
                    .storeUnavailable, "cannot move \(path + suffix) aside: \(error.reason); nothing was moved")
            }
        }
        do {
            try FileOperations.syncFolder(of: path)
        } catch {
            throw LiteRecordError(
                .storeUnavailable,
                "\(path) was moved aside to \(target), but syncing its folder failed (\(error.reason)), so a power loss could undo the move; no new store was created. Open the store again"
            )
        }
        // Main file first in the result, as before.
        return moved.reversed().map { URL(fileURLWithPath: target + $0) }
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
