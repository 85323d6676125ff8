import Foundation
import Testing
@testable import LiteRecord

/// The fault suite's workloads beyond a save, a migration, a backup and a
/// close (issue #59): the first open that creates a store, moving a store
/// aside, checkpoints on request, the set-based operations, a migration that
/// keeps (and rotates) its pre-migration copy, and a save with history on.
extension FaultInjectionTests {
    @Test func theFirstOpenThatCreatesAStore() async throws { try await exercise(Self.creation) }
    @Test func aMoveAside() async throws { try await exercise(Self.moveAside) }
    @Test func checkpointsOnRequest() async throws { try await exercise(Self.checkpoints) }
    @Test func anUpdateAll() async throws { try await exercise(Self.setBased("updateAll")) }
    @Test func aDeleteAll() async throws { try await exercise(Self.setBased("deleteAll")) }
    @Test func aTruncateAll() async throws { try await exercise(Self.setBased("truncateAll")) }
    @Test func aMigrationThatKeepsItsCopy() async throws { try await exercise(Self.keptCopy) }

    static func articles(_ count: Int) -> (URL) throws -> Void {
        { url in
            let stack = try RecordStack(storeAt: url, entities: [SearchArticle.self])
            let context = stack.newContext()
            for index in 0..<count { context.insert(SearchArticle("article \(index)", "body \(index) words", views: index)) }
            try context.save()
            try stack.close()
        }
    }

    /// The rows of the `Article` table of the store at `url`.
    static func articleCount(_ url: URL) throws -> Int64 {
        let connection = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
        defer { connection.close() }
        guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM Article") else { return -1 }
        return count
    }

    /// Counts only the open `body` makes; closing is the close workload's.
    static func openCounting(_ open: () throws -> RecordStack) -> (any Error)? {
        var stack: RecordStack?
        let error = counting { stack = try open() }
        try? stack?.close()
        return error
    }

    /// Runs `body` with counting on; its error, or `nil`.
    static func counting(_ body: () throws -> Void) -> (any Error)? {
        FaultVFS.startCounting()
        defer { FaultVFS.disarm() }
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static var creation: Workload {
        Workload(
            name: "first open", operationWord: "open|creat", entities: [SearchArticle.self], laterEntities: [SearchArticle.self],
            seed: { _ in },
            run: { url in openCounting { try RecordStack(storeAt: url, entities: [SearchArticle.self]) } },
            completedByNextOpen: true)
    }

    static var moveAside: Workload {
        Workload(
            name: "move-aside", operationWord: "mov|open|creat", entities: [SearchArticle.self],
            laterEntities: [HandWrittenPerson.self], seed: articles(6),
            run: { url in
                openCounting { try RecordStack(storeAt: url, entities: [HandWrittenPerson.self], onModelMismatch: .moveAsideAndRecreate) }
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
                    return counting {
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
                    return counting {
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
                return openCounting { try RecordStack(storeAt: url, entities: [HandWrittenNote.self], migration: .plan(plan)) }
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
}
