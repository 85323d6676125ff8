public import Foundation
public import LiteRecord
public import LiteRecordHTTP
public import Vapor

/// A request's preconditions (RFC 9110 §13.1): `If-Match`,
/// `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since`, read
/// once, evaluated against a resource's current entity tag (and, when it has
/// one, its modification date) in the order of RFC 9110 §13.2.2. The
/// evaluation is LiteRecordHTTP's ``LiteRecordHTTP/ConditionalRequest``, the
/// same for every integration; this type reads a Vapor request into it and
/// answers in Vapor's types.
///
/// ```swift
/// let preconditions = try Preconditions(req)                        // 400 for a malformed header
/// try preconditions.requireIfMatch()                                // 428
/// try await stack.write { store in
///     let product = try preconditions.existing(Product.self, rowID: id, in: store)   // 404, 412
///     product.quantity -= 1
/// }
/// ```
///
/// Most routes need only ``Vapor/Request/evaluatePreconditions(current:lastModified:requiringIfMatch:)``,
/// which reads and evaluates in one call; reading first lets a write parse
/// the headers before its transaction and evaluate them inside it, where no
/// other writer moves the version in between.
public struct Preconditions: Sendable {
    /// The headers, read.
    public let conditions: ConditionalRequest

    /// Reads the four headers of `request`.
    ///
    /// ```swift
    /// let preconditions = try Preconditions(req)
    /// ```
    ///
    /// - Throws: ``ProblemDetails`` 400 naming `If-Match` or `If-None-Match`
    ///   when it is neither `*` nor a list of quoted tags.
    public init(_ request: Request) throws {
        let headers = request.headers
        conditions = try vaporProblems {
            try ConditionalRequest(
                method: request.method.rawValue, path: request.url.path,
                ifMatch: headers[.ifMatch], ifNoneMatch: headers[.ifNoneMatch],
                ifUnmodifiedSince: headers[.ifUnmodifiedSince], ifModifiedSince: headers[.ifModifiedSince])
        }
    }

    /// Throws 428 Precondition Required (RFC 6585) when the request has no
    /// `If-Match`: a route that changes a resource can insist on it, so that
    /// no client overwrites a change it has not seen.
    ///
    /// ```swift
    /// try Preconditions(req).requireIfMatch()      // PUT, PATCH, DELETE
    /// ```
    ///
    /// - Throws: ``ProblemDetails`` 428.
    public func requireIfMatch() throws {
        try vaporProblems { try conditions.requireIfMatch() }
    }

    /// Evaluates the preconditions against the resource's current state, in
    /// RFC 9110 §13.2.2's order (``LiteRecordHTTP/ConditionalRequest/evaluate(current:lastModified:)``).
    /// Call it once the request is otherwise known to succeed (after a 404).
    ///
    /// ```swift
    /// if let notModified = try preconditions.evaluate(current: tag) { return notModified }
    /// ```
    ///
    /// - Parameters:
    ///   - current: the current representation's tag; `nil` when there is none.
    ///   - lastModified: when the resource last changed; `nil` when unknown.
    /// - Returns: a 304 Not Modified carrying the `ETag` for a `GET` or `HEAD`
    ///   the client already has; `nil` when the method should go on.
    /// - Throws: ``ProblemDetails`` 412 carrying the current `ETag` when a
    ///   condition is false.
    public func evaluate(current: EntityTag?, lastModified: Date? = nil) throws -> Response? {
        try vaporProblems {
            try conditions.evaluate(current: current, lastModified: lastModified).map { notModified in
                var headers = HTTPHeaders()
                for (name, value) in notModified.headers.sorted(by: { $0.key < $1.key }) { headers.replaceOrAdd(name: name, value: value) }
                return Response(status: .notModified, headers: headers)
            }
        }
    }

