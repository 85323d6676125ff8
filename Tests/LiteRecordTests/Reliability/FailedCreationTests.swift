import Foundation
import Testing
import LiteRecord

/// A store that could not be created is not left behind: the file, its
/// `-wal`, `-shm` and `-journal`, and the folders made for it are removed, so
/// the next open does not take an empty file for a new, empty store; a file
/// that was there before is never removed. On a full
/// tmpfs, skipped with the reason printed where one cannot be mounted.
@Suite struct FailedCreationTests {
    @Test func creatingAStoreOnAFullDiskLeavesNothingBehind() throws {
        _ = try Reliability.withSmallDisk(bytes: 1 << 20) { disk in
            let filler = try Reliability.fill(disk)
            let url = disk.appendingPathComponent("new.sqlite")
            let error = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            }
            #expect(error.kind == .storeUnavailable, "\(error)")
            #expect(error.message.contains(url.path), "\(error.message)")
            for suffix in ["", "-wal", "-shm", "-journal"] {
                #expect(!FileManager.default.fileExists(atPath: url.path + suffix), "\(url.lastPathComponent)\(suffix) was left behind")
            }

            // The folders created for it go too; the disk's own folder stays.
            let nested = disk.appendingPathComponent("a/b/nested.sqlite")
            let nestedError = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: nested, entities: [HandWrittenNote.self])
            }
            #expect(nestedError.kind == .storeUnavailable, "\(nestedError)")
            #expect(!FileManager.default.fileExists(atPath: disk.appendingPathComponent("a").path), "the folders made for the store were left behind")
            #expect(FileManager.default.fileExists(atPath: disk.path))

            // With room again, the store is created as new.
            try FileManager.default.removeItem(at: filler)
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            let context = stack.newContext()
            context.insert(HandWrittenNote(text: "after"))
            try context.save()
            try stack.close()
            #expect(try DiskFullTests.count(url) == 1)
            Reliability.report("failed creation: a new store on a full 1 MiB tmpfs threw \"\(error.message)\" and left no file behind")
        }
    }

    /// An empty file that was there before (made by someone else) is kept when
    /// the open fails.
    @Test func aFileThatWasThereBeforeIsNeverRemoved() throws {
        _ = try Reliability.withSmallDisk(bytes: 1 << 20) { disk in
            let url = disk.appendingPathComponent("existing.sqlite")
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
            let filler = try Reliability.fill(disk)
            defer { try? FileManager.default.removeItem(at: filler) }
            let error = try #require(throws: LiteRecordError.self) {
                try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
            }
            #expect(error.kind == .storeUnavailable, "\(error)")
            #expect(FileManager.default.fileExists(atPath: url.path), "a file that was there before was removed")
        }
    }

    /// Not only a full disk: a new store whose creation fails for any reason
    /// (here a migration plan that does not validate) is removed as well.
    @Test func aNewStoreWhoseSetupFailsIsRemoved() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("made/for/it/store.sqlite")
        // Two steps with one name: refused while the new store is being set up.
        let plan = MigrationPlan().step("twice") { _ in }.step("twice") { _ in }
        let error = try #require(throws: LiteRecordError.self) {
            try RecordStack(storeAt: url, entities: [HandWrittenNote.self], migration: .plan(plan))
        }
        #expect(error.kind == .migrationFailed, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: url.path), "the store that could not be set up was left behind")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("made").path))
    }
}
