import Foundation

/// What opening a store file for writing finds and makes before SQLite opens
/// it: the folders it creates for the store, whether the file was already
/// there, and whether the process may write to them.
///
/// A failed first open removes what it made (issue #33, item 4): a 0-byte
/// file left behind by a full disk would be taken for a new, empty store by
/// the next open. A file that was there before is never removed.
struct StoreFileCreation {
    let url: URL
    /// Whether the store file existed before this open.
    let fileExisted: Bool
    /// The folders this open created for the store, deepest first.
    let createdFolders: [URL]

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
        let creation = StoreFileCreation(url: url, fileExisted: fileManager.fileExists(atPath: url.path), createdFolders: missing)
        if let error = creation.writabilityError() {
            removeEmptyFolders(missing)
            throw error
        }
        return creation
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
                "cannot open the store at \(path) for writing: its folder \(folder) is not writable (\(reason)), and SQLite keeps the store's -wal and -shm files beside it; \(Self.readOnlyAdvice)")
        }
        return LiteRecordError(.storeUnavailable, "cannot create the store at \(path): its folder \(folder) is not writable (\(reason))")
    }

    /// Removes what a failed open made: the store file and its `-wal`, `-shm`
    /// and `-journal` when `fileIsNew`, then the folders created for it that
    /// are still empty. Nothing is removed when the failure says another
    /// connection holds the file (it may be that connection's new store).
    func removeLeftovers(after error: LiteRecordError, fileIsNew: Bool) {
        if let code = error.resultCode, SQLiteError.isBusy(code) { return }
        if fileIsNew {
            for suffix in ["-wal", "-shm", "-journal", ""] {
                try? FileManager.default.removeItem(atPath: url.path + suffix)
            }
        }
        Self.removeEmptyFolders(createdFolders)
    }

    /// Removes each folder, deepest first, when it is empty; `rmdir` refuses
    /// a folder someone has put something into meanwhile.
    private static func removeEmptyFolders(_ folders: [URL]) {
        for folder in folders { rmdir(folder.path) }
    }
}
