import Foundation
import Testing
@testable import LiteRecord

/// Found by the fault suite: a backup whose copy was linked to
/// its name but whose folder could not be synced threw — and left the copy
/// at the destination, as if it had been made. A backup that fails leaves
/// nothing.
@Suite struct BackupFolderSyncTests {
    /// The system's operations, except that syncing a folder fails.
    struct FolderSyncFails: FileOperating {
        let system = SystemFileOperations()
        func rename(_ source: String, to destination: String) throws(FileOperationError) { try system.rename(source, to: destination) }
        func link(_ source: String, to destination: String) throws(FileOperationError) { try system.link(source, to: destination) }
        func unlink(_ path: String) throws(FileOperationError) { try system.unlink(path) }
        func sync(_ path: String) throws(FileOperationError) {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { throw FileOperationError(code: EIO) }
            try system.sync(path)
        }
    }

    @Test func aBackupWhoseFolderCannotBeSyncedLeavesNoCopy() throws {
        let folder = try TemporaryDirectory()
        let stack = try RecordStack(storeAt: folder.file("People.sqlite"), entities: [HandWrittenPerson.self])
        defer { try? stack.close() }
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        try context.save()
        let copy = folder.file("Copy.sqlite")
        let error = FileOperations.$current.withValue(FolderSyncFails()) {
            expectError(.storeUnavailable) { try stack.backup(to: copy) }
        }
        #expect(error?.message.contains("syncing the folder") == true)
        #expect(!FileManager.default.fileExists(atPath: copy.path), "the failed backup left its copy at the destination")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix("People.sqlite") }
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
