import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file operation: the `errno` it set.
struct FileOperationError: Error, Sendable {
    let code: Int32

    /// `strerror`'s words for ``code``.
    var reason: String { String(cString: strerror(code)) }
}

/// The changes LiteRecord itself makes to folders — renames, links,
/// removals — and the syncs that make files and those changes durable.
///
/// A rename, link or unlink reaches the disk only once its folder is synced
/// (`fsync` of the directory); until then a power loss may undo it
/// (https://sqlite.org/atomiccommit.html, "Deleting The Rollback Journal",
/// and SQLite's own `unixSync` with `dirSync`). Moving a store aside,
/// publishing a backup and keeping or rotating pre-migration copies go through
/// ``FileOperations/current``, so that the fault suite can replace it with
/// one that crashes between a change and its sync.
protocol FileOperating: Sendable {
    func rename(_ source: String, to destination: String) throws(FileOperationError)
    /// A hard link; fails with `EEXIST` rather than replace `destination`.
    func link(_ source: String, to destination: String) throws(FileOperationError)
    func unlink(_ path: String) throws(FileOperationError)
    /// `fsync` of the file or folder at `path`.
    func sync(_ path: String) throws(FileOperationError)
}

enum FileOperations {
    /// The operations in use: the system's, unless a test set its own for the
    /// task (`$current.withValue`).
    @TaskLocal static var current: any FileOperating = SystemFileOperations()

    /// Syncs the folder holding `path`, so that a rename, link or removal of
    /// `path` made before survives a power loss.
    static func syncFolder(of path: String) throws(FileOperationError) {
        try current.sync(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
}

/// The POSIX calls themselves.
struct SystemFileOperations: FileOperating {
    func rename(_ source: String, to destination: String) throws(FileOperationError) {
        guard posixRename(source, destination) == 0 else { throw FileOperationError(code: errno) }
    }

    func link(_ source: String, to destination: String) throws(FileOperationError) {
        guard posixLink(source, destination) == 0 else { throw FileOperationError(code: errno) }
    }

    func unlink(_ path: String) throws(FileOperationError) {
        guard posixUnlink(path) == 0 else { throw FileOperationError(code: errno) }
    }

    func sync(_ path: String) throws(FileOperationError) {
        guard posixSync(path) == 0 else { throw FileOperationError(code: errno) }
    }
}

// At file scope, where the names are the C library's, not the methods'.
private func posixRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func posixLink(_ source: String, _ destination: String) -> Int32 { link(source, destination) }
private func posixUnlink(_ path: String) -> Int32 { unlink(path) }

private func posixSync(_ path: String) -> Int32 {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return -1 }
    #if canImport(Darwin)
    // Darwin's fsync leaves the data in the drive's cache; only F_FULLFSYNC
    // makes it survive a power loss (falling back to fsync where a file
    // system does not support it).
    var result = fcntl(descriptor, F_FULLFSYNC)
    if result != 0 { result = fsync(descriptor) }
    #else
    let result = fsync(descriptor)
    #endif
    let code = errno
    close(descriptor)
    errno = code
    return result
}
