import Foundation

/// What opening a store file for writing finds and makes before SQLite opens
/// it: the folders it creates for the store, whether the file was already
/// there, and whether the process may write to them.
///
/// A failed first open removes what it made: a 0-byte
/// file left behind by a full disk would be taken for a new, empty store by
/// the next open. A file that was there before is never removed, nor one
/// that another connection (another process) created, or committed a store
/// to, while this open ran (Docs/Internals/Invariants.md, "A failed first
/// open removes only what it made"): the file is created here with
/// `O_EXCL`, so that "this open made it" is decided atomically, and it is
/// removed only while it is still that file (same device and inode), holds
/// no table, and no other connection is writing to it.
struct StoreFileCreation {
    let url: URL
    /// Whether the store file existed before this open.
    let fileExisted: Bool
    /// The device and inode of the file this open created, `nil` when it
    /// created none.
    let createdFile: (device: UInt64, inode: UInt64)?
    /// The folders this open created for the store, deepest first.
    let createdFolders: [URL]

    /// For tests: runs after ``prepare(_:)`` looked at the path and before
    /// SQLite opens it, so that a test can create a store there from another
    /// connection exactly then, as another process could.
    @TaskLocal static var afterPreparing: (@Sendable (URL) -> Void)?

    /// The advice every "not writable" message ends with.
    static let readOnlyAdvice = "RecordStack(storeAt:entities:readOnly: true) opens it for reading"

