import Foundation
import Testing
@testable import LiteRecord

/// Before and after a migration that adds a full-text index: `.searchable`
/// on an attribute that had none.
private enum MemoV1 {
    @Entity(name: "Memo") final class Memo {
        var title = ""
        var body = ""
        init() {}
        init(_ title: String, _ body: String) { self.title = title; self.body = body }
    }
}

private enum MemoV2 {
    @Entity(name: "Memo") final class Memo {
        @Attribute(.searchable) var title = ""
        var body = ""
        init() {}
    }
}

/// The fault suite's workloads beyond a save, a migration, a backup and a
/// close: the first open that creates a store, moving a store
/// aside, checkpoints on request, the set-based operations, a migration that
/// keeps (and rotates) its pre-migration copy, a save with history on, a JSON
/// import, a migration adding a full-text index, the format upgrade at open,
/// an in-memory store's backup to a file, and the WAL bound.
extension FaultInjectionTests {
    @Test func theFirstOpenThatCreatesAStore() async throws { try await exercise(Self.creation) }
    @Test func aTenantsCreation() async throws { try await exercise(Self.tenantCreation) }
    @Test func aTenantsDeletion() async throws { try await exercise(Self.tenantDeletion) }
    @Test func aMoveAside() async throws { try await exercise(Self.moveAside) }
    @Test func checkpointsOnRequest() async throws { try await exercise(Self.checkpoints) }
    @Test func anUpdateAll() async throws { try await exercise(Self.setBased("updateAll")) }
    @Test func aDeleteAll() async throws { try await exercise(Self.setBased("deleteAll")) }
    @Test func aTruncateAll() async throws { try await exercise(Self.setBased("truncateAll")) }
    @Test func aMigrationThatKeepsItsCopy() async throws { try await exercise(Self.keptCopy) }
    @Test func aSaveWithHistoryOn() async throws { try await exercise(Self.historySave) }
    @Test func aJSONImport() async throws { try await exercise(Self.jsonImport) }
    @Test func aMigrationAddingASearchIndex() async throws { try await exercise(Self.searchableMigration) }
    @Test func theFormatUpgradeAtOpen() async throws { try await exercise(Self.formatUpgrade) }
    @Test func anInMemoryStoresBackup() async throws { try await exercise(Self.inMemoryBackup) }
    @Test func theWALBound() async throws { try await exercise(Self.walBound) }

    static func articles(_ count: Int) -> (URL) throws -> Void {
        { url in
            let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
            let context = stack.newContext()
            for index in 0..<count { context.insert(SearchArticle("article \(index)", "body \(index) words", views: index)) }
            try context.save()
            try stack.close()
        }
    }

    /// A workload that could not set up its state before the operation.
    struct SetupFailed: WorkloadProblem {
        let reason: String
        var description: String { "setting up failed: \(reason)" }
    }

    /// The rows of the `Article` table of the store at `url`.
    static func articleCount(_ url: URL) throws -> Int64 {
        let connection = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        defer { connection.close() }
        guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM Article") else { return -1 }
        return count
    }

    /// Counts only the open `body` makes; closing is the close workload's.
    static func openCounting(_ url: URL, _ open: () throws -> RecordStack) -> (any Error)? {
        var stack: RecordStack?
        let error = counting(url) { stack = try open() }
        try? stack?.close()
        return error
    }

    /// Runs `body` with counting on; its error, or `nil` (and the state
    /// after acknowledged, for the store at `url`).
    static func counting(_ url: URL, _ body: () throws -> Void) -> (any Error)? {
        FaultVFS.startCounting()
        defer { FaultVFS.disarm() }
        do {
            try body()
            FaultVFS.acknowledge(url)
            return nil
        } catch {
            return error
        }
    }

    static var creation: Workload {
        Workload(
            name: "first open", operationWord: "open|creat", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { _ in },
            run: { url in openCounting(url) { try RecordStack(storeAt: url, entities: [SearchArticle.self]) } },
            completedByNextOpen: true)
    }

    /// A tenant's store made by `RecordStacks.create`: the store at the
    /// workload's path is the tenant `store` of its folder.
    static var tenantCreation: Workload {
        Workload(
            name: "tenant create", operationWord: "open|creat|tenant", entities: [SearchArticle.self],
            laterEntities: [SearchArticle.self], seed: { _ in },
            run: { url in
                counting(url) {
                    let tenants = try RecordStacks(directory: url.deletingLastPathComponent(), entities: [SearchArticle.self])
                    defer { tenants.close() }
                    try tenants.create(url.deletingPathExtension().lastPathComponent)
                }
            },
            mayLeaveNoStore: true, completedByNextOpen: true)
    }

