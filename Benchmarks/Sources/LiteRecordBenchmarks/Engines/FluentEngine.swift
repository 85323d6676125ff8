import FluentKit
import FluentSQLiteDriver
import Foundation
import NIOPosix
import Synchronization

/// The model a Fluent user writes. `uuid` and `created` are a `String` and a
/// `Double` because SQLiteNIO would store `UUID` as a blob and `Date` as
/// seconds since 1970; the plain types keep the file identical to the other
/// engines' (and cost Fluent less, not more).
final class FluentItem: Model, @unchecked Sendable {
    // @unchecked: Fluent models are mutable classes by design; each run uses
    // its models from one task at a time.
    static let schema = "item"

    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "uuid") var uuid: String
    @Field(key: "name") var name: String
    @Field(key: "age") var age: Int
    @Field(key: "score") var score: Double
    @Field(key: "created") var created: Double
    @OptionalField(key: "email") var email: String?

    init() {}

    init(_ values: ItemValues) {
        uuid = values.uuid
        name = values.name
        age = values.age
        score = values.score
        created = values.created
        email = values.email
    }

    func add(to checksum: inout Checksum) {
        checksum.add(uuid: uuid, name: name, age: age, score: score, created: created, email: email)
    }
}

/// Fluent's machinery for one run: an event loop, the thread pool SQLiteNIO
/// blocks on, and the database. Shut down after the measurement.
private struct FluentSession {
    let group: MultiThreadedEventLoopGroup
    let pool: NIOThreadPool
    let databases: Databases
    let db: any Database

    static func open(_ path: String) async throws -> FluentSession {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let databases = Databases(threadPool: pool, on: group)
        databases.use(.sqlite(.file(path), sqlLogLevel: nil), as: .sqlite)
        var logger = Logger(label: "bench.fluent")
        logger.logLevel = .warning
        guard let db = databases.database(logger: logger, on: group.any()) else {
            throw SQLiteFailure(code: 0, message: "Fluent has no database")
        }
        let session = FluentSession(group: group, pool: pool, databases: databases, db: db)
        try await session.sql.raw("PRAGMA journal_mode = WAL").run()
        try await session.sql.raw("PRAGMA synchronous = NORMAL").run()
        return session
    }

    var sql: any SQLDatabase {
        get throws {
            guard let sql = db as? any SQLDatabase else { throw SQLiteFailure(code: 0, message: "not an SQL database") }
            return sql
        }
    }

    func close() async throws {
        await databases.shutdownAsync()
        try await pool.shutdownGracefully()
        try await group.shutdownGracefully()
    }
}

/// Fluent hands rows to a `@Sendable` closure; the checksum lives here.
private final class ChecksumBox: Sendable {
    let value = Mutex(Checksum())
}

struct FluentEngine: AsynchronousEngine {
    let name = "fluent"
    let itemTable = ItemTable.shared
    let templateFamily = "shared"

    /// Fluent needs about half a millisecond per saved model here (a query
    /// crosses Swift concurrency, the event loop and SQLiteNIO's thread pool),
    /// so 100,000 model-by-model updates take most of a minute per run and the
    /// full matrix would not fit the 20 minutes of `make bench`. The
    /// workloads whose cost grows with N run on a tenth of the rows, and the
    /// report compares them per row; `--full-size` runs everything at N.
    func rowDivisor(for workload: Workload) -> Int {
        switch workload {
        case .insert, .fetch, .update, .delete, .enumerate: 10
        case .query, .open, .relFetch, .relWalk, .relCascade, .insertBuilt, .concurrent, .memory, .memoryPlain, .memoryUser, .launch: 1
        }
    }

    /// Rows per multi-row `INSERT` of `[Model].create(on:)`, Fluent's bulk
    /// insert (one statement for all 100,000 would exceed SQLite's limits).
    static let createBatch = 1000

    private func warm(_ session: FluentSession) async throws {
        _ = try await FluentItem.query(on: session.db).count()
    }

    func insert(_ rows: [ItemValues], _ context: RunContext) async throws {
        let session = try await FluentSession.open(context.store)
        try await warm(session)
        // Built before the clock starts, as for every record engine.
        let models = rows.map(FluentItem.init)
        context.stopwatch.start()
        try await session.db.transaction { db in
            for start in stride(from: 0, to: models.count, by: Self.createBatch) {
                try await models[start..<min(start + Self.createBatch, models.count)].create(on: db)
            }
        }
        context.stopwatch.stop()
        try await session.close()
    }

    func fetch(_ context: RunContext) async throws -> Checksum {
        let session = try await FluentSession.open(context.store)
        try await warm(session)
        context.stopwatch.start()
        let models = try await FluentItem.query(on: session.db).all()
        context.stopwatch.stop()
        try await session.close()
        var checksum = Checksum()
        for model in models { model.add(to: &checksum) }
        return checksum
    }

    func query(_ lowerBounds: [Int], _ context: RunContext) async throws -> Checksum {
        let session = try await FluentSession.open(context.store)
        try await warm(session)
        var results: [[FluentItem]] = []
        context.stopwatch.start()
        for lower in lowerBounds {
            results.append(
                try await FluentItem.query(on: session.db)
                    .filter(\.$age >= lower)
                    .filter(\.$age <= lower + 2)
                    .sort(\.$name)
                    .limit(100)
                    .all())
        }
        context.stopwatch.stop()
        try await session.close()
        var checksum = Checksum()
        for model in results.joined() { model.add(to: &checksum) }
        return checksum
    }

    func update(_ context: RunContext) async throws {
        let session = try await FluentSession.open(context.store)
        let models = try await FluentItem.query(on: session.db).all()
        context.stopwatch.start()
        try await session.db.transaction { db in
            for model in models {
                model.score = Dataset.updatedScore(model.score)
                try await model.update(on: db)
            }
        }
        context.stopwatch.stop()
        try await session.close()
    }

    func delete(_ context: RunContext) async throws {
        let session = try await FluentSession.open(context.store)
        let models = try await FluentItem.query(on: session.db).all()
        context.stopwatch.start()
        try await session.db.transaction { db in
            for model in models { try await model.delete(on: db) }
        }
        context.stopwatch.stop()
        try await session.close()
    }

    func enumerate(_ context: RunContext) async throws -> Checksum {
        let session = try await FluentSession.open(context.store)
        try await warm(session)
        let checksum = ChecksumBox()
        context.stopwatch.start()
        // Row by row: fluent-kit 1.57's async `chunk(max:)` drops the last,
        // partial chunk (it only flushes it when the query throws).
        try await FluentItem.query(on: session.db).all { result in
            if case .success(let model) = result {
                checksum.value.withLock { model.add(to: &$0) }
            }
        }
        context.stopwatch.stop()
        try await session.close()
        return checksum.value.withLock { $0 }
    }

    func open(_ context: RunContext) async throws -> Checksum {
        context.stopwatch.start()
        let session = try await FluentSession.open(context.store)
        let rows = try await session.sql.raw("SELECT count(*) AS n FROM e0").all()
        let count = try rows.first?.decode(column: "n", as: Int.self) ?? 0
        context.stopwatch.stop()
        try await session.close()
        return Checksum(rowCount: count)
    }

    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws {
        try SharedTemplates.make(kind, at: path, count: count)
    }
}
