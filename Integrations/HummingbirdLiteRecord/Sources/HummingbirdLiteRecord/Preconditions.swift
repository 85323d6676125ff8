public import Foundation
public import Hummingbird
public import LiteRecordHTTP

/// A request's preconditions (RFC 9110 §13.1): `If-Match`,
/// `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since`, read
/// once, evaluated against a resource's current entity tag (and, when it has
/// one, its modification date) in the order of RFC 9110 §13.2.2. The
/// evaluation is LiteRecordHTTP's ``LiteRecordHTTP/ConditionalRequest``, the
/// same for every integration; this type reads a Hummingbird request into it
/// and answers in Hummingbird's types.
///
/// ```swift
/// let preconditions = try Preconditions(request)                  // 400 for a malformed header
/// try await stack.write { db in
///     let todo = try Todo.find(rowID: id, in: db)                   // 404 first, then:
///     _ = try preconditions.evaluate(current: todo.flatMap { EntityTag(for: $0) })   // 412
///     …
/// }
/// ```
///
/// Most routes need only ``Hummingbird/Request/evaluatePreconditions(current:lastModified:requiringIfMatch:)``,
/// which reads and evaluates in one call; reading first lets a write parse
/// the headers before its transaction and evaluate them inside it, where no
/// other writer moves the version in between.
public struct Preconditions: Sendable {
    /// The request's method: `GET` and `HEAD` answer 304 where another
    /// method answers 412.
    public let method: HTTPRequest.Method
    /// The headers, read.
    public let conditions: ConditionalRequest

    /// `If-Match`, when sent.
    public var ifMatch: EntityTagCondition? { conditions.ifMatch }
    /// `If-None-Match`, when sent.
    public var ifNoneMatch: EntityTagCondition? { conditions.ifNoneMatch }
    /// `If-Unmodified-Since`, when sent as a valid HTTP-date (an invalid one
    /// is ignored, as RFC 9110 §13.1.4 says).
    public var ifUnmodifiedSince: Date? { conditions.ifUnmodifiedSince }
    /// `If-Modified-Since`, when sent as a valid HTTP-date (an invalid one is
    /// ignored, RFC 9110 §13.1.3).
    public var ifModifiedSince: Date? { conditions.ifModifiedSince }

    /// Reads the four headers of `request`.
    ///
    /// ```swift
    /// let preconditions = try Preconditions(request)
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` naming `If-Match` or
    ///   `If-None-Match` when it is neither `*` nor a list of quoted tags.
    public init(_ request: Request) throws {
        method = request.method
        let headers = request.headers
        conditions = try hummingbirdErrors {
            try ConditionalRequest(
                method: request.method.rawValue, path: request.uri.path,
                ifMatch: headers[values: .ifMatch], ifNoneMatch: headers[values: .ifNoneMatch],
                ifUnmodifiedSince: headers[values: .ifUnmodifiedSince], ifModifiedSince: headers[values: .ifModifiedSince])
        }
    }

    /// Preconditions given as values, for a caller that has no `Request`
    /// (a test, a job): `method` decides 304 against 412, `path` is named in
    /// messages.
    ///
    /// ```swift
    /// let preconditions = Preconditions(method: .delete, ifMatch: .tags([EntityTag(id: 7, version: 3)]))
    /// ```
    public init(method: HTTPRequest.Method, path: String = "", ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil,
                ifUnmodifiedSince: Date? = nil, ifModifiedSince: Date? = nil) {
        self.method = method
        conditions = ConditionalRequest(method: method.rawValue, path: path, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch,
                                        ifUnmodifiedSince: ifUnmodifiedSince, ifModifiedSince: ifModifiedSince)
    }

    /// Throws 428 Precondition Required (RFC 6585) when the request has no
    /// `If-Match`: a route that changes a resource can insist on it, so that
    /// no client overwrites a change it has not seen.
    ///
    /// ```swift
    /// try Preconditions(request).requireIfMatch()      // PUT, PATCH, DELETE
    /// ```
    ///
    /// - Throws: `HTTPError(.preconditionRequired)`.
    public func requireIfMatch() throws {
        try hummingbirdErrors { try conditions.requireIfMatch() }
    }

    /// Evaluates the preconditions against the resource's current state, in
    /// RFC 9110 §13.2.2's order (``LiteRecordHTTP/ConditionalRequest/evaluate(current:lastModified:)``):
    /// `If-Match` (strong comparison; else `If-Unmodified-Since`), then
    /// `If-None-Match` (weak comparison; else, for `GET` and `HEAD`,
    /// `If-Modified-Since`). Call it once the request is otherwise known to
    /// succeed (after a 404, say).
    ///
    /// ```swift
    /// if let notModified = try preconditions.evaluate(current: tag) { return notModified }
    /// ```
    ///
    /// - Parameters:
    ///   - current: the entity tag of the current representation; `nil` when
    ///     there is none (`If-Match: *` then fails, `If-None-Match: *` passes).
    ///   - lastModified: when the resource last changed; `nil` when it keeps
    ///     no date, and the two date headers are then ignored.
    /// - Returns: a 304 Not Modified carrying the `ETag` for a `GET` or `HEAD`
    ///   that the client already has; `nil` when the method should go on.
    /// - Throws: `HTTPError(.preconditionFailed)` (412) carrying the current
    ///   `ETag`, when a condition is false (and for `If-None-Match` on
    ///   another method than `GET` or `HEAD`).
    public func evaluate(current: EntityTag?, lastModified: Date? = nil) throws -> Response? {
        try hummingbirdErrors {
            try conditions.evaluate(current: current, lastModified: lastModified).map { notModified in
                Response(status: .notModified, headers: HTTPFields(problemHeaders: notModified.headers))
            }
        }
    }
}

extension Request {
    /// The one call a route makes for conditional requests: reads
    /// `If-Match`, `If-Unmodified-Since`, `If-None-Match` and
    /// `If-Modified-Since` and evaluates them against the resource's current
    /// entity tag in RFC 9110 §13.2.2's order (``Preconditions``).
    ///
    /// ```swift
    /// router.get("/todos/:id") { request, context -> Response in
    ///     let todo = try await read(id)                                     // 404 first
    ///     if let notModified = try request.evaluatePreconditions(current: todo.tag) { return notModified }
    ///     return try EditedResponse(headers: [.eTag: todo.tag.description], response: todo).response(from: request, context: context)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - current: the current representation's tag, `nil` when there is none.
    ///   - lastModified: when the resource last changed, `nil` when unknown.
    ///   - requiringIfMatch: `true` on a route that changes the resource and
    ///     refuses to do so without `If-Match` (428).
    /// - Returns: a 304 for a `GET` or `HEAD` the client has already; `nil`
    ///   to go on with the method.
    /// - Throws: `HTTPError` 400 for a malformed `If-Match` or `If-None-Match`,
    ///   428 when `requiringIfMatch` and there is no `If-Match`, 412 carrying
    ///   the current `ETag` when a condition is false.
    public func evaluatePreconditions(current: EntityTag?, lastModified: Date? = nil, requiringIfMatch: Bool = false) throws -> Response? {
        let preconditions = try Preconditions(self)
        if requiringIfMatch { try preconditions.requireIfMatch() }
        return try preconditions.evaluate(current: current, lastModified: lastModified)
    }
}
