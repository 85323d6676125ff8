import Foundation
public import Hummingbird
public import LiteRecord
import ServiceLifecycle

/// The HTTP service: its routes over a ``BookmarkStore``, and the
/// `Application` that serves them.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: BookmarksModel.entities, migration: .automatic)
/// let app = BookmarksApp.makeApplication(stack: stack, port: 8080)
/// try await app.runService()      // SIGTERM: finishes in-flight requests, returns
/// try stack.close()
/// ```
public enum BookmarksApp {
    /// The largest body `POST`/`PUT /bookmarks` read; a larger one is
    /// answered 413 without reading the rest.
    public static let maximumBookmarkBody = 64 * 1024
    /// The largest body `POST /import` reads.
    public static let maximumImportBody = 4 * 1024 * 1024

    /// The router with every route of the service.
    ///
    /// ```swift
    /// let router = BookmarksApp.makeRouter(store: BookmarkStore(stack: stack))
    /// ```
    public static func makeRouter(store: BookmarkStore) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let encoder = BookmarkJSON.makeEncoder()

        router.get("/health") { _, _ in
            try json(["status": "ok"], encoder: encoder)
        }

        router.post("/bookmarks") { request, _ in
            let input = try BookmarkJSON.decode(BookmarkInput.self, from: try await body(of: request, upTo: maximumBookmarkBody))
            let created = try await store.create(input)
            var response = try json(created, encoder: encoder, status: .created)
            response.headers[.eTag] = created.etag
            response.headers[.location] = "/bookmarks/\(created.id)"
            return response
        }

        router.get("/bookmarks") { request, _ in
            let query = try BookmarkQuery(parameters: request.uri.queryParameters)
            return try json(try await store.list(query), encoder: encoder)
        }

        router.get("/bookmarks/:id") { _, context in
            let bookmark = try await store.bookmark(try id(context))
            var response = try json(bookmark, encoder: encoder)
            response.headers[.eTag] = bookmark.etag
            return response
        }

        router.put("/bookmarks/:id") { request, context in
            let id = try id(context)
            guard let ifMatch = request.headers[.ifMatch] else {
                throw HTTPError(.preconditionRequired, message: "PUT /bookmarks/\(id) needs an If-Match header with the bookmark's ETag")
            }
            let expected: Int64?
            if ifMatch.trimmingCharacters(in: .whitespaces) == "*" {
                expected = nil
            } else if let version = BookmarkJSON.version(ifMatch: ifMatch) {
                expected = version
            } else {
                throw HTTPError(.badRequest, message: "header 'If-Match' must be an ETag this service sent, such as \"2\"")
            }
            let input = try BookmarkJSON.decode(BookmarkInput.self, from: try await body(of: request, upTo: maximumBookmarkBody))
            let updated = try await store.update(id, ifVersion: expected, input)
            var response = try json(updated, encoder: encoder)
            response.headers[.eTag] = updated.etag
            return response
        }

        router.delete("/bookmarks/:id") { _, context in
            try await store.delete(try id(context))
            return Response(status: .noContent)
        }

        router.post("/import") { request, _ in
            let data = try await body(of: request, upTo: maximumImportBody)
            return try json(try await store.importBookmarks(data), encoder: encoder)
        }

        router.get("/events") { request, _ in
            let limit = request.uri.queryParameters.get("count", as: Int.self)
            return events(store: store, limit: limit)
        }

        return router
    }

    /// The application: the router on `host:port`, telling `onServerRunning`
    /// the port it bound (useful with port 0).
    ///
    /// ```swift
    /// let app = BookmarksApp.makeApplication(stack: stack, port: 0) { port in print("listening on \(port)") }
    /// ```
    public static func makeApplication(
        stack: RecordStack,
        host: String = "127.0.0.1",
        port: Int = 8080,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(store: BookmarkStore(stack: stack)),
            configuration: .init(address: .hostname(host, port: port), serverName: "bookmarks-server"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }
        )
    }

    // MARK: - Server-Sent Events

    /// `GET /events`: one event when the stream starts (`snapshot`, the
    /// current count), then one `bookmarks` event per commit that changes the
    /// bookmarks, from `observe(_:)` on a context of this request's own.
    /// `?count=N` ends the stream after N events. The stream ends when the
    /// client goes, the server shuts down gracefully, or the stack closes.
    static func events(store: BookmarkStore, limit: Int?) -> Response {
        let stack = store.stack
        let body = ResponseBody { writer in
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { continuation.finish() }
                    // Ends with the server's graceful shutdown, or when the
                    // group is cancelled (the client went away).
                    await cancelWhenGracefulShutdown {
                        await observe(stack: stack, limit: limit, into: continuation)
                    }
                }
                for await event in events {
                    try await writer.write(ByteBuffer(string: event))
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Yields one event text per element of the observation of every
    /// bookmark, at most `limit`.
    static func observe(stack: RecordStack, limit: Int?, into continuation: AsyncStream<String>.Continuation) async {
        // Made and iterated in this task: a context never crosses isolation,
        // and it is not the main context.
        let context = stack.newContext()
        var sent = 0
        for await bookmarks in context.observe(FetchRequest<Bookmark>()) {
            let name = sent == 0 ? "snapshot" : "bookmarks"
            let newest = bookmarks.compactMap(\.recordID?.rowID).max()
            let data = "{\"count\":\(bookmarks.count),\"newestID\":\(newest.map(String.init) ?? "null")}"
            continuation.yield("event: \(name)\ndata: \(data)\n\n")
            sent += 1
            if let limit, sent >= limit { return }
        }
    }

    // MARK: - Helpers

    /// The body, up to `limit` bytes.
    ///
    /// - Throws: 413 for a longer body.
    static func body(of request: Request, upTo limit: Int) async throws -> Data {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(limit) bytes")
        }
        return Data(buffer.readableBytesView)
    }

    static func id(_ context: BasicRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw HTTPError(.badRequest, message: "parameter 'id' must be a positive integer")
        }
        return id
    }

    static func json(_ value: some Encodable, encoder: JSONEncoder, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoder.encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
