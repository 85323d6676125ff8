import Foundation
import Synchronization
@testable import LiteRecord

/// The library's folder changes (``FileOperating``), performed for real and
/// remembered until their folder is synced; ``crash()`` then undoes the ones
/// not synced, newest first, as a power loss may: a rename, link or unlink
/// is durable only once its directory is `fsync`ed.
///
/// Set it for a task with `FileOperations.$current.withValue(files) { … }`.
final class CrashingFileOperations: FileOperating {
    enum Change: Sendable, CustomStringConvertible {
        case renamed(from: String, to: String)
        case linked(from: String, to: String)
        /// `stash` keeps the content, so that a crash can bring it back.
        case unlinked(path: String, stash: String)

        var folders: [String] {
            switch self {
            case .renamed(let from, let to), .linked(let from, let to): [Self.folder(from), Self.folder(to)]
            case .unlinked(let path, _): [Self.folder(path)]
            }
        }

        var description: String {
            switch self {
            case .renamed(let from, let to): "rename \(Self.name(from)) → \(Self.name(to))"
            case .linked(let from, let to): "link \(Self.name(from)) → \(Self.name(to))"
            case .unlinked(let path, _): "unlink \(Self.name(path))"
            }
        }

        static func folder(_ path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }
        static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
    }

    private let system = SystemFileOperations()
    /// Where unlinked files wait in case a crash brings them back: outside
    /// the folders under test, whose listings the tests check; one folder
    /// per instance, removed with it (the run's check for temporary files
    /// left behind counts it otherwise).
    private let stashFolder: String = {
        let folder = TemporaryDirectory.root
            .appendingPathComponent("LiteRecordTests-crash-stash-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }()
    private let state = Mutex<(unsynced: [Change], log: [String])>(([], []))
    /// Called after each change is made, with what it was.
    private let afterChange: @Sendable (Change) -> Void
    /// Whether each operation is first a fault point of ``FaultVFS``
    /// (counted with its writes; failed, or refused after a crash, as it says).
    private let injectsFaults: Bool

    init(injectsFaults: Bool = false, afterChange: @escaping @Sendable (Change) -> Void = { _ in }) {
        self.injectsFaults = injectsFaults
        self.afterChange = afterChange
    }

    deinit {
        try? FileManager.default.removeItem(atPath: stashFolder)
    }

    private func faultPoint() throws(FileOperationError) {
        guard injectsFaults, let code = FaultVFS.decideDirectoryChange() else { return }
        throw FileOperationError(code: code)
    }

    /// The changes a power loss now could undo.
    var unsynced: [Change] { state.withLock { $0.unsynced } }
    /// Every operation, in order, as text.
    var log: [String] { state.withLock { $0.log } }

    private func record(_ change: Change) {
        state.withLock {
            $0.unsynced.append(change)
            $0.log.append(change.description)
        }
        afterChange(change)
    }

    func rename(_ source: String, to destination: String) throws(FileOperationError) {
        try faultPoint()
        try system.rename(source, to: destination)
        record(.renamed(from: source, to: destination))
    }

    func link(_ source: String, to destination: String) throws(FileOperationError) {
        try faultPoint()
        try system.link(source, to: destination)
        record(.linked(from: source, to: destination))
    }

    func unlink(_ path: String) throws(FileOperationError) {
        // Removing a file needs no room: a full disk does not stop it.
        if !FaultVFS.isDiskFullPersisting { try faultPoint() }
        let stash = stashFolder + "/\(UUID().uuidString)"
        // A copy when the stash is on another file system.
        if (try? system.link(path, to: stash)) == nil {
            guard (try? FileManager.default.copyItem(atPath: path, toPath: stash)) != nil else { throw FileOperationError(code: ENOENT) }
        }
        do {
            try system.unlink(path)
        } catch {
            try? system.unlink(stash)
            throw error
        }
        record(.unlinked(path: path, stash: stash))
    }

    func sync(_ path: String) throws(FileOperationError) {
        try faultPoint()
        try system.sync(path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return }
        let folder = URL(fileURLWithPath: path).path
        state.withLock {
            $0.log.append("sync folder")
            $0.unsynced.removeAll { $0.folders.allSatisfy { $0 == folder } }
        }
    }

    /// Undoes every change whose folder was not synced since, newest first,
    /// and forgets the stashes of the rest.
    func crash() {
        let undone = state.withLock { state -> [Change] in
            defer { state.unsynced.removeAll() }
            return state.unsynced
        }
        for change in undone.reversed() {
            switch change {
            case .renamed(let from, let to): try? system.rename(to, to: from)
            case .linked(_, let to): try? system.unlink(to)
            case .unlinked(let path, let stash): try? system.rename(stash, to: path)
            }
        }
    }
}
