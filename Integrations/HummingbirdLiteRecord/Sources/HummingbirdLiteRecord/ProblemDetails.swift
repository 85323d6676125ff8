import Foundation
public import Hummingbird
public import LiteRecordHTTP

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
    public static let blank = HTTPProblem.blank

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

    /// The framework-free problem LiteRecordHTTP throws (a store error's
    /// answer, a 400, 412 or 428 of a conditional request), as Hummingbird
    /// answers it.
    ///
    /// ```swift
    /// catch let problem as HTTPProblem { throw ProblemDetails(problem) }
    /// ```
    public init(_ problem: HTTPProblem) {
        self.init(HTTPResponse.Status(problemStatus: problem.status), type: problem.type, detail: problem.detail,
                  headers: HTTPFields(problemHeaders: problem.headers))
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
        let document = ProblemDocument(status: status.code, title: status.reasonPhrase, type: type, detail: detail)
        var headers = self.headers
        headers[.contentType] = ProblemDocument.mediaType
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try document.json())))
    }
}

extension ProblemDetails {
    /// The types ``StoreErrorMiddleware`` gives the store's errors:
    /// LiteRecordHTTP's ``LiteRecordHTTP/StoreProblem``, under the name it
    /// had here.
    public typealias StoreProblem = LiteRecordHTTP.StoreProblem
}
