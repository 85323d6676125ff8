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
/// ``FaultVFS`` (an I/O error, a full disk, a crash that drops unsynced
/// writes), as SQLite tests itself (https://sqlite.org/testing.html#i_o_error_testing).
/// After each fault point the store, reopened with the real VFS, passes
/// `integrity_check` and FTS5's `integrity-check`, holds exactly the last
/// acknowledged state (before the operation if it threw, after it if it
/// returned), and the error names the operation. A crash may also keep a
/// commit the operation did not get to report, and — `synchronous = NORMAL`
/// syncs the WAL only at checkpoints (https://sqlite.org/pragma.html#pragma_synchronous) —
/// lose one it did report; either way the store is one state or the other,
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
    }

    /// Torn crashes draw from this seed (`LITERECORD_FAULT_SEED`), mixed with
    /// the fault point's index, so that a failure can be run again.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["LITERECORD_FAULT_SEED"].flatMap { UInt64($0) } ?? 59

    static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("LiteRecordTests-faults-\(UUID().uuidString)", isDirectory: true)

    @Test func aSaveWithInsertsUpdatesDeletesACascadeAndASearchIndex() async throws {
        try await exercise(Self.save)
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

    // MARK: Running a workload

    func exercise(_ workload: Workload) async throws {
        let folder = Self.root.appendingPathComponent(workload.name.filter(\.isLetter), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: Self.root) }
        let template = folder.appendingPathComponent("template", isDirectory: true)
        try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
        try workload.seed(template.appendingPathComponent("store.sqlite"))
        let before = try Self.contents(of: template.appendingPathComponent("store.sqlite"))

        // A run without a fault: the state after, and how many calls to fail.
        let clean = try point(workload, in: folder, index: 0, fault: .ioError, template: template)
        #expect(clean.error == nil, "\(workload.name) fails without a fault: \(String(describing: clean.error))")
        let after = clean.contents
        let calls = clean.calls
        #expect(calls > 0, "\(workload.name) made no write, sync or truncate")

        var failures: [String] = []
        var points = 0
        var keptUnreported = 0
        var lostReported = 0
        for fault in FaultVFS.Fault.allCases {
            for index in 1...max(calls, 1) {
                await Task.yield()
                points += 1
                let outcome = try point(workload, in: folder, index: index, fault: fault, template: template)
                let label = "\(fault.rawValue) at call \(index)"
                if let problem = outcome.problem {
                    failures.append("\(label): \(problem)")
                    continue
                }
                let expected = outcome.error == nil || workload.keepsStateAfter ? after : before
                if outcome.error != nil && workload.completedByNextOpen && outcome.contents == after { continue }
                if outcome.contents == expected || outcome.contents == Self.acceptedNoStore { continue }
                if fault.crashes && [before, after].contains(outcome.contents) {
                    if outcome.error == nil { lostReported += 1 } else { keptUnreported += 1 }
                    continue
                }
                let held = outcome.contents == before ? "the state before" : outcome.contents == after ? "the state after" : "a mixture"
                failures.append("\(label): \(outcome.error == nil ? "returned" : "threw") but the store holds \(held)")
            }
        }
        let modes = FaultVFS.Fault.allCases.map(\.rawValue).joined(separator: "/")
        var line = "[faults] \(workload.name): \(calls) points × \(modes) (\(points) runs, seed \(Self.seed)), "
        line += failures.isEmpty ? "all recovered" : "\(failures.count) not recovered: \(failures.prefix(5).joined(separator: "; "))"
        if keptUnreported + lostReported > 0 {
            line += " (crashes: \(keptUnreported) kept a commit the operation could not report, \(lostReported) lost a reported one, as synchronous=NORMAL allows)"
        }
        print(line)
        #expect(failures.isEmpty, "\(line)")
    }

    struct Outcome {
        var error: (any Error)?
        var calls = 0
        var contents = ""
        /// What is wrong beyond the state held: a damaged file, an error
        /// that does not name the operation, a store that will not open.
        var problem: String?
    }

    /// Runs `workload` on a fresh copy of the template with call `index`
    /// failing (none for 0), then checks the store with the real VFS.
    private func point(_ workload: Workload, in folder: URL, index: Int, fault: FaultVFS.Fault, template: URL) throws -> Outcome {
        let copy = folder.appendingPathComponent("point-\(fault)-\(index)", isDirectory: true)
        try FileManager.default.copyItem(at: template, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let url = copy.appendingPathComponent("store.sqlite")
        FaultVFS.route(folder)
        FaultVFS.arm(failAt: index, fault)
        // The library's own renames, links, unlinks and folder syncs are
        // fault points too, and a crash undoes those whose folder was not synced.
        let files = CrashingFileOperations(injectsFaults: true)
        let error = FileOperations.$current.withValue(files) { workload.run(url) }
        let counted = FaultVFS.disarm()
        FaultVFS.clearPersistentFault()
        if FaultVFS.hasCrashed { files.crash() }
        FaultVFS.restoreAfterCrash(seed: fault == .tornCrash ? Self.seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15 : nil)
        // Checked with the real VFS: files opened from here on are not routed.
        FaultVFS.route(nil)
        var outcome = Outcome(error: error, calls: counted.calls)
        if let error = error as? any WorkloadProblem {
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
            for row in try connection.rows("SELECT * FROM \(SQLIdentifier.quote(table)) ORDER BY 1") {
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
                    FaultVFS.startCounting()
                    defer { FaultVFS.disarm() }
                    try context.save()
                    return nil
                } catch {
                    return error
                }
            })
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
