import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Store {
    /// Pages copied per backup step: 1 MiB at SQLite's default 4 KiB page.
    static let backupStepPages: Int32 = 256
    /// How often an in-memory store's backup may start over (a save landed
    /// between two steps) before the rest is copied in one step that saves
    /// wait for (``BackupProgress``).
    static let backupRestartLimit = 3

    /// Copies what the store holds at one instant into a new file at `destination`.
    ///
    /// A file store is read through a connection of its own that holds one read
    /// transaction for the whole copy: in WAL mode saves go on meanwhile and none
    /// of them is seen, so the copy is the snapshot the backup started from. An
    /// in-memory store has only its one connection; the copy runs step by step
    /// between saves, and a save that commits between two steps makes SQLite
    /// start the copy over ([Backup]), so no save is half in it.
    func backup(to destination: URL) throws(LiteRecordError) {
        if let unavailableError { throw unavailableError }
        let operation = "backing up \(displayName) to \(destination.path)"
        guard isOpen else {
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: the store is closed")
        }
        try BackupFile.write(destination, operation: operation) { target throws(LiteRecordError) in
            switch (url ?? replicaURL, isReadOnly) {
            case (_?, false):
                // A connection of the backup's own: a read transaction on it does
                // not hold up the store's saves, which go through the writer.
                // Tracked with the readers, so close() waits for the copy and a
                // connection closed after its store never deletes the -wal and
                // -shm of a store put in its place (`CloseTests.WaitsForBackups`).
                let source: Connection
                if let readers {
                    source = try readers.acquireOwn(operation)
                } else {
                    source = try openConnection(Connection.OpenOptions(create: false))
                }
                defer { if let readers { readers.release(source) } else { source.close() } }
                try attributingErrors(operation) {
                    try source.execute("PRAGMA query_only = ON")
                    try BackupFile.copySnapshot(from: source, into: target)
                }
            case (_?, true):
                // Nothing writes through a read-only stack's connection; a
                // snapshot on it keeps other processes' commits out — unless
                // it was opened `immutable`, which takes no lock: then a
                // writer that appeared since may have changed pages under
                // it, and the copy is refused rather than mixed. A replica's
                // VFS applies new commits only between read transactions.
                try withConnection(operation) { connection in
                    try refuseChangedImmutableFile(connection, operation: operation)
                    try BackupFile.copySnapshot(from: connection, into: target)
                    try refuseChangedImmutableFile(connection, operation: operation)
                }
            case (nil, _):
                try copyInMemory(into: target, operation: operation)
            }
        }
    }

    /// Copies an in-memory store through its one connection, a step at a time
    /// between saves. A commit on the source connection restarts an in-memory
    /// backup, so a copy that keeps being overtaken finishes in one last step
    /// taken while saves wait (``BackupProgress``). Every call on the backup,
    /// `sqlite3_backup_finish` included, is made holding the writer gate: the
    /// connection is `NOMUTEX`, and finishing reads the source's pager, which
    /// a save on another thread may be changing.
    private func copyInMemory(into target: Connection, operation: String) throws(LiteRecordError) {
        var backup: Backup?
        var progress = BackupProgress()
        do throws(LiteRecordError) {
            while true {
                let done = try withConnection(operation) { connection throws -> Bool in
                    if backup == nil { backup = try Backup(from: connection, to: target) }
                    guard let backup else { return true }
                    // A write transaction open on this connection (backup(to:) called
                    // from inside a write on the same stack) holds uncommitted pages.
                    if connection.isInTransaction {
                        throw LiteRecordError(
                            .storeUnavailable,
                            "\(operation) failed: it was called inside a write on the same in-memory stack, whose changes are not committed yet; call backup(to:) after the write returns"
                        )
                    }
                    let done = try backup.step(pages: progress.pages)
                    progress.stepped(remaining: backup.remaining)
                    if done { try backup.finish() }
                    return done
                }
                if done { return }
            }
        } catch {
            if let backup { finishUnderLock(backup) }
            throw error
        }
    }

    /// Releases a failed in-memory backup holding the writer gate, whether
    /// or not the store was closed meanwhile (a closed source connection
    /// lingers until its backups are finished).
    private func finishUnderLock(_ backup: Backup) {
        gate.withState { _ in _ = try? backup.finish() }
    }

    /// Throws when `connection` was opened `immutable` and its file changed
    /// since, or is open for writing elsewhere now (see ``Store/readingOptions(for:)``).
    private func refuseChangedImmutableFile(_ connection: Connection, operation: String) throws(LiteRecordError) {
        guard let change = connection.immutableFileChange() else { return }
        throw LiteRecordError(
            .storeUnavailable,
            "\(operation) failed: \(displayName) \(change) since this read-only stack opened it. It was opened immutable (nothing else had it open), which takes no locks, so its pages may be from two states; close the read-only stack and open it again, or back up through a writable stack"
        )
    }
}