    /// Creates the store's missing folders and checks that the file (when it
    /// exists) and its folder are writable.
    ///
    /// - Throws: `.storeUnavailable` when a folder cannot be created or the
    ///   file or its folder is not writable; the folders created are removed
    ///   again first.
    static func prepare(_ url: URL) throws(LiteRecordError) -> StoreFileCreation {
        let fileManager = FileManager.default
        let folder = url.deletingLastPathComponent()
        var missing: [URL] = []
        var ancestor = folder.standardizedFileURL
        while !fileManager.fileExists(atPath: ancestor.path), ancestor.path != "/" {
            missing.append(ancestor)
            ancestor = ancestor.deletingLastPathComponent()
        }
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            removeEmptyFolders(missing)
            throw LiteRecordError(.storeUnavailable, "cannot create the store's folder \(folder.path): \(error.localizedDescription)")
        }
        let created: (device: UInt64, inode: UInt64)?
        do throws(LiteRecordError) {
            try refuseEvictedFile(url)
            created = try createExclusively(url)
        } catch {
            removeEmptyFolders(missing)
            throw error
        }
        let creation = StoreFileCreation(
            url: url, fileExisted: created == nil && fileManager.fileExists(atPath: url.path), createdFile: created, createdFolders: missing)
        if let error = creation.writabilityError() {
            creation.removeLeftovers(after: error, movedAside: false)
            throw error
        }
        return creation
    }

    /// The placeholder iCloud Drive leaves in place of a file it evicted
    /// (`.Notes.sqlite.icloud` for `Notes.sqlite`): the file exists, but is
    /// not downloaded.
    static func iCloudPlaceholder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".icloud", isDirectory: false)
    }

    /// Refuses to create a store where iCloud Drive evicted one: only its
    /// placeholder (`.<file>.icloud`) is there, and a new, empty store would
    /// take the place of the user's data once it downloads.
    ///
    /// - Throws: `.storeUnavailable` naming the placeholder and what to do.
    private static func refuseEvictedFile(_ url: URL) throws(LiteRecordError) {
        let placeholder = iCloudPlaceholder(of: url)
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: url.path), fileManager.fileExists(atPath: placeholder.path) else { return }
        throw LiteRecordError(
            .storeUnavailable,
            "the store at \(url.path) is in iCloud Drive and not downloaded (\(placeholder.lastPathComponent) stands in for it): download it first (FileManager.startDownloadingUbiquitousItem(at:)) and open it once it is local; nothing was created"
        )
    }

    /// Creates an empty file at `url` unless one is there (`O_EXCL`: the check
    /// and the creation are one step), and returns its device and inode;
    /// `nil` when a file was there already. SQLite opens an empty file as an
    /// empty database.
    ///
    /// - Throws: `.storeUnavailable` when the file can be neither created nor
    ///   found (a full disk, no permission).
    private static func createExclusively(_ url: URL) throws(LiteRecordError) -> (device: UInt64, inode: UInt64)? {
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            let code = errno
            // There already (EEXIST), or not ours to create: writabilityError() explains the latter.
            if code == EEXIST || code == EACCES || code == EPERM || code == EROFS { return nil }
            throw LiteRecordError(.storeUnavailable, "cannot create the store at \(url.path): \(String(cString: strerror(code)))")
        }
        // Nothing else has this new file open yet, so closing the descriptor
        // cannot release another connection's lock on it.
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Why the process cannot write the store, or `nil`.
    ///
    /// SQLite opens a file it may not write read-only without a word and
    /// fails at the first write ("attempt to write a readonly database"); in
    /// WAL mode it also creates `-wal` and `-shm` files beside the store. So
    /// both are checked up front, with the reason and what to do instead.
    func writabilityError() -> LiteRecordError? {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        if fileExisted, access(path, W_OK) != 0 {
            let reason = String(cString: strerror(errno))
            return LiteRecordError(
                .storeUnavailable,
                "cannot open the store at \(path) for writing: the file is not writable (\(reason)); \(Self.readOnlyAdvice)")
        }
        guard access(folder, W_OK | X_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        if fileExisted {
            return LiteRecordError(
                .storeUnavailable,
                "cannot open the store at \(path) for writing: its folder \(folder) is not writable (\(reason)), and SQLite keeps the store's -wal and -shm files beside it; \(Self.readOnlyAdvice)"
            )
        }
        return LiteRecordError(.storeUnavailable, "cannot create the store at \(path): its folder \(folder) is not writable (\(reason))")
    }

    /// Removes what a failed open made: the store file and its `-wal`, `-shm`
    /// and `-journal` when this open created the file (or, `movedAside`,
    /// started it over after moving the old one aside), then the folders
    /// created for it that are still empty. Nothing is removed when the
    /// failure says another connection holds the file, when the file at the
    /// path is no longer the one this open created, or when it holds a store
    /// (tables) or a write in progress: another connection's new store.
    func removeLeftovers(after error: LiteRecordError, movedAside: Bool) {
        if let code = error.resultCode, SQLiteError.isBusy(code) { return }
        if (movedAside || isStillTheCreatedFile()) && holdsNothing() {
            for suffix in ["-wal", "-shm", "-journal", ""] {
                try? FileManager.default.removeItem(atPath: url.path + suffix)
            }
        }
        Self.removeEmptyFolders(createdFolders)
    }

    private func isStillTheCreatedFile() -> Bool {
        guard let createdFile else { return false }
        var info = stat()
        guard stat(url.path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == createdFile.device && UInt64(info.st_ino) == createdFile.inode
    }

    /// Whether the file holds no table and nobody writes to it: it is
    /// looked at through SQLite (a connection of its own, which takes part in
    /// the file's locking), never through a file descriptor of its own, whose
    /// closing would release this process's locks on the file.
    private func holdsNothing() -> Bool {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else { return false }
        if size.intValue == 0 && !FileManager.default.fileExists(atPath: url.path + "-wal") { return true }
        guard let connection = try? Connection(path: url.path, options: Connection.OpenOptions(create: false, busyTimeout: .zero))
        else { return false }
        defer { connection.close() }
        do {
            // Refused while another connection writes (its new store not yet committed).
            try connection.execute("BEGIN IMMEDIATE TRANSACTION")
            defer { try? connection.execute("ROLLBACK TRANSACTION") }
            return try connection.scalar("SELECT count(*) FROM sqlite_schema") == .integer(0)
        } catch {
            return false
        }
    }

    /// Removes each folder, deepest first, when it is empty; `rmdir` refuses
    /// a folder someone has put something into meanwhile.
    private static func removeEmptyFolders(_ folders: [URL]) {
        for folder in folders { rmdir(folder.path) }
    }
}
