import Foundation
import Testing
import LiteRecord

/// Read replicas over Litestream's VFS (Docs/Deployment.md, "Read replicas"), for real: a
/// primary store written by this process, `litestream replicate` copying it
/// every 200 ms into a `file` replica, and `RecordStack(replicaAt:)` reading
/// that replica through `litestream-vfs.so` — both installed by
/// `make litestream`. Skipped, with the reason, where they are not.
///
/// Every test here reads the fixture's replica (``ReplicaFixture``), each
/// with rows of its own tag; `ReplicaLocationTests` and
/// `ReplicaRecoveryTests` start replicas of their own.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: LitestreamVFSExtension.isUsable, LitestreamVFSExtension.skipReason))
struct ReplicaTests {
    static func report(_ line: String) { print("[replica] \(line)") }

    func openReplica(_ fixture: ReplicaFixture.Running) throws -> RecordStack {
        try RecordStack(replicaAt: URL(string: fixture.replica.absoluteString)!, entities: replicaEntities, vfsExtension: fixture.vfs)
    }

    static func notes(_ tag: String) -> FetchRequest<ReplicaNote> {
        FetchRequest(predicate: #Predicate<ReplicaNote> { $0.tag == tag }, sortBy: [SortDescriptor(\.n)])
    }

    @Test func readsWhatThePrimaryCommitted() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        #expect(replica.isReplica)
        let tag = "read-\(UUID().uuidString)"
        try await fixture.primary.write { context in
            let shelf = ReplicaShelf(name: tag)
            context.insert(shelf)
            for n in [3, 1, 2] {
                let note = ReplicaNote(tag: tag, n: n, body: "note \(n) \(n == 2 ? "zeppelin" : "")")
                context.insert(note)
                note.shelf = shelf
            }
        }
        let waited = try await waitForReplica(replica) { context in
            try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: context) == 3
        }
        try #require(waited != nil, "the replica never showed the commit; litestream log at \(fixture.log.path)")