/// When an in-memory backup stops copying a few pages at a time. A commit on
/// the source connection makes SQLite start the copy over at its first page
/// (https://sqlite.org/c3ref/backup_finish.html), which shows as `remaining`
/// not going down: every step that copies pages and is not the last leaves
/// fewer to copy. After ``Store/backupRestartLimit`` steps without progress
/// the rest is copied in one step, under the lock, that saves wait for — so
/// a steady stream of commits cannot keep the copy going for ever.
struct BackupProgress {
    private var lastRemaining = Int.max
    private var stalls = 0

    /// Pages for the next step: all of them (-1) once the copy stalled enough.
    var pages: Int32 { stalls >= Store.backupRestartLimit ? -1 : Store.backupStepPages }

    mutating func stepped(remaining: Int) {
        if remaining >= lastRemaining { stalls += 1 }
        lastRemaining = remaining
    }
}

/// The destination side of a backup: a file written under a temporary name
/// in the destination's folder and given its name only once it is whole and
/// on disk, so that no crash leaves a file at the destination that opens as
/// an empty or half-copied store; and removing what a failed backup left.
enum BackupFile {
    static let companions = ["-journal", "-wal", "-shm"]

    /// Writes the copy: refuses an existing `destination` (or companion),
    /// creates a temporary file beside it, runs `copy` with a connection to
    /// that file, leaves the copy in WAL mode as LiteRecord opens its stores,
    /// checkpoints and syncs it, then links it to `destination` — which
    /// fails rather than replace a file that appeared meanwhile. Every file
    /// made is removed when anything fails.
    static func write(
        _ destination: URL, operation: String, _ copy: (Connection) throws(LiteRecordError) -> Void
    ) throws(LiteRecordError) {
        let path = destination.standardizedFileURL.path
        try refuseExisting(path, operation: operation)
        let file = URL(fileURLWithPath: path)
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString.prefix(8)).literecord-backup").path
        try claim(temporary, for: path, operation: operation)
        do throws(LiteRecordError) {
            try fill(temporary, operation: operation, copy)
            try publish(temporary, as: path, operation: operation)
        } catch {
            remove(temporary)
            throw error
        }
    }

    /// Runs `copy` into the file at `path` and makes it one whole file on
    /// disk: WAL mode, the WAL checkpointed into it and truncated (closing
    /// alone would ignore a failed checkpoint, and the `-wal` would not
    /// follow the file to its name), then synced.
    private static func fill(_ path: String, operation: String, _ copy: (Connection) throws(LiteRecordError) -> Void) throws(LiteRecordError) {
        let target = try withErrorContext(operation) {
            try Connection(path: path, options: Connection.OpenOptions(create: false))
        }
        defer { target.close() }
        try copy(target)
        try withErrorContext(operation) {
            // A copy's history goes its own way from here (a restored copy
            // gives out the original's next numbers again): its own identity.
            try HistoryLog.giveCopyItsOwnIdentity(on: target)
            // The source's header decides the copy's journal mode (a WAL file
            // store's says WAL, an in-memory store's does not): make it the
            // same for every backup.
            try target.execute("PRAGMA journal_mode = WAL")
            let result = try target.rows("PRAGMA wal_checkpoint(TRUNCATE)").first ?? []
            guard result.count == 3, result[0] == .integer(0), result[1] == result[2] else {
                throw LiteRecordError(.storeUnavailable, "the copy's write-ahead log could not be folded into it")
            }
        }
        target.close()
        if let leftover = companions.first(where: { fileSize(path + $0) > 0 }) {
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: closing the copy left \(path + leftover) behind")
        }
        try sync(path, operation: operation)
    }

    /// Gives the finished copy its name. `link` fails when `destination`
    /// exists, so a file created there meanwhile is never replaced; a file
    /// system without hard links gets a `rename` after one more check. The
    /// folder is synced so that the name survives a power loss.
    private static func publish(_ temporary: String, as destination: String, operation: String) throws(LiteRecordError) {
        let files = FileOperations.current
        for suffix in companions { try? files.unlink(temporary + suffix) }
        do {
            try files.link(temporary, to: destination)
            try? files.unlink(temporary)
        } catch {
            if error.code == EEXIST { throw existsError(destination, operation: operation) }
            guard [EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK].contains(error.code) else {
                throw LiteRecordError(.storeUnavailable, "\(operation) failed: cannot name the copy \(destination): \(error.reason)")
            }
            try refuseExisting(destination, operation: operation)
            do {
                try files.rename(temporary, to: destination)
            } catch {
                throw LiteRecordError(.storeUnavailable, "\(operation) failed: cannot name the copy \(destination): \(error.reason)")
            }
        }
        do {
            try FileOperations.syncFolder(of: destination)
        } catch {
            // A backup that fails leaves nothing: the name is this backup's
            // own (link and rename refused an existing file).
            try? files.unlink(destination)
            throw LiteRecordError(
                .storeUnavailable, "\(operation) failed: syncing the folder of \(destination) to disk failed: \(error.reason)")
        }
    }

    /// `fsync` of the file at `path`.
    private static func sync(_ path: String, operation: String) throws(LiteRecordError) {
        do {
            try FileOperations.current.sync(path)
        } catch {
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: syncing \(path) to disk failed: \(error.reason)")
        }
    }

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Copies `source` as it is at one instant: a read transaction taken first
    /// pins the snapshot every step reads, so commits made meanwhile through
    /// other connections neither restart the copy nor appear in it.
    static func copySnapshot(from source: Connection, into target: Connection) throws {
        let ownsTransaction = !source.isInTransaction
        if ownsTransaction { try source.execute("BEGIN DEFERRED TRANSACTION") }
        defer { if ownsTransaction && source.isInTransaction { try? source.execute("ROLLBACK TRANSACTION") } }
        // A deferred transaction starts reading at its first statement.
        _ = try source.scalar("SELECT count(*) FROM sqlite_schema")
        let backup = try Backup(from: source, to: target)
        do {
            while try !backup.step(pages: Store.backupStepPages) {}
        } catch {
            try? backup.finish()
            throw error
        }
        try backup.finish()
    }

    /// Refuses a `destination` that exists, or whose `-wal`/`-shm`/`-journal`
    /// exists (SQLite would read those as part of the new file).
    private static func refuseExisting(_ path: String, operation: String) throws(LiteRecordError) {
        for suffix in [""] + companions where FileManager.default.fileExists(atPath: path + suffix) {
            throw existsError(path + suffix, operation: operation)
        }
    }

    private static func existsError(_ path: String, operation: String) -> LiteRecordError {
        LiteRecordError(
            .storeUnavailable,
            "\(operation) failed: \(path) already exists; a backup never replaces a file, so choose a new name or remove it first")
    }

    /// Creates the temporary file `path` exclusively, so that two backups or
    /// a backup and another program never write the same file; errors name
    /// `destination`, the file the caller asked for.
    private static func claim(_ path: String, for destination: String, operation: String) throws(LiteRecordError) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            let reason: String
            switch code {
            case EEXIST: reason = "\(path) already exists; remove it and try again"
            case ENOENT, ENOTDIR: reason = "the folder \(URL(fileURLWithPath: destination).deletingLastPathComponent().path) does not exist; create it first"
            case EACCES, EPERM, EROFS: reason = "no permission to create \(destination) (\(String(cString: strerror(code))))"
            default: reason = "cannot create \(destination): \(String(cString: strerror(code)))"
            }
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: \(reason)")
        }
        close(descriptor)
    }

    /// Removes a failed backup's temporary file and the companions SQLite
    /// made beside it (its name is new: none existed before).
    static func remove(_ path: String) {
        for suffix in [""] + companions { unlink(path + suffix) }
    }
}

