public import Foundation
public import Hummingbird
public import LiteRecord

extension Preconditions {
    /// The object with row id `rowID`, once the preconditions hold for its
    /// tag (``EntityTag/init(id:version:)``): what a `PUT`, `PATCH` or
    /// `DELETE` does first inside `write {}`, where no other writer can move
    /// the version between this check and the save.
    ///
    /// ```swift
    /// let preconditions = try Preconditions(request)
    /// try preconditions.requireIfMatch()
    /// try await stack.write { context in
    ///     let todo = try preconditions.existing(Todo.self, rowID: id, in: context)   // 404, 412
    ///     todo.done = true
    /// }
    /// ```
    ///
    /// - Throws: `HTTPError(.notFound)` naming the entity and id when there
    ///   is none; `HTTPError(.preconditionFailed)` carrying the current
    ///   `ETag` when a precondition is false; the store's error.
    public func existing<T: Entity>(_ type: T.Type, rowID: Int64, in context: RecordContext) throws -> T {
        try hummingbirdErrors { try conditions.existing(type, rowID: rowID, in: context) }
    }
}

extension Request {
    /// A `GET`/`HEAD` answer for a representation with an entity tag: the
    /// request's preconditions evaluated against `tag` (304 when the client
    /// has it, 412 when `If-Match` names another), else `value` encoded with
    /// the context's encoder and `ETag` set.
    ///
    /// ```swift
    /// router.get("/todos/:id") { request, context -> Response in
    ///     let (todo, tag) = try await read(id)
    ///     return try request.taggedResponse(todo, tag: tag, context: context)
    /// }
    /// ```
    ///
    /// - Throws: as ``evaluatePreconditions(current:lastModified:requiringIfMatch:)``;
    ///   the encoder's error.
    public func taggedResponse<Value: ResponseEncodable>(
        _ value: Value, tag: EntityTag, lastModified: Date? = nil, context: some RequestContext
    ) throws -> Response {
        if let notModified = try evaluatePreconditions(current: tag, lastModified: lastModified) { return notModified }
        var response = try value.response(from: self, context: context)
        response.headers[.eTag] = tag.description
        return response
    }
}
