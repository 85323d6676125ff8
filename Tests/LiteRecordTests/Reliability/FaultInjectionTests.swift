import Foundation
import Testing
@testable import LiteRecord

/// Two versions of one searchable entity, for the migration workload: the
/// second renames the entity and an attribute and converts `words` from
/// `Int` to `Double` (checked row by row, then a `CAST` rebuild).
private enum DocV1 {
    @Entity(name: "Doc") final class Doc {
        @Attribute(.searchable) var title = ""
        @Attribute(.searchable) var body = ""
        var words = 0
        init() {}
        init(_ title: String, _ body: String) { self.title = title; self.body = body; words = body.split(separator: " ").count }
    }
}

private enum DocV2 {
    @Entity(name: "Document", originalName: "Doc") final class Doc {
        @Attribute(.searchable) var title = ""
        @Attribute(.searchable, originalName: "body") var text = ""
        var words = 0.0
        var rating = 0
        init() {}
    }
}

/// Every write, sync and truncate a workload makes, failed in turn through
/// ``FaultVFS`` (an I/O error, a full disk, one that stays full, a crash that
/// drops unsynced writes, a torn one, a process crash that keeps them), as
/// SQLite tests itself (https://sqlite.org/testing.html#i_o_error_testing);
/// then a few calls of every other VFS method, and a second crash while the
/// next open recovers (Docs/Reliability.md).
/// After each fault point the store, reopened with the real VFS, passes
/// `integrity_check` and FTS5's `integrity-check`, holds exactly the last
/// acknowledged state (before the operation if it threw, after it if it
/// returned), and the error names the operation; a state acknowledged before
/// a crash is there after it (``FaultVFS/acknowledge(_:)``). A crash may also keep a
/// commit the operation did not get to report, and — `synchronous = NORMAL`
/// syncs the WAL only at checkpoints (https://sqlite.org/pragma.html#pragma_synchronous) —
/// lose one it did report but never synced; either way the store is one state or the other,
/// never a mixture.
@Suite(.serialized) struct FaultInjectionTests {
    /// One operation to fail at every call.
    struct Workload {
        let name: String
        /// A word the operation's error must contain.
        let operationWord: String
        let entities: [any Entity.Type]
        /// Whether the state after is due even when the operation throws:
        /// a close only checkpoints saves that were already acknowledged.
        var keepsStateAfter = false
        /// The entities of the state after the operation (a migration's new model).
        let laterEntities: [any Entity.Type]
        /// Writes the state before the operation into the store at the URL.
        let seed: (URL) throws -> Void
        /// Runs the operation on a copy of that store, counting only the
        /// operation itself (``FaultVFS/startCounting()``); returns its error.
        let run: (URL) -> (any Error)?
        /// Whether a failed operation may leave no store at the path (a
        /// move-aside that moved the old files but had not created the new
        /// store yet): the next open creates one.
        var mayLeaveNoStore = false
        /// What else must hold after each fault point, given whether the
        /// operation returned: a problem, or `nil`.
        var verify: ((URL, _ returned: Bool) -> String?)? = nil
        /// Whether a failed operation may leave a store that the next open
        /// completes (a first open that created some tables but not the
        /// library's metadata): the state is judged after that open.
        var completedByNextOpen = false
        /// How many of the calls to fail (each twice, as every call is),
        /// sampled from the seed — the first, the last and the rest drawn —
        /// for a workload of thousands of calls; `nil` fails every call.
        var samplePoints: Int? = nil
        /// What another writer commits inside `run` after the operation's
        /// reads and before the counted operation (``resolvingSave``): the
        /// state before is the seed with this applied.
        var writtenMeanwhile: ((URL) throws -> Void)? = nil
    }

    /// Torn crashes draw from this seed (`LITERECORD_FAULT_SEED`), mixed with
    /// the fault point's index, so that a failure can be run again.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["LITERECORD_FAULT_SEED"].flatMap { UInt64($0) } ?? 59

    static let root = TemporaryDirectory.root
        .appendingPathComponent("LiteRecordTests-faults-\(UUID().uuidString)", isDirectory: true)

    @Test func aSaveWithInsertsUpdatesDeletesACascadeAndASearchIndex() async throws {
        try await exercise(Self.save)
    }

    @Test func aSaveThatResolvesConflictsAndCountsListsInTheStore() async throws {
        try await exercise(Self.resolvingSave)
    }

    @Test func aMigrationWithACustomStep() async throws {
        try await exercise(Self.migration)
    }

    @Test func aBackup() async throws {
        try await exercise(Self.backup)
    }

    @Test func aClose() async throws {
        try await exercise(Self.close)
    }

