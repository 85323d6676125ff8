import Foundation
public import Hummingbird

/// An error answered as RFC 9457 problem details, `application/problem+json`:
/// `type` (a URI naming the kind of problem, for a program), `title` (the
/// status's phrase), `status`, `detail` (the sentence for a person) — and,
/// so that a client reading the earlier body keeps working, the same
/// sentence as `error.message`:
///
/// ```json
/// {"detail":"no bookmark 7","error":{"message":"no bookmark 7"},"status":404,"title":"Not Found","type":"about:blank"}
/// ```
///
/// ``StoreErrorMiddleware`` answers every error with one; throw one yourself
/// to give a problem a type of its own:
///
/// ```swift
/// throw ProblemDetails(.conflict, type: "tag:example.com,2026:out-of-stock", detail: "only 2 left")
/// ```
public struct ProblemDetails: Error, HTTPResponseError, Sendable {
    /// The response's status.
    public var status: HTTPResponse.Status
    /// Headers of the answer besides `Content-Type` (`Allow`, `ETag`, `Retry-After`, …).
    public var headers: HTTPFields
    /// A URI reference naming the kind of problem; `about:blank` when the
    /// status says it all.
    public var type: String
    /// What went wrong, for a person.
    public var detail: String

    /// The type of a problem the status alone describes.
    public static let blank = "about:blank"

    /// A problem with `status`, a `type` URI and a sentence.
    ///
    /// ```swift
    /// let problem = ProblemDetails(.notFound, detail: "no todo 7")
    /// ```
    public init(_ status: HTTPResponse.Status, type: String = ProblemDetails.blank, detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
    }

    /// The answer: the status, the headers and the JSON object.
    ///
    /// ```swift
    /// let response = try problem.response(from: request, context: context)
    /// ```
    ///
    /// - Throws: nothing in practice (the encoder's error, for a detail it
    ///   cannot encode).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Body(detail: detail, error: .init(message: detail), status: Int(status.code), title: status.reasonPhrase, type: type)
        let data = try encoder.encode(body)
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct Body: Encodable {
        struct Message: Encodable { var message: String }
        var detail: String
        var error: Message
        var status: Int
        var title: String
        var type: String
    }
}

extension ProblemDetails {
    /// The types ``StoreErrorMiddleware`` gives the store's errors (tag URIs,
    /// RFC 4151: names, not addresses to fetch).
    public enum StoreProblem {
        /// 409: a unique attribute's value is taken.
        public static let uniqueViolation = "tag:literecord,2026:unique-violation"
        /// 412: the record changed since it was read (optimistic locking).
        public static let conflict = "tag:literecord,2026:conflict"
        /// 410: a history token the store no longer answers.
        public static let historyExpired = "tag:literecord,2026:history-expired"
        /// 503: the store is busy, read-only or closed.
        public static let storeUnavailable = "tag:literecord,2026:store-unavailable"
        /// 507: the disk is full.
        public static let diskFull = "tag:literecord,2026:disk-full"
    }
}
