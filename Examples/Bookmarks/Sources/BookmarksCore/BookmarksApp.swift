import Foundation
public import Hummingbird
public import LiteRecord
public import HummingbirdLiteRecord
public import Logging
public import Prometheus
import ServiceLifecycle

/// What a deployment may change about the service.
///
/// ```swift
/// var options = BookmarksOptions()
/// options.tokens = ["s3cret-token"]     // writes need Authorization: Bearer s3cret-token
/// ```
public struct BookmarksOptions: Sendable {
    /// Bearer tokens that writes must carry; empty: no authentication (the
    /// README's curl lines). Docs/Server.md's production recipe sets them.
    public var tokens: [String] = []
    /// Bearer tokens that the feeds need, `GET /events`, `/changes` and
    /// `/metrics` (which show deleted URLs, who wrote what, and load), on
    /// top of `tokens`, which are taken there too; empty: the feeds are open.
    public var readTokens: [String] = []
    /// The most `/events` clients at once; one more is answered 503.
    public var maximumEventClients = 1_000
    /// The most `/events` clients of one address at once (503 past it), so
    /// that one client cannot take the places of all.
    public var maximumEventClientsPerAddress = 16
    /// How often an `/events` stream sends a heartbeat comment.
    public var heartbeat: Duration = .seconds(15)
    /// How long an HTTP/1 connection may stay idle before the server closes it.
    public var idleTimeout: Duration = .seconds(60)
    /// The registry `GET /metrics` prints in Prometheus's text format, when
    /// set: bootstrap swift-metrics with a `PrometheusMetricsFactory` of it
    /// first (once per process), so that Hummingbird's `MetricsMiddleware`
    /// reports there.
    ///
    /// ```swift
    /// let registry = PrometheusCollectorRegistry()
    /// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    /// options.metrics = registry
    /// ```
    public var metrics: PrometheusCollectorRegistry?
    /// The level at which each request is logged.
    public var requestLogLevel: Logger.Level = .info
    /// On a read replica (a stack opened with `RecordStack(replicaAt:)`),
    /// the primary service's base URL: a write is redirected there (307,
    /// `Location` naming the same path and query); without it a write is
    /// 421. Ignored on a primary.
    public var primary: URL?

    /// The defaults: no authentication, 1,000 event clients, a heartbeat
    /// every 15 s, a 60 s idle timeout, no `/metrics` route.
    public init() {}
}

/// The HTTP service: its routes over a ``BookmarkStore``, and the
/// `Application` that serves them.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: BookmarksModel.entities, migration: .automatic)
/// let app = BookmarksApp.makeApplication(stack: stack, port: 8080)
/// let group = ServiceGroup(configuration: .init(
///     services: [RecordStackService(stack), app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()     // SIGTERM: drains requests, then closes the stack
/// ```
public enum BookmarksApp {
    /// The largest body any route but `POST /import` reads; a larger one is
    /// answered 413, before authentication.
    public static let maximumBookmarkBody = 64 * 1024
    /// The largest body `POST /import` reads.
    public static let maximumImportBody = 4 * 1024 * 1024

    /// The router with every route of the service, and the hub its `/events`
    /// clients share.
    ///
    /// ```swift
    /// let (router, hub) = BookmarksApp.makeRouter(store: BookmarkStore(stack: stack))
    /// ```
    public static func makeRouter(
        store: BookmarkStore, options: BookmarksOptions = .init()
    ) -> (router: Router<BookmarksRequestContext>, hub: EventHub) {
        // HEAD for every GET (RFC 9110 §9.1: a server answering GET must
        // answer HEAD), and so `Allow` lists it.
        let routerOptions: RouterOptions = [.autoGenerateHeadEndpoints]
        let router = Router(context: BookmarksRequestContext.self, options: routerOptions)
        let hub = EventHub(store: store, maximumClients: options.maximumEventClients,
                           maximumClientsPerAddress: options.maximumEventClientsPerAddress, heartbeat: options.heartbeat)
        // HummingbirdLiteRecord's: X-Request-ID taken (when sane) or made,
        // in every log line of the request and on every answer.
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: LogRequestsMiddleware(options.requestLogLevel))
        router.add(middleware: MetricsMiddleware())
        // Router-wide and before the tokens' check and the routes: a body
        // over its path's limit is refused before anything reads it, and an
        // answer that leaves a chunked body unread closes the connection
        // instead of reading the rest (a 401 or 404 read uploads of any size).
        router.add(middleware: BodyLimitMiddleware(limit: maximumBookmarkBody, paths: ["/import": maximumImportBody]))
        // Before the routes (Hummingbird wraps each route in the middleware
        // added before it) and the tokens' check, so that every error,
        // a 401 included, is answered as problem details.
        router.add(middleware: StoreErrorMiddleware<BookmarksRequestContext>())
        // hummingbird-auth: the authenticator names the client a write token
        // identifies, and writes without one are refused (401).
        let writeTokens = BearerTokens(options.tokens)
        if !writeTokens.isEmpty {
            router.add(middleware: BearerTokenAuthenticator(tokens: writeTokens, client: .writer))
            router.add(middleware: RequireBearerToken())
        }
        // A replica redirects every write to the primary (421 when it does
        // not know it) before reading its body (the library would refuse it
        // only inside `write {}`, after validation).
        if store.stack.isReplica { router.add(middleware: ReadReplicaMiddleware(primary: options.primary)) }