    /// A backup is written under a temporary name and renamed when whole:
    /// at no write of the copy does the destination exist, so a crash
    /// mid-copy cannot leave a file there that opens as an empty store.
    @Test func aBackupNeverExistsHalfWritten() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("store.sqlite")
        try Self.backup.seed(url)
        let destination = folder.file("backup.sqlite")
        let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
        defer { try? stack.close() }
        FaultVFS.route(folder.url)
        defer { FaultVFS.route(nil) }
        let writesWhileVisible = FaultLock(0)
        let writes = FaultLock(0)
        FaultVFS.observeWrites { _ in
            writes.withLock { $0 += 1 }
            if FileManager.default.fileExists(atPath: destination.path) { writesWhileVisible.withLock { $0 += 1 } }
        }
        defer { FaultVFS.observeWrites(nil) }
        try stack.backup(to: destination)
        FaultVFS.observeWrites(nil)
        #expect(writes.withLock { $0 } > 0, "the copy was written through the fault VFS")
        #expect(writesWhileVisible.withLock { $0 } == 0, "\(writesWhileVisible.withLock { $0 }) of \(writes.withLock { $0 }) writes happened with the destination in place")
        #expect(Self.backupProblem(of: destination, comparedTo: url) == nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix("store.sqlite") }
        #expect(left.isEmpty, "nothing but the store is left: \(left)")
    }

    /// SQLite's unnamed temporary files (here a temporary table spilled to
    /// disk) go through the fault VFS only where a workload runs, and their
    /// `xOpen` fails as a named file's does.
    @Test func temporaryFilesAreRoutedOnlyForTheWorkload() throws {
        let folder = try TemporaryDirectory()
        let routed = folder.url.appendingPathComponent("routed", isDirectory: true)
        FaultVFS.route(routed)
        defer { FaultVFS.route(nil) }
        func spill(routing: Bool, failing: Bool) throws -> (opens: Int, error: (any Error)?) {
            FaultVFS.arm(method: .open, failAt: failing ? 1 : 0)
            let connection = try Connection(path: folder.file("outside-\(routing)-\(failing).sqlite").path)
            defer { connection.close() }
            try connection.execute("PRAGMA temp_store = FILE")
            try connection.execute("PRAGMA temp.cache_size = 10")
            FaultVFS.startCounting()
            let error: (any Error)? = FaultVFS.$routesTemporaryFiles.withValue(routing) {
                do {
                    try connection.execute("CREATE TEMP TABLE spilled(x)")
                    try connection.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO spilled SELECT randomblob(600) FROM n")
                    return nil
                } catch {
                    return error
                }
            }
            FaultVFS.disarm()
            return (FaultVFS.methodCalls[.open] ?? 0, error)
        }
        #expect(try spill(routing: false, failing: false).opens == 0)
        let clean = try spill(routing: true, failing: false)
        #expect(clean.opens > 0 && clean.error == nil, "\(clean)")
        let failed = try spill(routing: true, failing: true)
        #expect(failed.error != nil, "the temporary file's failed xOpen reached the statement")
    }

    // MARK: Running a workload

    func exercise(_ workload: Workload) async throws {
        let folder = Self.root.appendingPathComponent(workload.name.filter(\.isLetter), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: Self.root) }
        let template = folder.appendingPathComponent("template", isDirectory: true)
        try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
        try workload.seed(template.appendingPathComponent("store.sqlite"))
        var before = try Self.contents(of: template.appendingPathComponent("store.sqlite"))
        if let writtenMeanwhile = workload.writtenMeanwhile {
            let scratch = folder.appendingPathComponent("meanwhile", isDirectory: true)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: template.appendingPathComponent("store.sqlite"), to: scratch.appendingPathComponent("store.sqlite"))
            try writtenMeanwhile(scratch.appendingPathComponent("store.sqlite"))
            before = try Self.contents(of: scratch.appendingPathComponent("store.sqlite"))
        }

        // A run without a fault: the state after, and how many calls to fail.
        let clean = try point(workload, in: folder, .call(.ioError, 0), template: template)
        #expect(clean.error == nil, "\(workload.name) fails without a fault: \(String(describing: clean.error))")
        let after = clean.contents
        let calls = clean.calls
        #expect(calls > 0, "\(workload.name) made no write, sync or truncate")

        var judge = Judge(workload: workload, before: before, after: after)
        // Every call fails twice: once with an error (one-shot I/O error, full
        // disk, or a full disk that stays full) and once with a crash (a power
        // loss, a torn one, or the process's end), each kind in turn from an
        // offset the seed draws, so that each mode meets every third call;
        // LITERECORD_FAULTS_EVERY_MODE=1 runs every mode at every call.
        var draw = FaultVFS.SplitMix(seed: Self.seed ^ UInt64(workload.name.utf8.reduce(5381) { $0 &* 33 &+ UInt64($1) }))
        let (errorOffset, crashOffset) = (Int(draw.next() % 3), Int(draw.next() % 3))
        let indexes = workload.samplePoints.map { Self.sample(calls, $0, salt: 0xCA11) } ?? Array(1...max(calls, 1))
        for index in indexes {
            let modes: [FaultVFS.Fault] =
                Self.everyMode
                ? FaultVFS.Fault.allCases
                : [Self.errorModes[(index + errorOffset) % 3], Self.crashModes[(index + crashOffset) % 3]]
            for fault in modes {
                await Task.yield()
                judge.check(try point(workload, in: folder, .call(fault, index), template: template), fault: fault, label: "\(fault.rawValue) at call \(index)")
            }
        }
        let callRuns = judge.runs
        // Every other VFS method, failed once at a few of its calls: the
        // first, the last, and one drawn from the seed.
        var methodRuns = 0
        for method in FaultVFS.Method.allCases {
            let count = clean.methodCalls[method] ?? 0
            for index in Self.sample(count, workload.samplePoints == nil ? 3 : 1, salt: UInt64(method.rawValue.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) })) {
                await Task.yield()
                methodRuns += 1
                let outcome = try point(workload, in: folder, .method(method, index), template: template)
                judge.check(outcome, fault: .ioError, label: "\(method.rawValue) at call \(index) of \(count)", requiresLibraryError: true)
            }
        }
        // A crash, then another while the next open recovers the WAL or the
        // hot journal (at a call of that open drawn from the seed); the third
        // open must find the state before or after.
        var recoveryRuns = 0
        // The first crash comes after the operation's commit, in what the
        // workload does next (the close that checkpoints it), where there
        // is one, and keeps what was written (a process's end) or some of it
        // (a torn power loss), so that the next open has a WAL to recover.
        let whole = try point(workload, in: folder, .call(.ioError, 0), throughTheEnd: true, template: template).calls
        let recoveries = workload.samplePoints == nil ? 4 : 2
        let recoveryPoints = whole > calls ? Self.sample(whole - calls, recoveries, salt: 0x5EC0_4D).map { calls + $0 } : Self.sample(calls, recoveries, salt: 0x5EC0_4D)
        // Every other recovery meets a failed method instead of a crash: a
        // short read of the WAL it reads back, or another drawn from the seed.
        let others = FaultVFS.Method.allCases.filter { $0 != .shortRead }
        for (turn, index) in recoveryPoints.enumerated() {
            await Task.yield()
            let first: FaultVFS.Fault = turn % 2 == 0 ? .processCrash : .tornCrash
            let method: FaultVFS.Method? = turn % 2 == 0 ? nil : turn == 1 ? .shortRead : others[(index &+ Int(Self.seed % 64)) % others.count]
            let outcome = try point(
                workload, in: folder, .call(first, index), throughTheEnd: true, crashAgainInRecovery: true, recoveryMethod: method, template: template)
            if outcome.recoveryCrash != nil { recoveryRuns += 1 }
            judge.check(outcome, fault: first, label: "\(first.rawValue) at call \(index), then in recovery \(outcome.recoveryCrash ?? "nothing")")
        }

        let modes =
            Self.everyMode
            ? FaultVFS.Fault.allCases.map(\.rawValue).joined(separator: "/")
            : "(\(Self.errorModes.map(\.rawValue).joined(separator: "/")) + \(Self.crashModes.map(\.rawValue).joined(separator: "/")), in turn)"
        let pointCount = workload.samplePoints == nil ? "\(calls) points" : "\(indexes.count) of \(calls) points"
        var line = "[faults] \(workload.name): \(pointCount) × \(modes) (\(callRuns) runs, seed \(Self.seed))"
        line += "; \(methodRuns) other-method points of \(Self.methodCounts(clean.methodCalls))"
        line += "; \(recoveryRuns) fault\(recoveryRuns == 1 ? "" : "s") in recovery; "
        line += judge.failures.isEmpty ? "all recovered" : "\(judge.failures.count) not recovered: \(judge.failures.prefix(5).joined(separator: "; "))"
        line += " (\(judge.durable) acknowledged states checked durable"
        if judge.keptUnreported + judge.lostReported > 0 {
            line +=
                "; crashes: \(judge.keptUnreported) kept a commit the operation could not report, \(judge.lostReported) lost a reported one never synced, as synchronous=NORMAL allows"
        }
        line += ")"
        print(line)
        #expect(judge.failures.isEmpty, "\(line)")
    }

    /// The longest a faulted operation may take: each needs well under a
    /// second here, and it is below the busy timeout (10 s), so a fault that
    /// leaves the operation waiting on a lock it will not get is found.
    static let slowest = Duration.seconds(8)

    static let errorModes: [FaultVFS.Fault] = [.ioError, .diskFull, .persistentDiskFull]
    static let crashModes: [FaultVFS.Fault] = [.crash, .tornCrash, .processCrash]
    static let everyMode = ProcessInfo.processInfo.environment["LITERECORD_FAULTS_EVERY_MODE"] == "1"

    /// Which calls of `count` to fail: all when there are few, else the
    /// first, the last and the rest drawn from the seed and `salt` (one
    /// drawn when `size` is 1).
    static func sample(_ count: Int, _ size: Int, salt: UInt64) -> [Int] {
        guard count > size else { return count > 0 ? Array(1...count) : [] }
        var picked: Set<Int> = size == 1 ? [] : [1, count]
        var random = FaultVFS.SplitMix(seed: seed ^ salt)
        while picked.count < size { picked.insert(1 + Int(random.next() % UInt64(count))) }
        return picked.sorted()
    }

    static func methodCounts(_ calls: [FaultVFS.Method: Int]) -> String {
        FaultVFS.Method.allCases.map { "\($0.rawValue) \(calls[$0] ?? 0)" }.joined(separator: ", ")
    }

    /// The oracle: what each fault point left, against the states before and after.
    struct Judge {
        let workload: Workload
        let before: String
        let after: String
        var failures: [String] = []
        var runs = 0
        var keptUnreported = 0
        var lostReported = 0
        /// Points where the state after was acknowledged and due to survive.
        var durable = 0

        mutating func check(_ outcome: Outcome, fault: FaultVFS.Fault, label: String, requiresLibraryError: Bool = false) {
            runs += 1
            if let problem = outcome.problem {
                failures.append("\(label): \(problem)")
                return
            }
            if requiresLibraryError, let error = outcome.error, !(error is LiteRecordError) {
                failures.append("\(label): threw \(type(of: error)), not a LiteRecordError: \(error)")
                return
            }
            // Durability: a state acknowledged before the crash is there after
            // it — always after a process crash (the kernel keeps every write),
            // and after a power loss once the store's WAL was synced since.
            if outcome.acknowledged && (!fault.losesUnsyncedWrites || outcome.syncedSinceAcknowledged) {
                durable += 1
                if outcome.contents != after && !(outcome.contents == Self.acceptedNoStoreText && outcome.error != nil) {
                    let held = outcome.contents == before ? "the state before" : "a mixture"
                    failures.append("\(label): the state after was acknowledged\(fault.losesUnsyncedWrites ? " and its WAL synced" : "") but the store holds \(held)")
                    return
                }
            }
            let expected = outcome.error == nil || workload.keepsStateAfter ? after : before
            if outcome.error != nil && workload.completedByNextOpen && outcome.contents == after { return }
            if outcome.contents == expected || outcome.contents == Self.acceptedNoStoreText { return }
            if fault.crashes && [before, after].contains(outcome.contents) {
                if outcome.contents == before { lostReported += 1 } else { keptUnreported += 1 }
                return
            }
            let held = outcome.contents == before ? "the state before" : outcome.contents == after ? "the state after" : "a mixture"
            failures.append("\(label): \(outcome.error == nil ? "returned" : "threw") but the store holds \(held)")
        }

        static var acceptedNoStoreText: String { FaultInjectionTests.acceptedNoStore }
    }

    struct Outcome {
        var error: (any Error)?
        var calls = 0
        var contents = ""
        /// What is wrong beyond the state held: a damaged file, an error
        /// that does not name the operation, a store that will not open.
        var problem: String?
        /// How many calls of each other VFS method the operation made.
        var methodCalls: [FaultVFS.Method: Int] = [:]
        /// Whether the state after was acknowledged (``FaultVFS/acknowledge(_:)``),
        /// and the store's WAL synced after that, before any crash.
        var acknowledged = false
        var syncedSinceAcknowledged = false
        /// Where the open after the crash crashed again: "call k of n".
        var recoveryCrash: String?
    }

    /// What one fault point fails.
    enum Injection {
        /// The `index`th write, sync, truncate or directory change (none for 0).
        case call(FaultVFS.Fault, Int)
        /// The `index`th call of another VFS method.
        case method(FaultVFS.Method, Int)
    }

    /// Runs `workload` on a fresh copy of the template with one injection,
    /// then checks the store with the real VFS.
    private func point(
        _ workload: Workload, in folder: URL, _ injection: Injection, throughTheEnd: Bool = false, crashAgainInRecovery: Bool = false,
        recoveryMethod: FaultVFS.Method? = nil, template: URL
    ) throws -> Outcome {
        let (fault, index): (FaultVFS.Fault, Int)
        let name: String
        switch injection {
        case .call(let kind, let at): (fault, index, name) = (kind, at, "point-\(kind)-\(at)\(throughTheEnd ? "-end" : "")")
        case .method(let method, let at): (fault, index, name) = (.ioError, at, "point-\(method)-\(at)")
        }
        let copy = folder.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.copyItem(at: template, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let url = copy.appendingPathComponent("store.sqlite")
        FaultVFS.route(folder)
        switch injection {
        case .call: FaultVFS.arm(failAt: index, fault)
        case .method(let method, _): FaultVFS.arm(method: method, failAt: index)
        }
        if throughTheEnd { FaultVFS.countThroughTheEnd() }
        // The library's own renames, links, unlinks and folder syncs are
        // fault points too, and a crash undoes those whose folder was not synced.
        let files = CrashingFileOperations(injectsFaults: true)
        let started = ContinuousClock.now
        let error = FaultVFS.$routesTemporaryFiles.withValue(true) { FileOperations.$current.withValue(files) { workload.run(url) } }
        let took = ContinuousClock.now - started
        let counted = FaultVFS.finish()
        var outcome = Outcome(error: error, calls: counted.calls, methodCalls: FaultVFS.methodCalls)
        (outcome.acknowledged, outcome.syncedSinceAcknowledged) = FaultVFS.acknowledgement
        FaultVFS.clearPersistentFault()
        let crashed = FaultVFS.hasCrashed
        // A power loss undoes the folder changes not synced; a process crash does not.
        if crashed && fault.losesUnsyncedWrites { files.crash() }
        FaultVFS.restoreAfterCrash(
            seed: fault == .tornCrash ? Self.seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15 : nil, keepingEverything: fault == .processCrash)
        if crashAgainInRecovery && crashed {
            let recovery = try crashDuringRecovery(workload, at: url, salt: UInt64(index), failing: recoveryMethod)
            outcome.recoveryCrash = recovery.description
            outcome.problem = recovery.problem
        }
        // Checked with the real VFS: files opened from here on are not routed.
        FaultVFS.route(nil)
        if took > Self.slowest {
            // A fault must end the operation, not leave it waiting (a busy
            // handler's timeout, a retry loop).
            outcome.problem = "the operation took \(took) under the fault"
        } else if let error = error as? any WorkloadProblem {
            outcome.problem = "\(error)"
        } else if let error {
            let message = (error as? LiteRecordError)?.message ?? "\(error)"
            if !workload.operationWord.split(separator: "|").contains(where: { message.lowercased().contains($0) }) {
                outcome.problem = "the error does not name the operation (\(workload.operationWord)): \(message)"
            }
        }
        do {
            outcome.contents = try Self.contents(of: url)
            if workload.mayLeaveNoStore && outcome.error != nil && outcome.contents == Self.noStore {
                outcome.contents = Self.acceptedNoStore
            }
            if !outcome.contents.hasPrefix("(no store"), let damage = try Self.damage(of: url) { outcome.problem = damage }
            if outcome.problem == nil, let verify = workload.verify, let problem = verify(url, error == nil) { outcome.problem = problem }
            if outcome.problem == nil {
                // The library itself opens what is left, with the model of the state it holds.
                let stored = outcome.contents.hasPrefix("(no store") ? nil : try? Self.storedFingerprint(url)
                let before = try Model(entities: workload.entities).fingerprint
                // A store without the library's metadata is one a failed creation left: the later model's.
                let unfinished = stored == nil && !outcome.contents.hasPrefix("(no store") && workload.completedByNextOpen
                let entities = !unfinished && (stored == nil || stored == before) ? workload.entities : workload.laterEntities
                try RecordStack(storeAt: url, entities: entities).close()
                if workload.completedByNextOpen && outcome.error != nil && stored == nil && !outcome.contents.hasPrefix("(no store") {
                    outcome.contents = try Self.contents(of: url)
                }
            }
        } catch {
            outcome.problem = "reopening failed: \(error)"
        }
        return outcome
    }

    /// Opens the crashed store at `url` once more, as the next launch would,
    /// and crashes (a power loss) at a call of that open and close drawn from
    /// the seed — while it recovers the WAL or hot journal, or checkpoints
    /// what it recovered — or, given a `method`, fails a call of it drawn so
    /// (that open must then throw a ``LiteRecordError`` or succeed). Returns
    /// what was failed ("a crash at call k of n"), `nil` when there is no
    /// store of the library's to open or that open made no such call, and
    /// what went wrong beyond.
    private func crashDuringRecovery(
        _ workload: Workload, at url: URL, salt: UInt64, failing method: FaultVFS.Method?
    ) throws -> (description: String?, problem: String?) {
        let folder = url.deletingLastPathComponent()
        // Probes on copies: reading the fingerprint checkpoints the copy's WAL.
        func probe() throws -> URL {
            let copy = folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-probe-\(UUID().uuidString.prefix(6))")
            try FileManager.default.copyItem(at: folder, to: copy)
            return copy.appendingPathComponent(url.lastPathComponent)
        }
        let fingerprintCopy = try probe()
        defer { try? FileManager.default.removeItem(at: fingerprintCopy.deletingLastPathComponent()) }
        guard let stored = try? Self.storedFingerprint(fingerprintCopy) else { return (nil, nil) }
        let entities = stored == (try Model(entities: workload.entities).fingerprint) ? workload.entities : workload.laterEntities
        // The plain open keeps history as the store does.
        func reopen(_ url: URL) {
            FileOperations.$current.withValue(CrashingFileOperations(injectsFaults: true)) {
                try? RecordStack(storeAt: url, entities: entities).close()
            }
        }
        let countCopy = try probe()
        defer { try? FileManager.default.removeItem(at: countCopy.deletingLastPathComponent()) }
        FaultVFS.arm(failAt: 0, .crash)
        FaultVFS.startCounting()
        reopen(countCopy)
        let calls = FaultVFS.disarm().calls
        var random = FaultVFS.SplitMix(seed: Self.seed ^ salt &* 0x2545_F491_4F6C_DD1D)
        if let method, let count = FaultVFS.methodCalls[method], count > 0 {
            let at = 1 + Int(random.next() % UInt64(count))
            FaultVFS.arm(method: method, failAt: at)
            FaultVFS.startCounting()
            var thrown: (any Error)?
            FileOperations.$current.withValue(CrashingFileOperations(injectsFaults: true)) {
                do { try RecordStack(storeAt: url, entities: entities).close() } catch { thrown = error }
            }
            FaultVFS.disarm()
            let problem = thrown.flatMap { $0 is LiteRecordError ? nil : "the open recovering threw \(type(of: $0)), not a LiteRecordError: \($0)" }
            return ("\(method.rawValue) at call \(at) of \(count)", problem)
        }
        guard calls > 0 else { return (nil, nil) }
        let at = 1 + Int(random.next() % UInt64(calls))
        FaultVFS.arm(failAt: at, .crash)
        FaultVFS.startCounting()
        let files = CrashingFileOperations(injectsFaults: true)
        FileOperations.$current.withValue(files) {
            try? RecordStack(storeAt: url, entities: entities).close()
        }
        FaultVFS.disarm()
        if FaultVFS.hasCrashed { files.crash() }
        FaultVFS.restoreAfterCrash()
        return ("a crash at call \(at) of \(calls)", nil)
    }

    // MARK: Checking a store

    /// Every table's rows (the full-text index's own tables aside, checked
    /// by `integrity-check`), as text.
    static func contents(of url: URL) throws -> String {
        if ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0) == 0 {
            return noStore
        }
        let connection = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        defer { connection.close() }
        // The schema as well as the rows (FTS5's shadow tables aside).
        var text = "schema:\n"
        for row in try connection.rows(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'literecord\\_search:%' ESCAPE '\\' ORDER BY type, name")
        {
            text += row.map { "\($0)" }.joined(separator: "|") + "\n"
        }
        let tables = try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'literecord\\_search:%' ESCAPE '\\' ORDER BY name"
        ).map { $0[0].textValue }
        for table in tables {
            text += "\(table):\n"
            // A history transaction's date is the clock's: every column but it.
            let columns = table == HistoryLog.table ? "token, author, context, entities, changes" : "*"
            for row in try connection.rows("SELECT \(columns) FROM \(SQLIdentifier.quote(table)) ORDER BY 1") {
                text += row.map { "\($0)" }.joined(separator: "|") + "\n"
            }
        }
        return text
    }

    /// `integrity_check` and every full-text index's `integrity-check`:
    /// what is wrong, or `nil`.
    /// What ``contents(of:)`` says of a missing or empty file.
    static let noStore = "(no store)"
    /// The same, where the workload accepts it (``Workload/mayLeaveNoStore``).
    static let acceptedNoStore = "(no store, accepted)"

    static func damage(of url: URL) throws -> String? {
        let connection = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        defer { connection.close() }
        let check = try connection.rows("PRAGMA integrity_check").map { $0[0].textValue }
        guard check == ["ok"] else { return "integrity_check: \(check.prefix(3))" }
        for index in try connection.searchIndexObjects() where index.type != "trigger" {
            if let problem = try connection.searchIndexProblem(index.name) { return problem }
        }
        return nil
    }

    static func storedFingerprint(_ url: URL) throws -> String? {
        let connection = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        defer { connection.close() }
        return try connection.metadata(MetadataKey.fingerprint)
    }

    // MARK: The workloads

    static var save: Workload {
        Workload(
            name: "save", operationWord: "sav", entities: [SearchArticle.self, SearchBlog.self, SearchPost.self],
            laterEntities: [SearchArticle.self, SearchBlog.self, SearchPost.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self, SearchBlog.self, SearchPost.self])
                let context = stack.newContext()
                for index in 0..<6 { context.insert(SearchArticle("article \(index) swift", "body \(index) words")) }
                for name in ["kept", "gone"] {
                    let blog = SearchBlog(name)
                    context.insert(blog)
                    for index in 0..<3 {
                        let post = SearchPost("\(name) post \(index) text")
                        context.insert(post)
                        post.blog = blog
                    }
                }
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self, SearchBlog.self, SearchPost.self])
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    let articles = try SearchArticle.findAll(sortedBy: "title", in: context)
                    articles[0].title = "article zero renamed"
                    articles[1].body = nil
                    context.delete(articles[2])
                    for index in 0..<3 { context.insert(SearchArticle("new \(index) swift", "fresh text")) }
                    let blogs = try SearchBlog.findAll(in: context)
                    for blog in blogs where blog.name == "gone" { context.delete(blog) }
                    try FaultVFS.countedSave(context, acknowledging: url)
                    return nil
                } catch {
                    return error
                }
            })
    }

    /// A save under `.objectTrumps` meeting what another stack committed
    /// after its reads: an edit of a track it edits too, and a move of a
    /// track it deletes. The resolution writes over the first, deletes the
    /// second where the store put it, and the save counts the albums' lists
    /// again in the store (the post-resolution reads) before it commits;
    /// the blue album's cascade goes by the store-side path.
    static var resolvingSave: Workload {
        let entities: [any Entity.Type] = [RCAlbum.self, RCTrack.self]
        func meanwhile(_ url: URL) throws {
            let stack = try RecordStack(storeAt: url, entities: entities)
            defer { try? stack.close() }
            let other = stack.newContext()
            let tracks = Dictionary(uniqueKeysWithValues: try RCTrack.findAll(in: other).map { ($0.name, $0) })
            try #require(tracks["one"]).album = try RCAlbum.findFirst(byAttribute: "title", withValue: "red", in: other)
            try #require(tracks["four"]).name = "four, edited elsewhere"
            try other.save()
        }
        return Workload(
            name: "resolving save", operationWord: "sav", entities: entities, laterEntities: entities,
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: entities)
                let context = stack.newContext()
                for (title, names) in [("blue", ["one", "two", "three"]), ("red", ["four", "five"]), ("green", ["six"])] {
                    let album = RCAlbum(title)
                    context.insert(album)
                    for name in names { context.insert(RCTrack(name, on: album)) }
                }
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: entities)
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    context.mergePolicy = .objectTrumps
                    let tracks = Dictionary(uniqueKeysWithValues: try RCTrack.findAll(in: context).map { ($0.name, $0) })
                    let albums = Dictionary(uniqueKeysWithValues: try RCAlbum.findAll(in: context).map { ($0.title, $0) })
                    try meanwhile(url)
                    try #require(tracks["four"]).name = "four, edited here"
                    context.delete(try #require(tracks["one"]))
                    context.insert(RCTrack("seven", on: try #require(albums["green"])))
                    context.delete(try #require(albums["blue"]))
                    try FaultVFS.countedSave(context, acknowledging: url)
                    return nil
                } catch {
                    return error
                }
            },
            verify: { url, returned in
                // The save met both conflicts and resolved them: "one" went
                // from red, where the store had put it, "four" holds the
                // edit made here, and blue went with its tracks.
                guard returned else { return nil }
                do {
                    let stack = try RecordStack(storeAt: url, entities: entities)
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    let names = try RCTrack.findAll(in: context).map(\.name).sorted()
                    let wanted = ["five", "four, edited here", "seven", "six"]
                    return names == wanted ? nil : "the resolved save left tracks \(names), not \(wanted)"
                } catch {
                    return "reading the store after the save: \(error)"
                }
            },
            writtenMeanwhile: meanwhile)
    }

    static var migration: Workload {
        Workload(
            name: "migration", operationWord: "migrat", entities: [DocV1.Doc.self], laterEntities: [DocV2.Doc.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [DocV1.Doc.self])
                let context = stack.newContext()
                for index in 0..<8 { context.insert(DocV1.Doc("doc \(index)", "text of document \(index)")) }
                try context.save()
                try stack.close()
            },
            run: { url in
                let plan = MigrationPlan().step("rate-by-length") { db in
                    try db.execute("UPDATE Document SET rating = length(text), title = title || ' (rated)'")
                }
                FaultVFS.startCounting()
                do {
                    let stack = try RecordStack(storeAt: url, entities: [DocV2.Doc.self], migration: .plan(plan))
                    FaultVFS.acknowledge(url)
                    FaultVFS.disarm()
                    try? stack.close()
                    return nil
                } catch {
                    FaultVFS.disarm()
                    return error
                }
            })
    }

    static var backup: Workload {
        Workload(
            name: "backup", operationWord: "back", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                let context = stack.newContext()
                for index in 0..<40 { context.insert(SearchArticle("article \(index)", String(repeating: "words \(index) ", count: 40))) }
                try context.save()
                try stack.close()
            },
            run: { url in
                let destination = url.deletingLastPathComponent().appendingPathComponent("backup.sqlite")
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                    defer { try? stack.close() }
                    FaultVFS.startCounting()
                    defer { FaultVFS.disarm() }
                    try stack.backup(to: destination)
                    FaultVFS.acknowledge(url)
                } catch {
                    // After a crash nothing runs: what is left is judged once the crash is undone (below).
                    if FaultVFS.hasCrashed { return error }
                    let left = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
                    if let stray = left.first(where: { !$0.hasPrefix("store.sqlite") }) {
                        return BackupLeftover(file: stray, error: error)
                    }
                    return error
                }
                return backupProblem(of: destination, comparedTo: url)
            },
            verify: { url, _ in
                // After a crash, a copy at the destination is a whole one, or there is none.
                let destination = url.deletingLastPathComponent().appendingPathComponent("backup.sqlite")
                guard FileManager.default.fileExists(atPath: destination.path) else { return nil }
                return backupProblem(of: destination, comparedTo: url).map { "after the crash: \($0)" }
            })
    }

    static var close: Workload {
        Workload(
            name: "close", operationWord: "clos", entities: [SearchArticle.self], keepsStateAfter: true,
            laterEntities: [SearchArticle.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                let context = stack.newContext()
                for index in 0..<10 { context.insert(SearchArticle("article \(index)", "body \(index)")) }
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                    // An acknowledged save the close checkpoints from the WAL
                    // into the file: it must be in the store whatever the close does.
                    let context = stack.newContext()
                    let articles = try SearchArticle.findAll(sortedBy: "title", in: context)
                    articles[0].title = "closing title"
                    context.delete(articles[1])
                    for index in 0..<5 { context.insert(SearchArticle("saved before closing \(index)", "text")) }
                    try context.save()
                    FaultVFS.acknowledge(url)
                    FaultVFS.startCounting()
                    defer { FaultVFS.disarm() }
                    try stack.close()
                    return nil
                } catch {
                    return error
                }
            })
    }

    /// What a workload found wrong besides the store's state.
    protocol WorkloadProblem: Error, CustomStringConvertible {}

    /// A failed backup that left a file behind (its message names the file,
    /// and the operation so that the check above passes).
    struct BackupLeftover: WorkloadProblem {
        let file: String
        let error: any Error
        var description: String { "backing up left \(file) behind after: \(error)" }
    }

    /// A backup that returned but is not a copy of the store.
    struct BadBackup: WorkloadProblem {
        let reason: String
        var description: String { "backing up returned, but \(reason)" }
    }

    /// Why the backup at `destination` is not a whole copy of `source`, or `nil`.
    static func backupProblem(of destination: URL, comparedTo source: URL) -> (any Error)? {
        do {
            if let damage = try damage(of: destination) { return BadBackup(reason: "the copy is damaged: \(damage)") }
            guard try contents(of: destination) == contents(of: source) else {
                return BadBackup(reason: "the copy differs from the store")
            }
            try? FileManager.default.removeItem(at: destination)
            return nil
        } catch {
            return BadBackup(reason: "the copy cannot be read: \(error)")
        }
    }
}
