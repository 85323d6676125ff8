import BookmarksCore
import Foundation
import GRDB
import Hummingbird
import LiteRecord
import Logging
import ServiceLifecycle

// bookmarks-bench --engine literecord|grdb|fluent --port P --store PATH [--seed N] [--explain]
//
// Serves POST /bookmarks, GET /bookmarks?tag=&limit=, GET /bookmarks/{id}
// (ETag, If-None-Match), PUT /bookmarks/{id} (If-Match), GET /health and
// GET /stats (row counts) from the chosen engine, on 127.0.0.1, until
// SIGTERM. Prints "listening on 127.0.0.1:PORT" when ready. --explain prints
// the engine's SQL and EXPLAIN QUERY PLAN for the list by tag, and exits.

guard let engine = option("engine"), let store = option("store") else {
    FileHandle.standardError.write(Data("usage: bookmarks-bench --engine literecord|grdb|fluent --port P --store PATH\n".utf8))
    exit(2)
}
let port = option("port").flatMap(Int.init) ?? 8080
let explain = CommandLine.arguments.contains("--explain")
let logger: Logger = {
    var logger = Logger(label: "bookmarks-bench")
    logger.logLevel = .warning
    return logger
}()

let seed = option("seed").flatMap(Int.init) ?? 0

switch engine {
case "literecord":
    let stack = try RecordStack(storeAt: URL(fileURLWithPath: store), entities: BookmarksModel.entities, migration: .automatic)
    let bookmarks = BookmarkStore(stack: stack)
    if explain {
        let (_, statements) = try await stack.recordingSQL { _ = try await bookmarks.list(BookmarkQuery(tag: "swift", limit: 20)) }
        try stack.close()
        try printPlans(engine: engine, path: store, statements: statements)
        exit(0)
    }
    try await seedStore { new in
        _ = try await bookmarks.create(BookmarkInput(url: new.url, title: new.title, folder: new.folder, tags: new.tags))
    }
    // The example's router, with every middleware it has in production.
    let router = BookmarksApp.makeRouter(store: bookmarks).router
    let encoder = BookmarkJSON.makeEncoder()
    router.get("/stats") { _, _ in
        try jsonResponse(try await bookmarks.counts(), encoder: encoder)
    }
    try await serve(router) { try stack.close() }
case "grdb":
    let server = try GRDBServer(path: store)
    if explain {
        let sql = try await server.listSQL()
        try server.close()
        try printPlans(engine: engine, path: store, statements: [sql])
        exit(0)
    }
    try await seedStore { _ = try await server.create($0) }
    try await serve(server.makeRouter()) { try server.close() }
case "fluent":
    if explain {
        let captured = CapturedSQL()
        let capturing = Logger(label: "fluent-sql") { _ in captured }
        let server = try await FluentServer.open(path: store, logger: capturing, sqlLogLevel: .info)
        let database = try server.readDatabase
        let _: [BookmarkModel] = try await server.listQuery(tag: "swift", limit: 20, on: database).with(\.$folder).with(\.$tags).all()
        try await server.close()
        try printPlans(engine: engine, path: store, statements: captured.statements)
        exit(0)
    }
    let server = try await FluentServer.open(path: store, logger: logger)
    try await seedStore { _ = try await server.create($0) }
    try await serve(server.makeRouter()) { try await server.close() }
default:
    FileHandle.standardError.write(Data("unknown engine \(engine)\n".utf8))
    exit(2)
}

/// The same rows for every engine, one POST's write path each, before
/// serving: the tags and folders the load script uses.
func seedStore(_ create: (NewBookmark) async throws -> Void) async throws {
    guard seed > 0 else { return }
    let started = Date()
    for index in 0..<seed {
        try await create(NewBookmark(seedIndex: index))
    }
    FileHandle.standardOutput.write(Data("seeded \(seed) bookmarks in \(String(format: "%.1f", Date().timeIntervalSince(started))) s\n".utf8))
}

/// Serves `router` until SIGTERM, then runs `shutdown`.
func serve<Context: RequestContext>(
    _ router: Router<Context>, shutdown: @Sendable () async throws -> Void
) async throws where Context.Source == ApplicationRequestContextSource {
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "bookmarks-bench-\(engine)"),
        onServerRunning: { channel in
            FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(channel.localAddress?.port ?? port)\n".utf8))
        },
        logger: logger
    )
    let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
    try await shutdown()
    FileHandle.standardOutput.write(Data("stopped\n".utf8))
}

/// Prints each statement that filters by tag (the list query's main
/// statement) with SQLite's plan for it, read through GRDB on the same file.
func printPlans(engine: String, path: String, statements: [String]) throws {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        // LiteRecord's statements name its text collation; the plan does not
        // depend on how it orders, only on its name being known.
        db.add(collation: DatabaseCollation("literecord_swift") { lhs, rhs in lhs < rhs ? .orderedAscending : lhs == rhs ? .orderedSame : .orderedDescending })
    }
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    for sql in statements where sql.hasPrefix("SELECT") && sql.contains("EXISTS") {
        print("\(engine): \(sql)")
        try queue.read { db in
            let arguments = StatementArguments(Array(repeating: "swift", count: sql.filter { $0 == "?" }.count))
            for row in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments) {
                print("  plan: \(row["detail"] as String? ?? "")")
            }
        }
    }
}

/// A log handler keeping the `sql` metadata of SQLKit's "Executing query" lines.
final class CapturedSQL: LogHandler, @unchecked Sendable {
    // @unchecked: written under `lock` only.
    private let lock = NSLock()
    private var captured: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var statements: [String] { lock.withLock { captured } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if case .string(let sql)? = event.metadata?["sql"] { lock.withLock { captured.append(sql) } }
    }
}
