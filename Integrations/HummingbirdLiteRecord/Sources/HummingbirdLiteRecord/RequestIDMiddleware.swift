public import HTTPTypes
public import Hummingbird

/// Gives every request an id, `X-Request-ID` both ways: the client's own when
/// it sends a sane one (1 to ``maximumLength`` letters, digits, `-`, `_`,
/// `.`, `:`), else the one Hummingbird made for the request. The id becomes
/// the request logger's `hb.request.id` — Hummingbird's own key, so every log
/// line of the request and `context.id` carry it (a 500 of
/// ``StoreErrorMiddleware`` quotes it) — and comes back in the answer's
/// `X-Request-ID`, errors included. An id that is not sane is not echoed nor
/// logged: the request gets Hummingbird's.
///
/// Add it first, so that it is around every other middleware and route:
///
/// ```swift
/// router.add(middleware: RequestIDMiddleware())
/// router.add(middleware: LogRequestsMiddleware(.info))
/// router.add(middleware: StoreErrorMiddleware())
/// ```
///
/// Hummingbird's `TracingMiddleware` records spans for swift-distributed-
/// tracing and its `LogRequestsMiddleware` logs with the request's logger;
/// neither reads nor answers a request id, so this does, and both then log
/// the id it set.
public struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// `X-Request-ID`.
    public static var header: HTTPField.Name { HTTPField.Name("X-Request-ID")! }
    /// The longest id taken from a request, in bytes.
    public static var maximumLength: Int { 128 }

    /// The middleware.
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let sent = Self.saneID(request.headers[values: Self.header]) {
            context.logger[metadataKey: "hb.request.id"] = .string(sent)
        }
        let id = context.id
        do {
            var response = try await next(request, context)
            response.headers[Self.header] = id
            return response
        } catch let error as any HTTPResponseError {
            // The error's own answer, with the id: a client reporting a
            // failure quotes it, and the log's lines for it carry it.
            var response = try error.response(from: request, context: context)
            response.headers[Self.header] = id
            return response
        }
    }

    /// The id of the request's `X-Request-ID`, when there is exactly one and
    /// it is sane.
    static func saneID(_ values: [String]) -> String? {
        guard values.count == 1, let id = values.first, isSane(id) else { return nil }
        return id
    }

    /// 1 to ``maximumLength`` bytes, each a letter, a digit, `-`, `_`, `.` or
    /// `:`: what a proxy or a client library sends (a UUID, a trace id), and
    /// nothing that could forge a log line or a header.
    static func isSane(_ id: String) -> Bool {
        (1...maximumLength).contains(id.utf8.count) && id.utf8.allSatisfy(isIDByte)
    }

    static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }
}