        // Finders, predicates, sorting, aggregates: as on the primary.
        let (sorted, atLeastTwo, total, first, shelves, onShelf) = try await replica.read { context in
            let sorted = try ReplicaNote.findAll(matching: #Predicate { $0.tag == tag }, sortedBy: [SortDescriptor(\.n)], in: context)
            let atLeastTwo = try ReplicaNote.count(matching: #Predicate { $0.tag == tag && $0.n >= 2 }, in: context)
            let total: Int = try ReplicaNote.aggregate(.sum, of: \.n, matching: #Predicate { $0.tag == tag }, in: context)
            let first = try ReplicaNote.search("zeppelin", matching: #Predicate { $0.tag == tag }, in: context).map(\.n)
            var prefetching = FetchRequest<ReplicaNote>(predicate: #Predicate { $0.tag == tag })
            prefetching.relationshipKeyPathsForPrefetching = [\ReplicaNote.shelf]
            let shelves = try ReplicaNote.fetch(prefetching, in: context).map { $0.shelf?.name }
            let onShelf = try ReplicaShelf.findFirst(byAttribute: "name", withValue: tag, in: context)?.notes.count
            return (sorted.map(\.n), atLeastTwo, total, first, shelves, onShelf)
        }
        #expect(sorted == [1, 2, 3])
        #expect(atLeastTwo == 2)
        #expect(total == 6)
        #expect(first == [2], "full-text search")
        #expect(shelves == [tag, tag, tag], "a prefetched to-one")
        #expect(onShelf == 3, "a to-many, faulted in")

        let position = replica.replicaPosition
        #expect(position.txid > 0)
        #expect(position.commitTime != nil)
        Self.report("a commit reached the replica \(waited!) after it returned; position \(position)")

        // A backup of a replica is an ordinary store holding what it read.
        let folder = try TemporaryDirectory()
        let copy = folder.file("from-replica.sqlite")
        try replica.backup(to: copy)
        let restored = try RecordStack(storeAt: copy, entities: replicaEntities)
        defer { try? restored.close() }
        #expect(try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: restored.newContext()) == 3)
    }

    @Test func pointInTimeReadsSeeThePast() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let tag = "time-\(UUID().uuidString)"
        try await fixture.primary.write { context in
            for n in 0..<2 { context.insert(ReplicaNote(tag: tag, n: n)) }
        }
        let count: @Sendable (RecordContext) throws -> Int = { context in
            try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: context)
        }
        try #require(try await waitForReplica(replica) { try count($0) == 2 } != nil)
        // Litestream stamps a commit when it copies it, so a time taken
        // after the replica shows the first batch is after that batch.
        let between = Date()
        try await Task.sleep(for: .milliseconds(1200))
        try await fixture.primary.write { context in
            for n in 2..<5 { context.insert(ReplicaNote(tag: tag, n: n)) }
        }
        try #require(try await waitForReplica(replica) { try count($0) == 5 } != nil)

        // The position follows new commits: its time is the newest commit's.
        let newest = try #require(replica.replicaPosition.commitTime, "a file replica's commit time comes from its LTX file")
        #expect(newest > between)
        #expect(try await replica.read(asOf: between, count) == 2)
        #expect(try await replica.read(asOf: Date().addingTimeInterval(3600), count) == 5, "after the newest commit: the newest")
        #expect(try await replica.read(count) == 5, "a plain read after a point-in-time read sees the newest again")

        let error = await #expect(throws: LiteRecordError.self) {
            try await replica.read(asOf: Date(timeIntervalSince1970: 0), count)
        }
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.message.contains("before the replica's first snapshot") == true, "\(error?.message ?? "")")
        #expect(try await replica.read(count) == 5, "a refused point-in-time read leaves the replica at the newest")

        // A primary is not a replica: its point-in-time read is refused.
        let notReplica = await #expect(throws: LiteRecordError.self) {
            try await fixture.primary.read(asOf: between, count)
        }
        #expect(notReplica?.kind == .storeUnavailable)
    }

    @Test @MainActor func observersWakeForNewCommits() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let tag = "observe-\(UUID().uuidString)"
        let observation = replica.mainContext.observe(Self.notes(tag))
        var iterator = observation.makeAsyncIterator()
        let initial = try #require(await iterator.next())
        #expect(initial.isEmpty)

        try await fixture.primary.write { context in context.insert(ReplicaNote(tag: tag, n: 7)) }
        let committed = ContinuousClock.now
        var seen: [Int] = []
        while seen.isEmpty, ContinuousClock.now - committed < .seconds(30) {
            guard let next = await iterator.next() else { break }
            seen = next.map(\.n)
        }
        #expect(seen == [7])
        Self.report("an observer on the replica saw a primary's commit \(ContinuousClock.now - committed) after it returned")
    }

    @Test func everyWriteIsRefusedNamingTheReplica() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let tag = "refused-\(UUID().uuidString)"
        func expectRefused(_ what: String, _ body: () async throws -> Void) async {
            do {
                try await body()
                Issue.record("\(what) was not refused")
            } catch let error as LiteRecordError {
                #expect(error.kind == .storeUnavailable, "\(what): \(error)")
                #expect(error.message.contains("read replica"), "\(what): \(error.message)")
                #expect(error.message.contains(fixture.replica.path), "\(what) names the replica: \(error.message)")
            } catch {
                Issue.record("\(what) threw \(error)")
            }
        }
        await expectRefused("a save") {
            let context = replica.newContext()
            context.insert(ReplicaNote(tag: tag, n: 1))
            try context.save()
        }
        await expectRefused("write") {
            try await replica.write { context in context.insert(ReplicaNote(tag: tag, n: 2)) }
        }
        await expectRefused("deleteAll") {
            _ = try ReplicaNote.deleteAll(matching: #Predicate { $0.n >= 0 }, in: replica.newContext())
        }
        await expectRefused("updateAll") {
            _ = try ReplicaNote.updateAll(matching: #Predicate { $0.n >= 0 }, set: \.n, to: 9, in: replica.newContext())
        }
        await expectRefused("an import") {
            let context = replica.newContext()
            _ = try ReplicaNote.importObjects(from: [["tag": tag, "n": 3]], in: context)
            try context.save()
        }
        await expectRefused("an update") {
            let context = replica.newContext()
            let seed = try #require(try ReplicaNote.findFirst(byAttribute: "tag", withValue: "seed", in: context))
            seed.n = 99
            try context.save()
        }
        await expectRefused("a checkpoint") { _ = try replica.checkpoint() }

        // Nothing reached the primary.
        let onPrimary = try await fixture.primary.read { context in
            try ReplicaNote.count(matching: #Predicate { $0.tag == tag || $0.n == 99 }, in: context)
        }
        #expect(onPrimary == 0)
    }

    /// `literecord inspect --replica URL [--as-of TIME] --json`: what a
    /// script checks a replica with, run as its own process (the VFS of this
    /// one serves the same replica, but a script has its own).
    @Test func inspectPrintsWhatTheReplicaHolds() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let tag = "inspect-\(UUID().uuidString)"
        try await fixture.primary.write { context in
            for n in 0..<4 { context.insert(ReplicaNote(tag: tag, n: n)) }
        }
        try #require(
            try await waitForReplica(replica) { try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: $0) == 4 } != nil)
        let expected = try await replica.read { try ReplicaNote.count(in: $0) }

        let output = try await Self.literecord("inspect", "--replica", fixture.replica.absoluteString, "--vfs-extension", fixture.vfs.path, "--json")
        #expect(output.status == 0, "\(output.text)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any])
        let entities = try #require(document["entities"] as? [[String: Any]])
        let notes = try #require(entities.first { $0["name"] as? String == "ReplicaNote" })
        #expect((notes["rowCount"] as? Int ?? 0) >= expected, "rows written after the read may be there too")
        let position = try #require(document["replica"] as? [String: Any])
        #expect((position["txid"] as? Int ?? 0) > 0)
        #expect(position["url"] as? String == fixture.replica.absoluteString)

        let early = try await Self.literecord(
            "inspect", "--replica", fixture.replica.absoluteString, "--vfs-extension", fixture.vfs.path, "--as-of", "2001-01-01T00:00:00Z")
        #expect(early.status != 0)
        #expect(early.text.contains("before the replica's first snapshot"), "\(early.text)")
    }

    struct Output: Sendable {
        let status: Int32
        let text: String
    }

    /// Runs the `literecord` binary, waiting for it off the cooperative pool.
    static func literecord(_ arguments: String...) async throws -> Output {
        let binary = try #require(CLITests.binary, "build the literecord product first (swift build)")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let folder = try TemporaryDirectory()
        let log = folder.file("output.txt")
        try Data().write(to: log)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        let status = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(returning: -1) }
        }
        try handle.close()
        return Output(status: status, text: try String(contentsOf: log, encoding: .utf8))
    }

    /// The VFS extension registers an automatic extension that fails every
    /// later open of a connection not through the VFS; LiteRecord removes it.
    @Test func otherStoresStillOpenOnceTheVFSIsLoaded() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let folder = try TemporaryDirectory()
        let store = try RecordStack(storeAt: folder.file("plain.sqlite"), entities: replicaEntities)
        try await store.write { context in context.insert(ReplicaNote(tag: "plain", n: 1)) }
        #expect(try await store.read { try ReplicaNote.count(in: $0) } == 1)
        try store.close()
        let memory = try RecordStack(inMemoryWith: replicaEntities)
        #expect(try ReplicaNote.count(in: memory.newContext()) == 0)
    }

    @Test func aDifferentModelIsRefused() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack(replicaAt: fixture.replica, entities: [ReplicaNoteV2.self, ReplicaCounter.self], vfsExtension: fixture.vfs)
        }
        #expect(error?.kind == .modelMismatch)
        #expect(error?.message.contains("never migrated") == true, "\(error?.message ?? "")")
    }

    /// A writer commits 200 times — three notes and the counter's new value
    /// each time — while the replica reads both in one read: every read must
    /// see a whole commit (notes = 3 × counter), never part of one.
    @Test func readsNeverSeeATornCommit() async throws {
        let fixture = try await ReplicaFixture.shared.start()
        let replica = try openReplica(fixture)
        defer { try? replica.close() }
        let tag = "torn-\(UUID().uuidString)"
        let commits = 200
        try await fixture.primary.write { context in context.insert(ReplicaCounter(tag: tag)) }
        let writer = Task {
            for _ in 0..<commits {
                try await fixture.primary.write { context in
                    let counter = try #require(try ReplicaCounter.findFirst(byAttribute: "tag", withValue: tag, in: context))
                    counter.value += 1
                    for n in 0..<3 { context.insert(ReplicaNote(tag: tag, n: counter.value * 3 + n)) }
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { writer.cancel() }
        var reads = 0
        var states = Set<Int>()
        var torn: [String] = []
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(60) {
            let (counter, notes) = try await replica.read { context in
                let counter = try ReplicaCounter.findFirst(byAttribute: "tag", withValue: tag, in: context)?.value ?? 0
                let notes = try ReplicaNote.count(matching: #Predicate { $0.tag == tag }, in: context)
                return (counter, notes)
            }
            reads += 1
            states.insert(counter)
            if notes != counter * 3 { torn.append("counter \(counter), notes \(notes)") }
            if counter == commits { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await writer.value
        #expect(torn.isEmpty, "torn reads: \(torn.prefix(5))")
        #expect(states.contains(commits), "the replica reached the last commit")
        #expect(states.count > 2, "the reads saw the replica move (\(states.count) states)")
        Self.report("\(reads) reads during \(commits) commits saw \(states.count) distinct states, 0 torn")
    }
}

/// What needs no replica: a missing extension is a clear error (never a
/// search of the disk); `ReplicaSnapshotTimeoutTests` has the replica with
/// no snapshot.
@Suite struct ReplicaRefusalTests {
    /// `make litestream` installs the binary under the package's
    /// `.build-tools/`: when it is there, the replica and replication tests
    /// find it and run. They skipped, saying it was not installed, after
    /// the file that looks for it moved one folder down and its lookup,
    /// which counted folders from its own path, missed the package root.
    @Test func theLitestreamBinaryIsFoundWhereMakeLitestreamInstallsIt() {
        let installed = PackageRoot.url.appendingPathComponent(".build-tools/litestream/bin/litestream")
        guard FileManager.default.isExecutableFile(atPath: installed.path) else { return }
        #expect(LitestreamBinary.url != nil)
    }

    @Test func aMissingExtensionSaysWhatToInstall() throws {
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack(
                replicaAt: URL(string: "file:///nonexistent/replica")!, entities: replicaEntities,
                vfsExtension: URL(fileURLWithPath: "/nonexistent/litestream-vfs.so"))
        }
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.message.contains("/nonexistent/litestream-vfs.so") == true)
        #expect(error?.message.contains("pip install litestream-vfs") == true, "\(error?.message ?? "")")
    }
}
