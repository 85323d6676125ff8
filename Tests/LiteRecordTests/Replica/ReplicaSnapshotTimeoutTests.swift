import Foundation
import Testing
import LiteRecord

/// A replica location with no snapshot: Litestream's VFS would wait for one
/// without end; `RecordStack(replicaAt:)` waits `snapshotTimeout`, then
/// throws.
@Suite(.timeLimit(.minutes(1)), .enabled(if: LitestreamVFSExtension.isUsable, LitestreamVFSExtension.skipReason))
struct ReplicaSnapshotTimeoutTests {
    @Test func aFolderThatNeverGetsASnapshotTimesOut() throws {
        let folder = try TemporaryDirectory()
        let vfs = try #require(LitestreamVFSExtension.url)
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack(replicaAt: folder.url, entities: replicaEntities, vfsExtension: vfs, snapshotTimeout: .milliseconds(600))
        }
        let waited = clock.now - start
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.message.contains("no snapshot") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("snapshotTimeout") == true, "\(error?.message ?? "")")
        #expect(waited >= .milliseconds(600) && waited < .seconds(5), "waited \(waited)")
    }

    /// A snapshot that arrives during the wait is opened.
    @Test func aSnapshotThatArrivesInTimeIsOpened() async throws {
        let source = try await PrivateReplica()
        defer { source.stop() }
        let folder = try TemporaryDirectory()
        let target = folder.url.appendingPathComponent("late-replica", isDirectory: true)
        let staged = folder.url.appendingPathComponent("staged", isDirectory: true)
        let snapshot = source.replica
        let copy = Task.detached {
            try await Task.sleep(for: .milliseconds(700))
            try FileManager.default.copyItem(at: snapshot, to: staged)
            try FileManager.default.moveItem(at: staged, to: target)
        }
        let replica = try RecordStack(
            replicaAt: target, entities: replicaEntities, vfsExtension: source.vfs, snapshotTimeout: .seconds(20))
        defer { try? replica.close() }
        try await copy.value
        #expect(try await replica.read { try ReplicaNote.count(in: $0) } == 1)
    }
}
