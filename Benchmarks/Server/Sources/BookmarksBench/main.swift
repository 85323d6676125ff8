import BookmarksCore
import Foundation
import Hummingbird
import LiteRecord
import Logging
import ServiceLifecycle

// bookmarks-bench --engine literecord|grdb|fluent --port P --store PATH
//
// Serves POST /bookmarks, GET /bookmarks?tag=&limit=, GET /bookmarks/{id},
// GET /health and GET /stats (row counts) from the chosen engine, on
// 127.0.0.1, until SIGTERM. Prints "listening on 127.0.0.1:PORT" when ready.

guard let engine = option("engine"), let store = option("store") else {
    FileHandle.standardError.write(Data("usage: bookmarks-bench --engine literecord|grdb|fluent --port P --store PATH\n".utf8))
    exit(2)
}
let port = option("port").flatMap(Int.init) ?? 8080
var logger = Logger(label: "bookmarks-bench")
logger.logLevel = .warning

let seed = option("seed").flatMap(Int.init) ?? 0
let router: Router<BasicRequestContext>
let shutdown: @Sendable () async throws -> Void
/// POST /bookmarks of the engine, for seeding.
let create: @Sendable (NewBookmark) async throws -> Void
switch engine {
case "literecord":
    let stack = try RecordStack(storeAt: URL(fileURLWithPath: store), entities: BookmarksModel.entities, migration: .automatic)
    let bookmarks = BookmarkStore(stack: stack)
    router = BookmarksApp.makeRouter(store: bookmarks)
    let encoder = BookmarkJSON.makeEncoder()
    router.get("/stats") { _, _ in
        try jsonResponse(try await bookmarks.counts(), encoder: encoder)
    }
    shutdown = { try stack.close() }
    create = { new in
        _ = try await bookmarks.create(BookmarkInput(url: new.url, title: new.title, folder: new.folder, tags: new.tags))
    }
case "grdb":
    let server = try GRDBServer(path: store)
    router = server.makeRouter()
    shutdown = { try server.close() }
    create = { _ = try await server.create($0) }
case "fluent":
    let server = try await FluentServer.open(path: store, logger: logger)
    router = server.makeRouter()
    shutdown = { try await server.close() }
    create = { _ = try await server.create($0) }
default:
    FileHandle.standardError.write(Data("unknown engine \(engine)\n".utf8))
    exit(2)
}

// The same rows for every engine, one POST's write path each, before serving:
// the tags and folders the load script uses.
if seed > 0 {
    let started = Date()
    for index in 0..<seed {
        try await create(NewBookmark(seedIndex: index))
    }
    FileHandle.standardOutput.write(Data("seeded \(seed) bookmarks in \(String(format: "%.1f", Date().timeIntervalSince(started))) s\n".utf8))
}

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