        let healthCheck = health(store)
        router.get("/health") { request, context in try await healthCheck.response(from: request, context: context) }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        // The feeds: behind read tokens when there are some.
        let feeds = router.group()
        if !options.readTokens.isEmpty {
            // A write token identified the client already; a read token does here.
            feeds.add(middleware: BearerTokenAuthenticator(tokens: BearerTokens(options.readTokens + options.tokens), client: .reader))
            feeds.add(middleware: RequireBearerToken(guardingReads: true))
        }
        if let metrics = options.metrics {
            feeds.get("/metrics") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                         body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
            }
        }
        router.addRoutes(BookmarkController<BookmarksRequestContext>(store: store).endpoints, atPath: "/bookmarks")
        router.post("/import") { request, context -> ImportCounts in
            try BookmarkRequestDecoder.requireJSON(request)
            // A processing resource with no representation of its own (GET
            // is 405): `If-Match` fails (412), `If-None-Match: *` holds.
            _ = try request.evaluatePreconditions(current: nil)
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            return try await store.importBookmarks(Data(buffer.readableBytesView))
        }
        feeds.get("/events") { request, context in
            try events(request: request, hub: hub, limit: try eventLimit(request), address: context.channel?.remoteAddress?.ipAddress)
        }
        feeds.get("/changes") { request, context in
            try await changes(request: request, context: context, store: store)
        }
        // After every route, so around the router's "no route" answer only:
        // 405 with the path's methods, or 404.
        router.add(middleware: UnmatchedRouteMiddleware(router: router, options: routerOptions))
        return (router, hub)
    }

    /// The application: the router on `host:port` with an idle timeout,
    /// telling `onServerRunning` the port it bound (useful with port 0).
    ///
    /// ```swift
    /// let app = BookmarksApp.makeApplication(stack: stack, port: 0) { port in print("listening on \(port)") }
    /// ```
    public static func makeApplication(
        stack: RecordStack,
        host: String = "127.0.0.1",
        port: Int = 8080,
        options: BookmarksOptions = .init(),
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let idle = options.idleTimeout.components
        return Application(
            router: makeRouter(store: BookmarkStore(stack: stack), options: options).router,
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000))),
            configuration: .init(address: .hostname(host, port: port), serverName: "bookmarks-server"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// `GET /health`: HummingbirdLiteRecord's `HealthCheck`, which reads
    /// the stack: 200 with `{"bookmarks":N,"status":"ok"}` when a read of the
    /// store succeeds (a readiness check: the file is there and readable),
    /// 503 otherwise. On a read replica the answer also has `"replica"`: the
    /// newest commit of the primary it reads (`txid`, `commitTime`) and how
    /// many seconds since it last polled its storage (`sinceLastPoll`,
    /// `null` before the first), and `stale`: why it stopped following its
    /// primary (`ReplicaPosition.staleReason`), `null` while it follows. A
    /// stale replica still answers 200: its reads work, on an older commit.
    static func health(_ store: BookmarkStore) -> HealthCheck<[String: Int]> {
        // One COUNT: the answer names the bookmarks only.
        HealthCheck(stack: store.stack) { context in ["bookmarks": try Bookmark.count(in: context)] }
    }

    // MARK: - Changes feed

    /// `GET /changes?since=&limit=`: the bookmark changes committed after
    /// `since` (from the oldest kept without it), at most `limit`
    /// transactions, and `next`, the token to pass next time. Built on the
    /// store's persistent history, so it spans restarts and other processes'
    /// writes, and reads the same on a replica.
    ///
    /// - Throws: 400 for a malformed `since` or a bad `limit`. A `since` the
    ///   store no longer keeps, another store's, or newer than the store's
    ///   newest: `HistoryFeedGone`, answered 410 Gone as problem details
    ///   with the newest token as `next`.
    static func changes(request: Request, context: BookmarksRequestContext, store: BookmarkStore) async throws -> Response {
        let query = try ChangesQuery(parameters: request.uri.queryParameters)
        do {
            return try await store.changes(query).response(from: request, context: context)
        } catch let expired as ChangesTokenExpired {
            // Read before the client reads the bookmarks again: what commits
            // in between comes again from `next`, so nothing is missed.
            let newest = try await store.newestChangeToken()
            context.logger.notice("GET /changes: \(expired.reason)")
            // Problem details, as every error of the service, with `next`.
            throw HistoryFeedGone(
                reason: "\(expired.reason): read the bookmarks again with GET /bookmarks, then continue from 'next'",
                next: newest)
        }
    }

    // MARK: - Server-Sent Events

    /// `?count=N`: a positive integer, or absent.
    static func eventLimit(_ request: Request) throws -> Int? {
        guard request.uri.queryParameters.getAll("count").count <= 1 else {
            throw HTTPError(.badRequest, message: "parameter 'count' must be given at most once")
        }
        guard let text = request.uri.queryParameters["count"] else { return nil }
        guard let count = Int(text), count > 0 else {
            throw HTTPError(.badRequest, message: "parameter 'count' must be a positive integer, not '\(text)'")
        }
        return count
    }

    /// `GET /events`: a `snapshot` event at once (the count and the newest
    /// bookmark's id), then a `bookmarks` event after commits that change
    /// bookmarks (the newest state only, when several land before the client
    /// reads), each with an `id:`; `retry: 3000` first and a heartbeat
    /// comment every `heartbeat`. `?count=N` ends the stream after N events.
    /// It ends when the client goes (noticed at once), the server shuts down
    /// gracefully, or the stack closes. The hub (HummingbirdLiteRecord's
    /// `ChangeEventHub`) does all of it; ``EventHub`` says what it reads.
    ///
    /// - Throws: 503 past the hub's client limits.
    static func events(request: Request, hub: EventHub, limit: Int?, address: String? = nil) throws -> Response {
        try hub.response(to: request, limit: limit, address: address)
    }
}

extension ImportCounts: ResponseEncodable {}
extension StoreCounts: ResponseEncodable {}
