import Foundation
public import Hummingbird
public import HummingbirdAuth
public import NIOCore
import Synchronization
import HummingbirdLiteRecord

/// What every route of the service needs from its request context: the
/// upload limit of the route, which ``BodyLimitMiddleware`` sets, and the
/// connection, which it closes when a body is too large to read.
public protocol BookmarksRequestContextProtocol: RequestContext
where Decoder == BookmarkRequestDecoder, Encoder == JSONEncoder {
    /// The largest body this route reads.
    var maxUploadSize: Int { get set }
    /// The client's connection (`nil` in router tests without a socket).
    var channel: (any Channel)? { get }
}

/// The service's request context: Hummingbird's core storage, the JSON coders
/// of the service (ISO 8601 dates, sorted keys, errors naming the field), the
/// route's upload limit, and the client a bearer token identified
/// (hummingbird-auth's `AuthRequestContext`).
///
/// ```swift
/// let router = Router(context: BookmarksRequestContext.self)
/// ```
public struct BookmarksRequestContext: BookmarksRequestContextProtocol, AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var maxUploadSize: Int
    public let channel: (any Channel)?
    /// The client the request's bearer token names, set by
    /// ``BearerTokenAuthenticator``; `nil` without a valid token.
    public var identity: BearerClient?

    /// A context for one request on `source.channel`, with the smallest
    /// upload limit of the service until a route's middleware raises it.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        maxUploadSize = BookmarksApp.maximumBookmarkBody
        identity = nil
    }

    public var requestDecoder: BookmarkRequestDecoder { BookmarkRequestDecoder() }
    public var responseEncoder: JSONEncoder { BookmarkJSON.makeEncoder() }
}

/// Decodes a JSON body for `request.decode(as:context:)`: refuses a body
/// that is not `application/json` (415), reads at most the route's
/// `maxUploadSize` (413), and says which field is wrong (400).
///
/// ```swift
/// let input = try await request.decode(as: BookmarkInput.self, context: context)
/// ```
public struct BookmarkRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try Self.requireJSON(request)
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try BookmarkJSON.decode(type, from: Data(buffer.readableBytesView))
    }

    /// Whether a `Content-Type` value is `application/json` or a `+json`
    /// type, with any parameters.
    static func isJSON(_ value: String) -> Bool {
        let mediaType = value.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// Checks the `Content-Type`: `application/json` or a `+json` type, with
    /// any parameters. A cross-site form or `text/plain` POST from a browser
    /// never gets past this.
    ///
    /// - Throws: `HTTPError(.unsupportedMediaType)` naming what was sent.
    public static func requireJSON(_ request: Request) throws {
        let value = request.headers[.contentType] ?? ""
        guard isJSON(value) else {
            let sent = value.isEmpty ? "no Content-Type" : "Content-Type '\(value)'"
            throw HTTPError(.unsupportedMediaType, message: "the body must be application/json, not \(sent)")
        }
    }
}

/// The request body limit, router-wide: added before authentication and the
/// routes, it refuses a body over the limit of its path before anything else
/// reads the request. A body whose `Content-Length` already exceeds it is
/// answered 413 at once, none of it read; a body without one (chunked) is
/// counted as it arrives, and the read that passes the limit throws 413.
/// Whenever the answer leaves part of a chunked body unread (the 413, or a
/// 401, 404, 405, 428 … answered before the route read it), the connection
/// closes after the answer: Hummingbird would otherwise read the rest,
/// whatever its size, to reach the connection's next request. A rest that a
/// `Content-Length` declares is at most the limit, and is read.
///
/// Closing means: the answer is sent, then the connection's sending side is
/// closed (the client sees the end of the stream) and the connection itself
/// two seconds later, whatever is left of the upload. The 413 is problem
/// details (RFC 9457) like every other error.
///
/// ```swift
/// router.add(middleware: BodyLimitMiddleware(limit: 64 << 10, paths: ["/import": 4 << 20]))
/// router.add(middleware: BearerTokenAuthenticator(tokens: tokens, client: .writer))     // after it
/// ```
///
/// Added to one route collection instead, it sets that collection's limit.
public struct BodyLimitMiddleware<Context: BookmarksRequestContextProtocol>: RouterMiddleware {
    let limit: Int
    let paths: [String: Int]

    /// A middleware allowing bodies of at most `limit` bytes, or of
    /// `paths[path]` on a path it names (`/import`, without a trailing `/`).
    public init(limit: Int, paths: [String: Int] = [:]) {
        self.limit = limit
        self.paths = paths
    }

    /// The limit of the request's path.
    func limit(for path: String) -> Int {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return paths[path] ?? limit
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let limit = limit(for: request.uri.path)
        context.maxUploadSize = limit
        if let declared = request.headers[.contentLength].flatMap(Int.init) {
            if declared > limit {
                return Self.closing(Self.tooLarge("the body is \(declared) bytes; this route takes at most \(limit)"), channel: context.channel)
            }
            // At most `limit` bytes are left for Hummingbird to read.
            return try await next(request, context)
        }
        guard request.headers[.transferEncoding] != nil else { return try await next(request, context) }
        let reading = BodyReading()
        var counted = request
        counted.body = RequestBody(asyncSequence: CountedBody(base: request.body, limit: limit, reading: reading))
        let response: Response
        do {
            response = try await next(counted, context)
        } catch let error as any HTTPResponseError {
            guard !reading.finished else { throw error }
            return Self.closing(try error.response(from: counted, context: context), channel: context.channel)
        }
        return reading.finished ? response : Self.closing(response, channel: context.channel)
    }

    /// The 413 as problem details.
    static func tooLarge(_ message: String) -> Response {
        let body = ByteBuffer(string: #"{"detail":"\#(message)","error":{"message":"\#(message)"},"status":413,"title":"Content Too Large","type":"about:blank"}"#)
        return Response(status: .contentTooLarge, headers: [.contentType: "application/problem+json"],
                        body: ResponseBody(byteBuffer: body))
    }

    /// `response`, written in full before the connection closes: first its
    /// sending side (a lingering close: the client reads the answer and the
    /// end of the stream, rather than a reset that could swallow it), then,
    /// after two seconds of discarding what still arrives, the rest.
    static func closing(_ response: Response, channel: (any Channel)?) -> Response {
        var response = response
        response.headers[.connection] = "close"
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            try await body.write(writer)
            guard let channel else { return }
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
        return response
    }
}

/// Whether a counted body was read to its end.
final class BodyReading: Sendable {
    private let state = Mutex(false)
    var finished: Bool { state.withLock { $0 } }
    func finish() { state.withLock { $0 = true } }
}

/// A request body that counts its bytes as they arrive: the read that
/// passes `limit` throws 413, the read that finds its end says so.
struct CountedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let limit: Int
    let reading: BodyReading

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        let reading: BodyReading
        var count = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let buffer = try await base.next() else {
                reading.finish()
                return nil
            }
            count += buffer.readableBytes
            if count > limit {
                throw ProblemDetails(.contentTooLarge, detail: "the body is more than \(limit) bytes, the most this route takes")
            }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, reading: reading)
    }
}
