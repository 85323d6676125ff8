import Foundation
public import Hummingbird
public import NIOCore

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
/// of the service (ISO 8601 dates, sorted keys, errors naming the field), and
/// the route's upload limit.
///
/// ```swift
/// let router = Router(context: BookmarksRequestContext.self)
/// ```
public struct BookmarksRequestContext: BookmarksRequestContextProtocol {
    public var coreContext: CoreRequestContextStorage
    public var maxUploadSize: Int
    public let channel: (any Channel)?

    /// A context for one request on `source.channel`, with the smallest
    /// upload limit of the service until a route's middleware raises it.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        maxUploadSize = BookmarksApp.maximumBookmarkBody
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

/// Sets the upload limit of the routes it is added to, and refuses a body
/// whose `Content-Length` already exceeds it with 413 before reading any of
/// it: the answer is sent, then the connection's sending side is closed (the
/// client sees the end of the stream) and the connection itself two seconds
/// later, whatever is left of the upload. Hummingbird would otherwise read the
/// whole body to reach the connection's next request.
///
/// ```swift
/// router.group("import").add(middleware: BodyLimitMiddleware(limit: 4 << 20))
/// ```
public struct BodyLimitMiddleware<Context: BookmarksRequestContextProtocol>: RouterMiddleware {
    let limit: Int

    /// A middleware allowing bodies of at most `limit` bytes.
    public init(limit: Int) { self.limit = limit }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.maxUploadSize = limit
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            return Self.refuse(declared: declared, limit: limit, channel: context.channel)
        }
        return try await next(request, context)
    }

    /// The 413, written in full before the connection closes: first its
    /// sending side (a lingering close: the client reads the answer and the
    /// end of the stream, rather than a reset that could swallow it), then,
    /// after two seconds of discarding what still arrives, the rest.
    static func refuse(declared: Int, limit: Int, channel: (any Channel)?) -> Response {
        let message = "the body is \(declared) bytes; this route takes at most \(limit)"
        // The problem details every other error is (RFC 9457).
        let body = ByteBuffer(string: #"{"detail":"\#(message)","error":{"message":"\#(message)"},"status":413,"title":"Content Too Large","type":"about:blank"}"#)
        return Response(
            status: .contentTooLarge,
            headers: [.contentType: "application/problem+json", .connection: "close"],
            body: ResponseBody(contentLength: body.readableBytes) { writer in
                try await writer.write(body)
                try await writer.finish(nil)
                guard let channel else { return }
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
            }
        )
    }
}
