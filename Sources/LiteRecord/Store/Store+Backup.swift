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
    /// between two steps) before the rest is copied in one step that saves wait for.
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
            switch (url, isReadOnly) {
            case (_?, false):
                // A connection of the backup's own: a read transaction on it does
                // not hold up the store's saves, which go through the writer.
                let source = try openConnection(Connection.OpenOptions(create: false))
                defer { source.close() }
                try withStoreErrorContext(operation) {
                    try source.execute("PRAGMA query_only = ON")
                    try BackupFile.copySnapshot(from: source, into: target)
                }
            case (_?, true):
                // Nothing writes through a read-only stack's connection; a
                // snapshot on it keeps other processes' commits out.
                try withConnection(operation) { connection in
                    try BackupFile.copySnapshot(from: connection, into: target)
                }
            case (nil, _):
                try copyInMemory(into: target, operation: operation)
            }
        }
    }

    /// Copies an in-memory store through its one connection, a step at a time
    /// between saves. A commit on the source connection restarts an in-memory
    /// backup, so a copy that keeps being overtaken finishes in one last step
    /// taken while saves wait.
    private func copyInMemory(into target: Connection, operation: String) throws(LiteRecordError) {
        var backup: Backup?
        defer { try? backup?.finish() }
        var restarts = 0
        var lastRemaining = Int.max
        while true {
            let done = try withConnection(operation) { connection throws -> Bool in
                if backup == nil { backup = try Backup(from: connection, to: target) }
                guard let backup else { return true }
                // A write transaction open on this connection (backup(to:) called
                // from inside a write on the same stack) holds uncommitted pages.
                if connection.isInTransaction {
                    throw LiteRecordError(
                        .storeUnavailable,
                        "\(operation) failed: it was called inside a write on the same in-memory stack, whose changes are not committed yet; call backup(to:) after the write returns")
                }
                let pages = restarts >= Self.backupRestartLimit ? -1 : Self.backupStepPages
                let done = try backup.step(pages: pages)
                if backup.remaining > lastRemaining { restarts += 1 }
                lastRemaining = backup.remaining
                return done
            }
            if done { break }
        }
        let finished = backup
        backup = nil
        try withStoreErrorContext(operation) { try finished?.finish() }
    }
}

/// The destination side of a backup: claiming a new file, and removing what
/// a failed backup left.
enum BackupFile {
    static let companions = ["-journal", "-wal", "-shm"]

    /// Creates `destination` (which must not exist), runs `copy` with a
    /// connection to it, leaves the copy in WAL mode as LiteRecord opens its
    /// stores, and removes every file it made when anything fails.
    static func write(
        _ destination: URL, operation: String, _ copy: (Connection) throws(LiteRecordError) -> Void
    ) throws(LiteRecordError) {
        let path = destination.standardizedFileURL.path
        try claim(path, operation: operation)
        do throws(LiteRecordError) {
            let target = try withErrorContext(operation) {
                try Connection(path: path, options: Connection.OpenOptions(create: false))
            }
            defer { target.close() }
            try copy(target)
            try withErrorContext(operation) {
                // The source's header decides the copy's journal mode (a WAL file
                // store's says WAL, an in-memory store's does not): make it the
                // same for every backup. Closing the only connection folds the
                // WAL back in and deletes it, leaving one file.
                try target.execute("PRAGMA journal_mode = WAL")
            }
        } catch {
            remove(path)
            throw error
        }
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

    /// Creates `path` exclusively, so that two backups or a backup and another
    /// program never write the same file; refuses a path that exists, or
    /// whose `-wal`/`-shm`/`-journal` exists (SQLite would read those as part
    /// of the new file).
    private static func claim(_ path: String, operation: String) throws(LiteRecordError) {
        for suffix in [""] + companions where FileManager.default.fileExists(atPath: path + suffix) {
            throw LiteRecordError(
                .storeUnavailable,
                "\(operation) failed: \(path + suffix) already exists; a backup never replaces a file, so choose a new name or remove it first")
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            let reason: String
            switch code {
            case EEXIST: reason = "\(path) already exists; a backup never replaces a file, so choose a new name or remove it first"
            case ENOENT, ENOTDIR: reason = "the folder \(URL(fileURLWithPath: path).deletingLastPathComponent().path) does not exist; create it first"
            case EACCES, EPERM, EROFS: reason = "no permission to create \(path) (\(String(cString: strerror(code))))"
            default: reason = "cannot create \(path): \(String(cString: strerror(code)))"
            }
            throw LiteRecordError(.storeUnavailable, "\(operation) failed: \(reason)")
        }
        close(descriptor)
    }

    /// Removes a failed backup's file and the companions SQLite made beside it
    /// (none existed before: ``claim(_:operation:)`` checked).
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
        // Joining the store as any app does (its -wal and -shm, created when
        // missing) sees what other processes commit and takes part in their
        // locking. Where nothing beside the file can be created (read-only
        // media), it is read as a reader of such a store is.
        let folder = source.deletingLastPathComponent().path
        let writable = FileManager.default.isWritableFile(atPath: folder) && FileManager.default.isWritableFile(atPath: path)
        let options = writable ? Connection.OpenOptions(create: false) : Store.readingOptions(for: path)
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
            }
        }
    }
}
