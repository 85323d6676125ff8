import ArgumentParser
import BookmarksCore
import Foundation
import Hummingbird
import LiteRecord
import HummingbirdLiteRecord
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `bookmarks-server --port P --store PATH`: serves the bookmarks API on
/// 127.0.0.1 until SIGTERM or SIGINT, then stops accepting connections,
/// finishes the requests in flight (for at most `--shutdown-timeout`
/// seconds), closes the stack and exits 0.
///
/// `bookmarks-server --replica URL --primary URL` serves the read routes
/// from a Litestream replica of another server's store instead, and answers
/// every write 503 with the primary's URL in `Location`.
@main
struct BookmarksServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmarks-server",
        abstract: "Serve bookmarks over HTTP from a LiteRecord store.",
        discussion: """
            The store is Bookmarks.sqlite where StoreLocator puts it for the \
            application "Bookmarks" (on Linux ~/.local/share/Bookmarks), unless \
            --store names a file. --port 0 picks a free port; the line \
            "listening on 127.0.0.1:PORT" on standard output says which. \
            Writes need a bearer token when --tokens-file or the environment \
            variable BOOKMARKS_TOKENS names any (one per line or comma-separated).

            The store keeps its history for GET /changes: every transaction, \
            unless --history-retention deletes those older than that many \
            seconds (a client asking from a deleted one is answered 410 and \
            reads the bookmarks again).

            --replica file:///srv/replicas/bookmarks (or s3://…) serves a \
            Litestream replica of another server's store, read through \
            Litestream's VFS extension (--vfs-extension, else \
            $LITERECORD_LITESTREAM_VFS): the read routes answer as on the \
            primary, about a second behind it; every write is answered 503, \
            with a Location on the primary named by --primary.
            """
    )

    enum Checkpoints: String, ExpressibleByArgument, CaseIterable {
        case automatic, replicator
    }

    @Option(help: "The TCP port (0: any free port).") var port = 8080
    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The store file (default: Bookmarks.sqlite where StoreLocator puts it).") var store: String?
    @Option(help: "Who checkpoints the WAL: automatic (the default), or replicator (Litestream replicates the store).")
    var checkpoints: Checkpoints?
    @Option(help: "Seconds the store keeps each transaction of its history for GET /changes (default: keep every one).")
    var historyRetention: Int?
    @Option(help: "Serve this Litestream replica read-only instead of a store (file:///…, s3://…).") var replica: String?
    @Option(help: "The path of litestream-vfs.so, for --replica (default: $LITERECORD_LITESTREAM_VFS).") var vfsExtension: String?
    @Option(help: "The primary's base URL (http://10.0.0.5:8080), where --replica redirects a write (307).")
    var primary: String?
    @Option(help: "A file of bearer tokens that writes must carry, one per line.") var tokensFile: String?
    @Option(help: "A file of bearer tokens that /events, /changes and /metrics need (write tokens work too).")
    var readTokensFile: String?
    @Option(help: "Seconds a graceful shutdown may take before the rest is cancelled.") var shutdownTimeout = 30
    @Option(help: "Seconds an idle HTTP connection stays open.") var idleTimeout = 60
    @Option(help: "Seconds between heartbeats on /events.") var heartbeat: Double = 15
    @Option(help: "The most /events clients at once.") var maxEventClients = 1_000
    @Option(help: "The most /events clients of one address at once.") var maxEventClientsPerAddress = 16
    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.") var logLevel = "notice"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        guard shutdownTimeout > 0, idleTimeout > 0, heartbeat > 0, maxEventClients > 0, maxEventClientsPerAddress > 0 else {
            throw ValidationError("--shutdown-timeout, --idle-timeout, --heartbeat, --max-event-clients and --max-event-clients-per-address must be positive")
        }
        if let historyRetention, historyRetention <= 0 {
            throw ValidationError("--history-retention must be a positive number of seconds; leave it out to keep every transaction")
        }
        if let replica {
            guard store == nil, checkpoints == nil, historyRetention == nil else {
                throw ValidationError("--replica serves a replica read-only: it takes no --store, --checkpoints or --history-retention (give those to the primary)")
            }
            guard replicaURL(replica) != nil else {
                throw ValidationError("--replica takes a replica's location as Litestream names it, such as file:///srv/replicas/bookmarks or s3://bucket/bookmarks; not '\(replica)'")
            }
        } else if vfsExtension != nil || primary != nil {
            throw ValidationError("--vfs-extension and --primary go with --replica")
        }
        if let primary, primaryURL(primary) == nil {
            throw ValidationError("--primary takes the primary service's base URL, such as http://10.0.0.5:8080; not '\(primary)'")
        }
    }

    /// `--replica`'s location: a URL with a scheme (`file:///…`, `s3://…`).
    func replicaURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else { return nil }
        return url
    }

    /// `--primary`: an absolute http(s) URL with a host.
    func primaryURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { return nil }
        return url
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // The library's log lines go where the service's go (the handler
        // bootstrapped above), at its level (`.trace` logs every statement).
        RecordStack.logger = Logger(label: "LiteRecord")
        RecordStack.logLevel = level
        // swift-prometheus's factory: every swift-metrics recorder (Hummingbird's
        // MetricsMiddleware) reports to this registry, which /metrics prints.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        var options = BookmarksOptions()
        options.tokens = try tokens()
        options.readTokens = try readTokens()
        options.metrics = metrics
        options.idleTimeout = .seconds(idleTimeout)
        options.heartbeat = .seconds(heartbeat)
        options.maximumEventClients = maxEventClients
        options.maximumEventClientsPerAddress = maxEventClientsPerAddress
        options.primary = primary.flatMap(primaryURL)

        let stack = try openStack()
        var logger = Logger(label: "bookmarks-server")
        logger.logLevel = level
        let host = host
        let app = BookmarksApp.makeApplication(stack: stack, host: host, port: port, options: options, logger: logger) { port in
            // Unbuffered: a script or test waits for this line.
            FileHandle.standardOutput.write(Data("listening on \(host):\(port)\n".utf8))
        }
        var configuration = ServiceGroupConfiguration(
            // The stack first: a group stops its services in reverse order,
            // so the server drains before the stack closes.
            services: [RecordStackService(stack), app],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(shutdownTimeout)
        try await ServiceGroup(configuration: configuration).run()
        FileHandle.standardOutput.write(Data("stopped; store closed\n".utf8))
    }

    func openStack() throws -> RecordStack {
        if let replica, let location = replicaURL(replica) {
            do {
                return try RecordStack(
                    replicaAt: location, entities: BookmarksModel.entities,
                    vfsExtension: vfsExtension.map { URL(fileURLWithPath: $0) })
            } catch let error as LiteRecordError {
                FileHandle.standardError.write(Data("bookmarks-server: \(error.message)\n".utf8))
                throw ExitCode.failure
            }
        }
        let url: URL
        if let store, !store.isEmpty {
            url = URL(fileURLWithPath: store)
        } else {
            url = StoreLocator(applicationName: "Bookmarks").url(forStoreNamed: "Bookmarks.sqlite")
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            // History on: GET /changes reads it. Once a store keeps history,
            // every writer of the file records it (a script, the CLI).
            return try RecordStack(
                storeAt: url, entities: BookmarksModel.entities, migration: .automatic, onModelMismatch: .fail,
                checkpoints: checkpoints == .replicator ? .leftToReplicator : .automatic,
                history: historyRetention.map { .enabled(keepingFor: .seconds($0)) } ?? .enabled)
        } catch let error as LiteRecordError {
            FileHandle.standardError.write(Data("bookmarks-server: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The tokens of --tokens-file, else of BOOKMARKS_TOKENS; none: writes
    /// are open (the README's local setup).
    func tokens() throws -> [String] {
        if let tokensFile {
            let tokens = try BearerTokens.parse(fileAt: tokensFile)
            guard !tokens.isEmpty else { throw ValidationError("--tokens-file \(tokensFile) has no token") }
            return tokens
        }
        return BearerTokens.parse(ProcessInfo.processInfo.environment["BOOKMARKS_TOKENS"] ?? "")
    }

    /// The tokens of --read-tokens-file, else of BOOKMARKS_READ_TOKENS;
    /// none: the feeds are open.
    func readTokens() throws -> [String] {
        if let readTokensFile {
            let tokens = try BearerTokens.parse(fileAt: readTokensFile)
            guard !tokens.isEmpty else { throw ValidationError("--read-tokens-file \(readTokensFile) has no token") }
            return tokens
        }
        return BearerTokens.parse(ProcessInfo.processInfo.environment["BOOKMARKS_READ_TOKENS"] ?? "")
    }
}
