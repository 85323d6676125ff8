public import Foundation

extension RecordStack {
    /// Writes a consistent copy of the store to a new file at `destination`,
    /// while other contexts and processes keep saving.
    ///
    /// ```swift
    /// try stack.backup(to: backupsFolder.appendingPathComponent("Notes-2026-11-25.sqlite"))
    /// let copy = try RecordStack(storeAt: backupURL, entities: [Note.self])   // a backup is a store
    /// ```
    ///
    /// The copy holds what was committed at one instant, never part of a save
    /// (SQLite's online backup API, https://sqlite.org/backup.html):
    /// - A file store is read through a connection of the backup's own, in
    ///   one read transaction: saves go on while it copies (WAL mode) and none
    ///   of them is in the copy. The `-wal` file grows meanwhile, because
    ///   nothing newer than the copy's snapshot can be checkpointed until it ends.
    /// - An in-memory store is copied a few hundred pages at a time between
    ///   saves; a save between two steps makes the copy start over. If saves
    ///   overtake it three times, the rest is copied in one step that saves
    ///   wait for.
    ///
    /// The copy is an ordinary store in WAL mode, one file (no `-wal`
    /// beside it): open it with the same entities, or check it with
    /// `literecord check`. An in-memory stack saved this way becomes a file store.
    /// A store that keeps history gives the copy a history identifier of its
    /// own (`Docs/History.md`): restored, the copy numbers its next
    /// transactions as the original did, so the original's tokens are
    /// `.historyExpired` there rather than read as the copy's.
    ///
    /// - Parameter destination: the new file. It must not exist, nor its
    ///   `-wal`, `-shm` or `-journal`; its folder must exist.
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` when
    ///   `destination` exists (it is left untouched), its folder is missing or
    ///   not writable, the disk fills up, or the stack is closed. A failed
    ///   backup removes every file it created.
    public func backup(to destination: URL) throws {
        try store.backup(to: destination)
    }

    /// Writes a consistent copy of the store file at `source` to a new file at
    /// `destination`, without opening a stack: what `literecord backup` does.
    /// Apps that have the store open may keep saving meanwhile.
    ///
    /// ```swift
    /// try RecordStack.backup(storeAt: RecordStack.storeURL(forStoreNamed: "Notes"), to: backupURL)
    /// ```
    ///
    /// Works for any SQLite database file, whatever model wrote it; the copy
    /// is taken as ``backup(to:)`` takes a file store's. The source is only
    /// read: it is opened read-only, so the backup never checkpoints or
    /// removes a `-wal` (one left to a replicator stays as it was). When
    /// nothing has the store open, it is read without locks (as a read-only
    /// stack reads it), and a store that an app opens for writing during the
    /// copy makes the backup fail rather than copy two states.
    ///
    /// - Parameters:
    ///   - source: an existing store file.
    ///   - destination: the new file; as in ``backup(to:)``.
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` (no such
    ///   source, an empty file, a folder; `destination` exists, or cannot be
    ///   created or written; `source` was opened for writing during a copy
    ///   that began while nothing had it open: run it again) or
    ///   `.corruptStore` (`source` is not a SQLite database). A failed backup
    ///   removes every file it created.
    public static func backup(storeAt source: URL, to destination: URL) throws {
        try StoreFileBackup.backup(source.standardizedFileURL, to: destination)
    }
}
