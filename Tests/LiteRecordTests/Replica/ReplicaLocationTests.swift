import Foundation
import Testing
import LiteRecord

/// Where a replica is, as each open names it to Litestream's VFS (its URI's
/// `replica_url`): several replicas in one process, and one folder
/// spelled several ways.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: LitestreamVFSExtension.isUsable, LitestreamVFSExtension.skipReason))
struct ReplicaLocationTests {
    static func count(_ tag: String, in replica: RecordStack) async throws -> Int {
        try await replica.read { context in try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: context) }
    }

    /// Two replicas of two primaries open at once, each reading its own
    /// rows, old and new: nothing of one location leaks into the other.
    @Test func twoReplicasReadTheirOwnDataAtOnce() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let tag = "own-\(UUID().uuidString)"
        let other = try await PrivateReplica(seed: { $0.insert(ReplicaNote(tag: tag, n: 1)) })
        defer { other.stop() }
        let first = try RecordStack(replicaAt: fixture.replica, entities: replicaEntities, vfsExtension: fixture.vfs)
        defer { try? first.close() }
        let second = try RecordStack(replicaAt: other.replica, entities: replicaEntities, vfsExtension: other.vfs)
        defer { try? second.close() }

        #expect(try await Self.count(tag, in: second) == 1)
        #expect(try await Self.count(tag, in: first) == 0)
        #expect(try await Self.count("seed", in: first) >= 1)
        #expect(try await Self.count("seed", in: second) == 0)

        // New commits reach each replica from its own primary only.
        try await fixture.primary.write { context in context.insert(ReplicaNote(tag: tag, n: 10)) }
        try await other.primary.write { context in context.insert(ReplicaNote(tag: tag, n: 20)) }
        let notes = FetchRequest(predicate: #Predicate<ReplicaNote> { $0.tag == tag }, sortBy: [SortDescriptor(\.n)])
        let firstSaw = try await waitForReplica(first) { try ReplicaNote.fetch(notes, in: $0).map(\.n) == [10] }
        let secondSaw = try await waitForReplica(second) { try ReplicaNote.fetch(notes, in: $0).map(\.n) == [1, 20] }
        #expect(firstSaw != nil, "the first replica reads its primary's new note, and only that")
        #expect(secondSaw != nil, "the second replica reads its primary's notes, and only those")
        #expect(first.replicaPosition.txid != 0 && second.replicaPosition.txid != 0)
    }

    /// `file:/x`, `file:///x/` and a symlink to `x` name one folder: each
    /// opens the fixture's replica, all at once.
    @Test func oneFolderSpelledThreeWaysIsOneReplica() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let folder = try TemporaryDirectory()
        let link = folder.url.appendingPathComponent("linked-replica")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: fixture.replica)
        let path = fixture.replica.path.hasSuffix("/") ? String(fixture.replica.path.dropLast()) : fixture.replica.path
        let spellings = [
            try #require(URL(string: "file://" + path)),
            try #require(URL(string: "file:" + path)),
            try #require(URL(string: "file://" + path + "/")),
            try #require(URL(string: "file://" + link.path)),
        ]
        var stacks: [RecordStack] = []
        defer { for stack in stacks { try? stack.close() } }
        for spelling in spellings {
            let stack = try RecordStack(replicaAt: spelling, entities: replicaEntities, vfsExtension: fixture.vfs)
            stacks.append(stack)
            #expect(try await Self.count("seed", in: stack) >= 1, "\(spelling.absoluteString)")
        }
    }
}