    /// The object with row id `rowID`, once the preconditions hold for its
    /// tag (``LiteRecordHTTP/EntityTag/init(id:version:)``): what a `PUT`,
    /// `PATCH` or `DELETE` does first inside `write {}`, where no other
    /// writer can move the version between this check and the save.
    ///
    /// ```swift
    /// try await stack.write { store in
    ///     let product = try preconditions.existing(Product.self, rowID: id, in: store)
    ///     store.delete(product)
    /// }
    /// ```
    ///
    /// - Throws: ``ProblemDetails`` 404 naming the entity and id when there
    ///   is none; ``ProblemDetails`` 412 carrying the current `ETag` when a
    ///   precondition is false; the store's error.
    public func existing<T: Entity>(_ type: T.Type, rowID: Int64, in context: RecordContext) throws -> T {
        try vaporProblems { try conditions.existing(type, rowID: rowID, in: context) }
    }
}

extension Request {
    /// The one call a route makes for conditional requests: reads
    /// `If-Match`, `If-Unmodified-Since`, `If-None-Match` and
    /// `If-Modified-Since` and evaluates them against the resource's current
    /// entity tag in RFC 9110 §13.2.2's order (``Preconditions``).
    ///
    /// ```swift
    /// app.get("products", ":id") { req async throws -> Response in
    ///     let (product, tag) = try await read(req)                       // 404 first
    ///     if let notModified = try req.evaluatePreconditions(current: tag) { return notModified }
    ///     return try await product.encodeResponse(for: req)
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
    /// - Throws: ``ProblemDetails`` 400 for a malformed `If-Match` or
    ///   `If-None-Match`, 428 when `requiringIfMatch` and there is no
    ///   `If-Match`, 412 carrying the current `ETag` when a condition is false.
    public func evaluatePreconditions(current: EntityTag?, lastModified: Date? = nil, requiringIfMatch: Bool = false) throws -> Response? {
        let preconditions = try Preconditions(self)
        if requiringIfMatch { try preconditions.requireIfMatch() }
        return try preconditions.evaluate(current: current, lastModified: lastModified)
    }

    /// A `GET`/`HEAD` answer for a representation with an entity tag: the
    /// request's preconditions evaluated against `tag` (304 when the client
    /// has it, 412 when `If-Match` names another), else
    /// ``Vapor/Response/tagged(_:tag:status:lastModified:)``: `value` as JSON
    /// with `ETag` (and `Last-Modified`, when given) set.
    ///
    /// ```swift
    /// app.get("products", ":id") { req async throws -> Response in
    ///     let (product, tag) = try await read(req)
    ///     return try req.taggedResponse(product, tag: tag)
    /// }
    /// ```
    ///
    /// - Throws: as ``evaluatePreconditions(current:lastModified:requiringIfMatch:)``;
    ///   the encoder's error.
    public func taggedResponse(_ value: some Encodable, tag: EntityTag, lastModified: Date? = nil) throws -> Response {
        if let notModified = try evaluatePreconditions(current: tag, lastModified: lastModified) { return notModified }
        return try Response.tagged(value, tag: tag, lastModified: lastModified)
    }
}

extension Response {
    /// `value` as a JSON body with its `ETag`: what a `GET` serves, and what
    /// a write answers with so that both carry the same bytes for one tag.
    /// The keys are sorted: a strong tag promises the same bytes every time
    /// (RFC 9110 §8.8.1), and an encoder's key order can change between two
    /// encodings of one value.
    ///
    /// ```swift
    /// return try Response.tagged(product, tag: EntityTag(id: 7, version: 4), status: .created)
    /// ```
    ///
    /// - Throws: the encoder's error.
    public static func tagged(_ value: some Encodable, tag: EntityTag?, status: HTTPResponseStatus = .ok,
                              lastModified: Date? = nil) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let response = Response(status: status, body: .init(data: try encoder.encode(value)))
        response.headers.contentType = .json
        if let tag { response.headers.replaceOrAdd(name: .eTag, value: tag.description) }
        if let lastModified { response.headers.replaceOrAdd(name: .lastModified, value: HTTPDate.format(lastModified)) }
        return response
    }
}
