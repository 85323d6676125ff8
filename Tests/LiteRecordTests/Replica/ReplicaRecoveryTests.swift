import Foundation
import Testing
import LiteRecord

/// A replica that meets Litestream's housekeeping or a failure keeps
/// reading: a snapshot replaced under a quiet replica, a watcher
/// whose polls fail, and a failed return from a point-in-time read. Each
/// test runs a Litestream of its own (``PrivateReplica``).
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: LitestreamVFSExtension.isUsable, LitestreamVFSExtension.skipReason))
struct ReplicaRecoveryTests {
    static let shelves = 2000

    /// Pins the replica at a commit, then lets Litestream write a newer
    /// snapshot and its retention (1 s) delete the one the pin reads from,
    /// with no commit in between: shelves, never read since the pin, are
    /// then read from a file that is gone. The read re-pins and succeeds.
    @Test func aQuietReplicaSurvivesItsSnapshotBeingReplaced() async throws {
        let primary = try await PrivateReplica(
            // Snapshots every 4 s: the replica must pin a commit before the
            // snapshot that covers it is written (then that snapshot replaces
            // the one the pin reads from); with 1 s, a replica slowed by a
            // busy machine pinned after it, and nothing was ever replaced.
            settings: "snapshot:\n  interval: 4s\n  retention: 1s\nl0-retention: 1s\nl0-retention-check-interval: 1s",
            databaseSettings: "    checkpoint-interval: 1s",
            seed: { context in
                for index in 0..<Self.shelves {
                    context.insert(ReplicaShelf(name: "shelf \(index) " + String(repeating: "x", count: 200)))
                }
            })
        defer { primary.stop() }
        let replica = try RecordStack(replicaAt: primary.replica, entities: replicaEntities, vfsExtension: primary.vfs)
        defer { try? replica.close() }
        var replaced = false
        for round in 1...6 where !replaced {
            let tag = "round-\(round)"
            try await primary.primary.write { context in context.insert(ReplicaNote(tag: tag, n: round)) }
            // Read only notes: the shelves' pages stay unread after the pin.
            let seen = try await waitForReplica(replica) { context in
                try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: context) == 1
            }
            try #require(seen != nil, "the replica saw round \(round)")
            let snapshotsAtPin = primary.files.filter { $0.hasPrefix("9/") }
            // Litestream snapshots the new commit and deletes the old snapshot.
            let clock = ContinuousClock()
            let end = clock.now + .seconds(12)
            while clock.now < end {
                if primary.files.filter({ $0.hasPrefix("9/") }).isDisjoint(with: snapshotsAtPin) {
                    replaced = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        try #require(replaced, "Litestream replaced the snapshot the replica was pinned to; files now: \(primary.files.sorted())")
        let shelves = try await replica.read { context in try ReplicaShelf.count(in: context) }
        #expect(shelves == Self.shelves)
    }

    /// A point-in-time read whose return to the newest commit fails (the
    /// replica's files are away at that instant) does not end the stack:
    /// the next read opens a fresh connection at the newest commit.
    @Test func aFailedReturnFromThePastDoesNotDisableTheStack() async throws {
        let primary = try await PrivateReplica()
        defer { primary.stop() }
        let replica = try RecordStack(replicaAt: primary.replica, entities: replicaEntities, vfsExtension: primary.vfs)
        defer { try? replica.close() }
        try await primary.stopReplicating()
        let files = primary.replica.appendingPathComponent("ltx")
        let away = primary.replica.appendingPathComponent("ltx-away")
        await #expect(throws: LiteRecordError.self) {
            try await replica.read(asOf: Date().addingTimeInterval(60)) { context in
                let count = try ReplicaNote.count(in: context)
                try FileManager.default.moveItem(at: files, to: away)
                return count
            }
        }
        try FileManager.default.moveItem(at: away, to: files)
        #expect(try await replica.read { try ReplicaNote.count(in: $0) } == 1)
        #expect(replica.replicaPosition.txid != 0)
    }

    /// The replica's watcher at txid N; then L0 files from N + 2 on appear
    /// (N + 1 never does), as after a suspension while Litestream's
    /// retention removed it: every poll fails ("non-contiguous ltx file").
    /// With a snapshot of the newest commit there too, the watcher re-pins
    /// from a fresh restore plan and the replica follows again.
    @Test func aWatcherThatStopsAdvancingRecovers() async throws {
        let (primary, mirror, newest) = try await Self.mirrorWithAGap()
        defer { primary.stop() }
        let replica = try RecordStack(replicaAt: mirror.replica, entities: replicaEntities, vfsExtension: primary.vfs)
        defer { try? replica.close() }
        try Self.fill(mirror, from: primary, after: replica.replicaPosition.txid, withSnapshot: true)
        let seen = try await waitForReplica(replica, timeout: .seconds(40)) { context in
            try ReplicaNote.count(matching: #Predicate { $0.tag == "after-gap" }, in: context) == 3
        }
        #expect(seen != nil, "the replica followed again")
        #expect(replica.replicaPosition.txid >= newest)
    }

    /// As above without the snapshot: no restore plan reaches past the gap,
    /// and the position says the replica is stale, with why.
    @Test func aWatcherThatStopsAdvancingSaysSo() async throws {
        let (primary, mirror, _) = try await Self.mirrorWithAGap()
        defer { primary.stop() }
        let replica = try RecordStack(replicaAt: mirror.replica, entities: replicaEntities, vfsExtension: primary.vfs)
        defer { try? replica.close() }
        #expect(!replica.replicaPosition.isStale)
        try Self.fill(mirror, from: primary, after: replica.replicaPosition.txid, withSnapshot: false)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while !replica.replicaPosition.isStale && clock.now < end { try await Task.sleep(for: .milliseconds(200)) }
        let position = replica.replicaPosition
        #expect(position.isStale)
        #expect(position.staleReason?.contains("followed it only to txid") == true, "\(position.staleReason ?? "")")
    }

    /// A private replica, a copy of its folder (the mirror) taken now, and
    /// three more commits on the primary that the mirror does not hold yet;
    /// returns the txid of the primary replica's newest snapshot, which
    /// holds them.
    static func mirrorWithAGap() async throws -> (PrivateReplica, Mirror, UInt64) {
        let primary = try await PrivateReplica(settings: "snapshot:\n  interval: 1s", databaseSettings: "    checkpoint-interval: 1s")
        let mirror = Mirror(replica: primary.folder.appendingPathComponent("mirror", isDirectory: true))
        try await primary.waitUntil("an L0 file", within: .seconds(10)) { primary.files.contains { $0.hasPrefix("0/") } }
        try FileManager.default.copyItem(at: primary.replica, to: mirror.replica)
        for n in 1...3 {
            try await primary.primary.write { context in context.insert(ReplicaNote(tag: "after-gap", n: n)) }
            try await Task.sleep(for: .milliseconds(400))
        }
        try await Task.sleep(for: .seconds(1))
        let written = Mirror.newest(in: primary.files)
        try await primary.waitUntil("a snapshot of txid \(written)", within: .seconds(15)) {
            Mirror.newestSnapshot(in: primary.files) >= written
        }
        return (primary, mirror, Mirror.newestSnapshot(in: primary.files))
    }

    /// Copies into `mirror` the primary's L0 files after `txid` + 1 (never
    /// the one right after `txid`), and its newest snapshot when asked.
    static func fill(_ mirror: Mirror, from primary: PrivateReplica, after txid: UInt64, withSnapshot: Bool) throws {
        let files = primary.files
        let newest = Mirror.newestSnapshot(in: files)
        var copy = files.filter { name in
            name.hasPrefix("0/") && (Mirror.range(name).map { $0.min > txid + 1 } ?? false)
        }
        if withSnapshot, let snapshot = files.first(where: { $0.hasPrefix("9/") && Mirror.range($0)?.max == newest }) {
            copy.insert(snapshot)
        }
        try #require(copy.contains { $0.hasPrefix("0/") }, "L0 files past the gap: \(files.sorted())")
        for name in copy.sorted() {
            let target = mirror.replica.appendingPathComponent("ltx/\(name)")
            let staged = primary.folder.appendingPathComponent("staged-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: primary.replica.appendingPathComponent("ltx/\(name)"), to: staged)
            try FileManager.default.moveItem(at: staged, to: target)
        }
    }

    /// A hand-kept copy of a replica's folder.
    struct Mirror {
        let replica: URL

        /// The txid range of `<level>/<min>-<max>.ltx`.
        static func range(_ name: String) -> (min: UInt64, max: UInt64)? {
            let file = name.split(separator: "/").last.map(String.init) ?? name
            guard file.hasSuffix(".ltx") else { return nil }
            let parts = file.dropLast(4).split(separator: "-")
            guard parts.count == 2, let min = UInt64(parts[0], radix: 16), let max = UInt64(parts[1], radix: 16) else { return nil }
            return (min, max)
        }

        static func newest(in files: Set<String>) -> UInt64 {
            files.compactMap { range($0)?.max }.max() ?? 0
        }

        static func newestSnapshot(in files: Set<String>) -> UInt64 {
            newest(in: files.filter { $0.hasPrefix("9/") })
        }
    }
}

/// A replica opened before Litestream's first level-1 compaction (every
/// 3 s here, 30 s by default) keeps following through the compactions,
/// never standing still for long. A guard for the 31 s stand-still
/// `make bench-replica` once measured: its VFS log showed polls failing
/// with "poll L1: non-contiguous ltx file" after the first compaction,
/// which the watcher now answers by re-pinning within 10 s (this run need
/// not meet that failure).
@Suite(.timeLimit(.minutes(2)), .enabled(if: LitestreamVFSExtension.isUsable, LitestreamVFSExtension.skipReason))
struct ReplicaCompactionTests {
    @Test func aReplicaFollowsAcrossLevelOneCompactions() async throws {
        let primary = try await PrivateReplica(settings: "levels:\n  - interval: 3s", databaseSettings: "    checkpoint-interval: 1s")
        defer { primary.stop() }
        let replica = try RecordStack(replicaAt: primary.replica, entities: replicaEntities, vfsExtension: primary.vfs)
        defer { try? replica.close() }
        try await primary.primary.write { context in context.insert(ReplicaCounter(tag: "compaction")) }
        let clock = ContinuousClock()
        let start = clock.now
        var seen = (value: 0, at: clock.now)
        var longest = Duration.zero
        var value = 0
        while clock.now - start < .seconds(25) {
            value += 1
            let next = value
            try await primary.primary.write { context in
                let counter = try #require(try ReplicaCounter.findFirst(byAttribute: "tag", withValue: "compaction", in: context))
                counter.value = next
            }
            let now = try await replica.read { context in
                try ReplicaCounter.findFirst(byAttribute: "tag", withValue: "compaction", in: context)?.value ?? 0
            }
            if now != seen.value {
                longest = max(longest, clock.now - seen.at)
                seen = (now, clock.now)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        longest = max(longest, clock.now - seen.at)
        print("[replica] across level-1 compactions every 3 s: the replica stood still longest for \(longest)")
        #expect(longest < .seconds(13), "the replica stood still for \(longest)")
    }
}