    /// `RecordStacks.delete` of a tenant holding six articles: afterwards
    /// the tenant is there whole or gone, never a store without its rows.
    static var tenantDeletion: Workload {
        Workload(
            name: "tenant delete", operationWord: "remov|sync|tenant|delet", entities: [SearchArticle.self],
            laterEntities: [SearchArticle.self], seed: articles(6),
            run: { url in
                counting(url) {
                    let tenants = try RecordStacks(directory: url.deletingLastPathComponent(), entities: [SearchArticle.self])
                    defer { tenants.close() }
                    try waitingForTask { try await tenants.delete(url.deletingPathExtension().lastPathComponent) }
                }
            },
            mayLeaveNoStore: true,
            verify: { url, returned in
                returned && FileManager.default.fileExists(atPath: url.path) ? "delete returned, but the tenant's store is still there" : nil
            })
    }

    /// Runs `body` in a task (which keeps the test's task-local values, the
    /// fault suite's file operations among them) on the library's read
    /// threads, not the cooperative pool this thread may be one of, and
    /// waits for it: the workloads are synchronous.
    static func waitingForTask(_ body: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Task(executorPreference: StoreExecutors.reads) {
            let result: Result<Void, any Error>
            do {
                try await body()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0 }?.get()
    }

    static var moveAside: Workload {
        Workload(
            name: "move-aside", operationWord: "mov|open|creat", entities: [SearchArticle.self],
            laterEntities: [HandWrittenPerson.self], seed: articles(6),
            run: { url in
                openCounting(url) { try RecordStack(storeAt: url, entities: [HandWrittenPerson.self], onModelMismatch: .moveAsideAndRecreate) }
            },
            mayLeaveNoStore: true,
            // The new store's creation is a first open: see `creation`.
            verify: { url, returned in
                let folder = url.deletingLastPathComponent()
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                guard let moved = names.first(where: { $0.contains(".mismatch-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
                else { return returned ? "moving aside returned, but no moved-aside file is there after the crash" : nil }
                do {
                    let articles = try Self.articleCount(folder.appendingPathComponent(moved))
                    return articles == 6 ? nil : "the moved-aside file holds \(articles) articles of 6"
                } catch {
                    return "the moved-aside file cannot be read: \(error)"
                }
            },
            completedByNextOpen: true)
    }

    static var checkpoints: Workload {
        Workload(
            name: "checkpoint restart/truncate", operationWord: "checkpoint", entities: [SearchArticle.self], keepsStateAfter: true,
            laterEntities: [SearchArticle.self], seed: articles(10),
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                    defer { try? stack.close() }
                    // Acknowledged before the checkpoints, which must keep it.
                    let context = stack.newContext()
                    for index in 0..<5 { context.insert(SearchArticle("in the WAL \(index)", "text")) }
                    try context.save()
                    FaultVFS.acknowledge(url)
                    return counting(url) {
                        _ = try stack.checkpoint(.restart)
                        _ = try stack.checkpoint(.truncate)
                    }
                } catch {
                    return error
                }
            })
    }

    static func setBased(_ operation: String) -> Workload {
        Workload(
            name: operation, operationWord: "updat|delet|truncat|sav", entities: [SearchArticle.self],
            laterEntities: [SearchArticle.self], seed: articles(12),
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    return counting(url) {
                        switch operation {
                        case "updateAll":
                            try SearchArticle.updateAll(matching: #Predicate { $0.views < 6 }, set: \.views, to: 99, in: context)
                        case "deleteAll": _ = try SearchArticle.deleteAll(matching: #Predicate { $0.views >= 6 }, in: context)
                        default: _ = try SearchArticle.truncateAll(in: context)
                        }
                    }
                } catch {
                    return error
                }
            })
    }

    /// A migration that removes an entity: it takes a `VACUUM INTO` copy
    /// under the write lock, keeps it under a timestamped name and deletes
    /// the oldest copies beyond three — all through the fault points.
    static var keptCopy: Workload {
        Workload(
            name: "migration keeping its copy", operationWord: "migrat", entities: [SearchArticle.self, HandWrittenNote.self],
            laterEntities: [HandWrittenNote.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self, HandWrittenNote.self])
                let context = stack.newContext()
                for index in 0..<5 { context.insert(SearchArticle("article \(index)", "body")) }
                for index in 0..<5 { context.insert(HandWrittenNote(text: "note \(index)")) }
                try context.save()
                try stack.close()
                for day in 1...3 {
                    try Data("old copy".utf8).write(to: URL(fileURLWithPath: url.path + ".pre-migration-2020010\(day)T000000Z"))
                }
            },
            run: { url in
                let plan = MigrationPlan().removeEntity("Article")
                return openCounting(url) { try RecordStack(storeAt: url, entities: [HandWrittenNote.self], migration: .plan(plan)) }
            },
            verify: { url, returned in
                guard returned else { return nil }
                // A copy that could not be renamed or an old one that could not
                // be deleted is logged and tolerated; the copy itself must be whole.
                guard let newest = PreMigrationCopies.newestFirst(of: url).first else { return "the migration returned, but no copy is there" }
                do {
                    let articles = try Self.articleCount(newest)
                    return articles == 5 ? nil : "the kept copy \(newest.lastPathComponent) holds \(articles) articles of 5"
                } catch {
                    return "the kept copy \(newest.lastPathComponent) cannot be read: \(error)"
                }
            })
    }

