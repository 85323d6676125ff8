import Foundation
public import LiteRecordHTTP
public import Vapor

/// An error answered as RFC 9457 problem details, `application/problem+json`:
/// `type` (a URI naming the kind of problem, for a program), `title` (the
/// status's phrase), `status`, `detail` (the sentence for a person) and the
/// same sentence as `error.message`:
///
/// ```json
/// {"detail":"no product 7","error":{"message":"no product 7"},"status":404,"title":"Not Found","type":"about:blank"}
/// ```
///
/// It is an `AbortError`, so Vapor's own `ErrorMiddleware` answers its status
/// and headers too; ``StoreErrorMiddleware`` answers every error with one.
/// Throw one yourself to give a problem a type of its own:
///
/// ```swift
/// throw ProblemDetails(.conflict, type: "tag:example.com,2026:out-of-stock", detail: "only 2 left")
/// ```
public struct ProblemDetails: AbortError, Sendable {
    /// The response's status.
    public var status: HTTPResponseStatus
    /// Headers of the answer besides `Content-Type` (`ETag`, `Retry-After`, …).
    public var headers: HTTPHeaders
    /// A URI reference naming the kind of problem; `about:blank` when the
    /// status says it all.
    public var type: String
    /// What went wrong, for a person.
    public var detail: String

    /// A problem with `status`, a `type` URI and a sentence.
    ///
    /// ```swift
    /// throw ProblemDetails(.notFound, detail: "no product 7")
    /// ```
    public init(_ status: HTTPResponseStatus, type: String = HTTPProblem.blank, detail: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.type = type
        self.detail = detail
        self.headers = headers
    }

    /// The framework-free problem LiteRecordHTTP throws (a 400, 412 or 428
    /// of a conditional request, a store error's answer), as Vapor answers it.
    ///
    /// ```swift
    /// catch let problem as HTTPProblem { throw ProblemDetails(problem) }
    /// ```
    public init(_ problem: HTTPProblem) {
        var headers = HTTPHeaders()
        for (name, value) in problem.headers.sorted(by: { $0.key < $1.key }) { headers.replaceOrAdd(name: name, value: value) }
        self.init(HTTPResponseStatus(statusCode: problem.status), type: problem.type, detail: problem.detail, headers: headers)
    }

    /// `AbortError`'s reason: the detail.
    public var reason: String { detail }

    /// The answer: the status, the headers and the JSON object.
    ///
    /// ```swift
    /// let response = ProblemDetails(.notFound, detail: "no product 7").response()
    /// ```
    public func response() -> Response {
        var headers = self.headers
        headers.replaceOrAdd(name: .contentType, value: ProblemDocument.mediaType)
        let document = ProblemDocument(status: Int(status.code), title: status.reasonPhrase, type: type, detail: detail)
        // Strings only: the encoder has nothing it could fail on; an empty
        // body is the answer if it ever did.
        let body = (try? document.json()).map { Response.Body(data: $0) } ?? .empty
        return Response(status: status, headers: headers, body: body)
    }
}

/// Throws what LiteRecordHTTP throws as Vapor's problem: every call of the
/// framework-free layer goes through here.
func vaporProblems<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let problem as HTTPProblem {
        throw ProblemDetails(problem)
    }
}