/// `literecord backup`: a backup of a store file that no stack of this
/// process has open.
enum StoreFileBackup {
    static func backup(_ source: URL, to destination: URL) throws(LiteRecordError) {
        let path = source.path
        let operation = "backing up \(path) to \(destination.path)"
        if let error = Store.missingFileError(path) { throw error.withMessage("\(operation) failed: \(error.message)") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 {
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: \(path) is empty: there is no store to back up")
        }
        // Read only, as a read-only stack reads (``Store/readingOptions(for:)``):
        // a read-write connection that is the store's last would checkpoint
        // and delete a -wal left to a replicator when it closes. Opened
        // `immutable` (nothing had the store open), it takes no locks, so a
        // file that changed during the copy is refused below.
        let options = Store.readingOptions(for: path)
        try BackupFile.write(destination, operation: operation) { target throws(LiteRecordError) in
            try withErrorContext(operation) {
                let connection = try Connection(path: path, options: options)
                defer { connection.close() }
                try connection.execute("PRAGMA query_only = ON")
                // A file cut short before its first page reads as an empty database.
                guard case .integer(let objects)? = try connection.scalar("SELECT count(*) FROM sqlite_schema"), objects > 0
                else {
                    throw LiteRecordError(.corruptStore, "\(operation) failed: \(path) holds no tables: it is not a store, or it is damaged; run `literecord check` on it")
                }
                try BackupFile.copySnapshot(from: connection, into: target)
                if let change = connection.immutableFileChange() {
                    throw LiteRecordError(
                        .storeUnavailable,
                        "\(operation) failed: \(path) \(change) during the backup. Nothing had it open when the backup began, so it was read without locks and the copy may mix two states; run the backup again"
                    )
                }
            }
        }
    }
}
