import Foundation
import HTTPTypes
public import Hummingbird
public import HummingbirdAuth
import HummingbirdLiteRecord

/// Who a request's bearer token says the client is: which kind of token it
/// carried. The identity of ``BookmarksRequestContext``, set by
/// ``BearerTokenAuthenticator``.
public enum BearerClient: Sendable, Equatable {
    /// One of the write tokens (`--tokens-file`): every route.
    case writer
    /// One of the read tokens (`--read-tokens-file`): the feeds.
    case reader
}

/// The service's bearer tokens, compared in constant time, so that an
/// answer's timing does not reveal how much of a guess was right.
///
/// ```swift
/// let tokens = BearerTokens(try BearerTokens.parse(fileAt: "/etc/bookmarks/tokens"))
/// tokens.accepts("s3cret-token")   // true or false, in the same time
/// ```
public struct BearerTokens: Sendable {
    let tokens: [[UInt8]]

    /// The tokens given (empty ones dropped).
    public init(_ tokens: [String]) {
        self.tokens = tokens.filter { !$0.isEmpty }.map { Array($0.utf8) }
    }

    /// Whether there is no token at all.
    public var isEmpty: Bool { tokens.isEmpty }

    /// Tokens from a file (one per line, `#` comments and blank lines
    /// skipped).
    ///
    /// ```swift
    /// let tokens = try BearerTokens.parse(fileAt: "/etc/bookmarks/tokens")
    /// ```
    ///
    /// - Throws: the file's read error.
    public static func parse(fileAt path: String) throws -> [String] {
        parse(try String(contentsOfFile: path, encoding: .utf8))
    }

    /// The tokens of a text (a file's, or an environment variable's value):
    /// one per line or comma-separated; blank entries and lines starting
    /// with `#` skipped.
    ///
    /// ```swift
    /// BearerTokens.parse("a, b\n# comment")   // ["a", "b"]
    /// ```
    public static func parse(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isNewline || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Whether `candidate` equals one of the tokens, looking at every byte of
    /// every token whatever matches.
    public func accepts(_ candidate: String) -> Bool {
        let bytes = Array(candidate.utf8)
        var found: UInt8 = 0
        for token in tokens {
            found |= Self.constantTimeEqual(token, bytes)
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

/// hummingbird-auth's authenticator for the service's bearer tokens: a
/// request whose `Authorization: Bearer` token is one of `tokens` gets
/// `client` as its context's identity; any other request goes on without
/// one (``RequireBearerToken`` then refuses what needs one). A request
/// already identified (by a write token, on the feeds) keeps its identity.
///
/// ```swift
/// router.add(middleware: BearerTokenAuthenticator(tokens: BearerTokens(["s3cret-token"]), client: .writer))
/// ```
public struct BearerTokenAuthenticator<Context: AuthRequestContext>: AuthenticatorMiddleware
where Context.Identity == BearerClient {
    public typealias Identity = BearerClient
    let tokens: BearerTokens
    let client: BearerClient

    /// An authenticator giving `client` to a request carrying one of `tokens`.
    public init(tokens: BearerTokens, client: BearerClient) {
        self.tokens = tokens
        self.client = client
    }

    public func authenticate(request: Request, context: Context) async throws -> BearerClient? {
        if let identity = context.identity { return identity }
        guard let token = Self.bearerToken(request.headers), tokens.accepts(token) else { return nil }
        return client
    }

    /// The token of `Authorization: Bearer <token>`, the scheme's name in
    /// any case (RFC 9110 §11.1), as hummingbird-auth's `bearer` reads it
    /// for `Bearer` exactly.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        if let bearer = headers.bearer { return bearer.token }
        guard let value = headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst(7))
    }
}

/// hummingbird-auth's `IsAuthenticatedMiddleware` on every request that
/// changes something (any method but `GET`, `HEAD` and `OPTIONS`), or on
/// every request when `guardingReads` (the feeds behind read tokens); its
/// 401 gains `WWW-Authenticate: Bearer`, with `error="invalid_token"` when
/// credentials were sent and are not accepted (RFC 6750 §3).
///
/// ```swift
/// router.add(middleware: BearerTokenAuthenticator(tokens: tokens, client: .writer))
/// router.add(middleware: RequireBearerToken())
/// ```
public struct RequireBearerToken<Context: AuthRequestContext>: RouterMiddleware {
    let guardingReads: Bool
    let required = IsAuthenticatedMiddleware<Context>()

    /// Writes need an identity, or every request when `guardingReads`.
    public init(guardingReads: Bool = false) {
        self.guardingReads = guardingReads
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let isRead = request.method == .get || request.method == .head || request.method == .options
        if isRead && !guardingReads { return try await next(request, context) }
        do {
            return try await required.handle(request, context: context, next: next)
        } catch let error as HTTPError where error.status == .unauthorized && context.identity == nil {
            guard request.headers[.authorization] != nil else {
                // No credentials: no error code (RFC 6750 §3.1).
                throw HTTPError(
                    .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"bookmarks\""],
                    message: "\(request.method) needs an Authorization: Bearer header with a valid token")
            }
            throw HTTPError(
                .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"bookmarks\", error=\"invalid_token\", error_description=\"the token is not one this server accepts\""],
                message: "\(request.method) needs an Authorization: Bearer header with a valid token; this one is not")
        }
    }
}