    /// A save that records its transaction in the store's history.
    static var historySave: Workload {
        Workload(
            name: "history on", operationWord: "sav", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self], history: .enabled)
                let context = stack.newContext()
                for index in 0..<8 { context.insert(SearchArticle("article \(index)", "body \(index)", views: index)) }
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self], history: .enabled)
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    context.transactionAuthor = "faults"
                    let articles = try SearchArticle.findAll(sortedBy: "title", in: context)
                    articles[0].title = "renamed with history"
                    context.delete(articles[1])
                    for index in 0..<3 { context.insert(SearchArticle("recorded \(index)", "text")) }
                    return counting(url) { try context.save() }
                } catch {
                    return error
                }
            })
    }

    /// An import of a JSON array that updates people by their unique key,
    /// inserts new ones with their companies, then saves.
    static var jsonImport: Workload {
        Workload(
            name: "JSON import", operationWord: "import|sav", entities: [ICompany.self, IPerson.self, ISkill.self],
            laterEntities: [ICompany.self, IPerson.self, ISkill.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [ICompany.self, IPerson.self, ISkill.self])
                let context = stack.newContext()
                _ = try IPerson.importObjects(from: Data(#"[{"id": 1, "first_name": "Ann"}, {"id": 2, "first_name": "Bob"}]"#.utf8), in: context)
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [ICompany.self, IPerson.self, ISkill.self])
                    defer { try? stack.close() }
                    let context = stack.newContext()
                    let json = """
                        [{"id": 1, "first_name": "Ann Updated", "address": {"city": "Oslo"}},
                         {"id": 3, "first_name": "Cy", "born": "1990-04-01T00:00:00Z", "employer": {"id": 10, "name": "Acme"}},
                         {"id": 4, "first_name": "Di", "employer": {"id": 10}}]
                        """
                    return counting(url) {
                        _ = try IPerson.importObjects(from: Data(json.utf8), in: context)
                        try context.save()
                    }
                } catch {
                    return error
                }
            })
    }

    /// An automatic migration that makes an attribute `.searchable`: it
    /// builds the full-text index and its triggers from the rows.
    static var searchableMigration: Workload {
        Workload(
            name: "searchable migration", operationWord: "migrat|search", entities: [MemoV1.Memo.self], laterEntities: [MemoV2.Memo.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [MemoV1.Memo.self])
                let context = stack.newContext()
                for index in 0..<12 { context.insert(MemoV1.Memo("memo \(index) title", "body of memo \(index)")) }
                try context.save()
                try stack.close()
            },
            run: { url in openCounting(url) { try RecordStack(storeAt: url, entities: [MemoV2.Memo.self], migration: .automatic) } })
    }

    /// The first open for writing of a store of format 3, which gains the
    /// table of record-id marks and format 4 (``StoreFormat``).
    static var formatUpgrade: Workload {
        Workload(
            name: "format upgrade", operationWord: "open|upgrad|format", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { url in
                try articles(6)(url)
                let connection = try Connection(path: url.path)
                defer { connection.close() }
                try connection.execute("DROP TABLE IF EXISTS \(Model.recordIDTable)")
                try connection.execute("UPDATE literecord_metadata SET value = '3' WHERE key = 'format_version'")
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            },
            run: { url in openCounting(url) { try RecordStack(storeAt: url, entities: [SearchArticle.self]) } })
    }

    /// An in-memory store saved to a file (`backup(to:)`): there is no store
    /// at the destination before, and a whole copy after.
    static var inMemoryBackup: Workload {
        Workload(
            name: "in-memory backup", operationWord: "back", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { _ in },
            run: { url in
                do {
                    let memory = try RecordStack(inMemoryWith: [SearchArticle.self])
                    defer { try? memory.close() }
                    let context = memory.newContext()
                    for index in 0..<30 { context.insert(SearchArticle("in memory \(index)", String(repeating: "text \(index) ", count: 30))) }
                    try context.save()
                    guard let error = counting(url, { try memory.backup(to: url) }) else { return nil }
                    // A failure short of a crash leaves nothing at or beside the destination.
                    let left = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
                    if !FaultVFS.hasCrashed, let stray = left.first { return BackupLeftover(file: stray, error: error) }
                    return error
                } catch {
                    return error
                }
            })
    }

    /// Commits after a reader let go of a WAL it kept growing past
    /// ``Store/walSizeLimit`` (the saves before are acknowledged and must
    /// stay): the bound pauses the writer's checkpoints,
    /// copies the backlog on a connection of its own (``WALCatchUp``), then
    /// starts the log over (`RESTART`) and `journal_size_limit` cuts the file
    /// back. Run on the copy's ~5,000 pages, so its points are sampled.
    static var walBound: Workload {
        Workload(
            name: "WAL bound", operationWord: "sav", entities: [HandWrittenNote.self], keepsStateAfter: true,
            laterEntities: [HandWrittenNote.self],
            seed: { url in
                let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
                let context = stack.newContext()
                context.insert(HandWrittenNote(text: "grown", payload: Data(count: 128 << 10)))
                try context.save()
                try stack.close()
            },
            run: { url in
                do {
                    let stack = try RecordStack(storeAt: url, entities: [HandWrittenNote.self])
                    defer { try? stack.close() }
                    // A reader holds the first snapshot while one row of 128 KiB
                    // is rewritten until the WAL is past its bound.
                    let reader = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
                    try reader.execute("BEGIN")
                    _ = try reader.rows("SELECT count(*) FROM sqlite_schema")
                    let context = stack.newContext()
                    guard let note = try HandWrittenNote.findAll(in: context).first else { return SetupFailed(reason: "the seeded note is missing") }
                    // Past the bound for as many commits as the bound waits
                    // between two looks: it has paused the writer's checkpoints.
                    var commitsPastTheBound = 0
                    var round: UInt8 = 0
                    while commitsPastTheBound <= Store.walCheckInterval {
                        round &+= 1
                        note.payload = Data(repeating: round, count: 128 << 10)
                        note.text = "round \(round)"
                        try context.save()
                        var info = stat()
                        if stat(url.path + "-wal", &info) == 0 && info.st_size > off_t(Store.walSizeLimit) { commitsPastTheBound += 1 }
                    }
                    try reader.execute("COMMIT")
                    reader.close()
                    FaultVFS.acknowledge(url)
                    // Commits that leave the rows as they were (one changed and put back),
                    // so that any of them may fail: the bound looks after each,
                    // catches up and starts the log over, which cuts it back.
                    let table = SQLIdentifier.quote(HandWrittenNote.entityName)
                    return counting(url) {
                        for index in 0..<400 {
                            try stack.store.rawWrite("saving the note unchanged") { connection in
                                // Changed and put back: SQLite skips a write of equal
                                // bytes, but a page changed in the transaction is logged.
                                try connection.execute("UPDATE \(table) SET text = text || '.'")
                                try connection.execute("UPDATE \(table) SET text = substr(text, 1, length(text) - 1)")
                            }
                            var info = stat()
                            let size = stat(url.path + "-wal", &info) == 0 ? info.st_size : 0
                            if index >= Store.walCheckInterval && size <= off_t(Store.walSizeLimit) { break }
                            usleep(2_000)
                        }
                    }
                } catch {
                    return error
                }
            },
            samplePoints: 3)
    }
}

extension FaultVFS {
    /// A workload's operation when it is one save: counted, then
    /// acknowledged for the store at `url` once it returns.
    static func countedSave(_ context: RecordContext, acknowledging url: URL) throws {
        startCounting()
        defer { disarm() }
        try context.save()
        acknowledge(url)
    }
}
