import Foundation
public import HTTPTypes
public import Hummingbird
import LiteRecordHummingbird

/// Gives every request an id: the client's `X-Request-ID` when it sends a
/// sane one (at most 128 letters, digits, `-`, `_`, `.`), else Hummingbird's
/// own. The id goes into the request's logger (`hb.request.id`, so every log
/// line of the request carries it) and back in the answer's `X-Request-ID`.
///
/// ```swift
/// router.add(middleware: RequestIDMiddleware())
/// ```
public struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The header both ways.
    public static var header: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let sent = request.headers[Self.header], Self.isSane(sent) {
            context.logger[metadataKey: "hb.request.id"] = .string(sent)
        }
        let id = context.id
        do {
            var response = try await next(request, context)
            response.headers[Self.header] = id
            return response
        } catch var error as ProblemDetails {
            error.headers[Self.header] = id
            throw error
        } catch let error as HTTPError {
            var headers = error.headers
            headers[Self.header] = id
            throw HTTPError(error.status, headers: headers, message: error.body ?? error.status.reasonPhrase)
        }
    }

    static func isSane(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }
}

/// Requires `Authorization: Bearer <token>` with one of `tokens` on every
/// request that changes something (any method but `GET`, `HEAD` and
/// `OPTIONS`): 401 with `WWW-Authenticate: Bearer` otherwise, with
/// `error="invalid_token"` when a token was sent and is not one of them
/// (RFC 6750 §3). Tokens are
/// compared in constant time, so the answer's timing does not reveal how
/// much of a guess was right.
///
/// ```swift
/// router.add(middleware: BearerTokenMiddleware(tokens: ["s3cret-token"]))
/// ```
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: [[UInt8]]
    /// Whether reads need a token too.
    let guardingReads: Bool

    /// A middleware accepting any of `tokens` (each non-empty), on writes
    /// only, or on every request when `guardingReads` (the feeds' read
    /// tokens).
    public init(tokens: [String], guardingReads: Bool = false) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
        self.guardingReads = guardingReads
    }

    /// Tokens from a file (one per line, `#` comments and blank lines
    /// skipped) or from an environment variable's value (separated by commas
    /// or new lines).
    ///
    /// ```swift
    /// let tokens = try BearerTokenMiddleware<BookmarksRequestContext>.tokens(fromFile: "/etc/bookmarks/tokens")
    /// ```
    ///
    /// - Throws: the file's read error.
    public static func tokens(fromFile path: String) throws -> [String] {
        tokens(in: try String(contentsOfFile: path, encoding: .utf8))
    }

    /// The tokens of a text: one per line or comma-separated; blank entries
    /// and lines starting with `#` skipped.
    public static func tokens(in text: String) -> [String] {
        text.split(whereSeparator: { $0.isNewline || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isRead = request.method == .get || request.method == .head || request.method == .options
        if isRead && !guardingReads { return try await next(request, context) }
        guard let value = request.headers[.authorization] else {
            // No credentials: no error code (RFC 6750 §3.1).
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"bookmarks\""],
                message: "\(request.method) needs an Authorization: Bearer header with a valid token"
            )
        }
        guard value.lowercased().hasPrefix("bearer "), accepts(Array(value.utf8.dropFirst(7))) else {
            throw HTTPError(
                .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"bookmarks\", error=\"invalid_token\", error_description=\"the token is not one this server accepts\""],
                message: "\(request.method) needs an Authorization: Bearer header with a valid token; this one is not"
            )
        }
        return try await next(request, context)
    }

    /// Whether `candidate` equals one of the tokens, looking at every byte of
    /// every token whatever matches.
    func accepts(_ candidate: [UInt8]) -> Bool {
        var found: UInt8 = 0
        for token in tokens {
            found |= Self.constantTimeEqual(token, candidate)
        }
        return found == 1
    }

    /// 1 when equal, 0 otherwise; the time depends on the lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> UInt8 {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        difference |= UInt8(a.count != b.count ? 1 : 0)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0 ? 1 : 0
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
