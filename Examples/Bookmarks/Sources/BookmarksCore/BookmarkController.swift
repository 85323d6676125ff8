import Foundation
public import Hummingbird
import LiteRecord
import LiteRecordHummingbird

/// The `/bookmarks` resource: create, list, read, replace, patch and delete,
/// generic over the request context so that a service with a context of its
/// own mounts the same routes.
///
/// ```swift
/// router.addRoutes(BookmarkController<BookmarksRequestContext>(store: store).endpoints, atPath: "/bookmarks")
/// ```
///
/// Every route that changes a bookmark compares its `If-Match` inside the
/// write transaction; reads answer `If-None-Match` with 304.
public struct BookmarkController<Context: BookmarksRequestContextProtocol>: Sendable {
    /// The store the routes read and write.
    public let store: BookmarkStore

    /// A controller over `store`.
    public init(store: BookmarkStore) { self.store = store }

    /// The routes, relative to where they are mounted, each taking a body
    /// of at most ``BookmarksApp/maximumBookmarkBody``.
    public var endpoints: RouteCollection<Context> {
        RouteCollection(context: Context.self)
            .add(middleware: BodyLimitMiddleware(limit: BookmarksApp.maximumBookmarkBody))
            .post(use: create)
            .get(use: list)
            .get(":id", use: show)
            .put(":id", use: replace)
            .patch(":id", use: patch)
            .delete(":id", use: delete)
    }

    /// `POST /bookmarks`: 201 with the bookmark, its `ETag` and `Location`.
    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<BookmarkDTO> {
        let input = try await request.decode(as: BookmarkInput.self, context: context)
        let created = try await store.create(input)
        return EditedResponse(status: .created, headers: [.eTag: created.etag, .location: "/bookmarks/\(created.id)"],
                              response: created)
    }

    /// `GET /bookmarks?folder=&tag=&q=&sort=&order=&limit=&offset=`.
    @Sendable func list(_ request: Request, context: Context) async throws -> [BookmarkDTO] {
        try await store.list(try BookmarkQuery(parameters: request.uri.queryParameters))
    }

    /// `GET /bookmarks/{id}`: the bookmark and its `ETag`, or 304 when
    /// `If-None-Match` names it.
    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        let bookmark = try await store.bookmark(try Self.id(context))
        if try request.isNotModified(current: bookmark.entityTag) { return Response.notModified(bookmark.entityTag) }
        return try EditedResponse(headers: [.eTag: bookmark.etag], response: bookmark).response(from: request, context: context)
    }

    /// `PUT /bookmarks/{id}`: replaces every field (as `POST` takes them);
    /// needs `If-Match` (428 without, 412 when stale).
    @Sendable func replace(_ request: Request, context: Context) async throws -> EditedResponse<BookmarkDTO> {
        try await update(request, context: context, replacing: true)
    }

    /// `PATCH /bookmarks/{id}`: changes the fields the body has; needs
    /// `If-Match` like `PUT`.
    @Sendable func patch(_ request: Request, context: Context) async throws -> EditedResponse<BookmarkDTO> {
        try await update(request, context: context, replacing: false)
    }

    func update(_ request: Request, context: Context, replacing: Bool) async throws -> EditedResponse<BookmarkDTO> {
        let id = try Self.id(context)
        guard let condition = try request.ifMatch() else {
            throw HTTPError(
                .preconditionRequired,
                message: "\(request.method) /bookmarks/\(id) needs an If-Match header with the bookmark's ETag"
            )
        }
        let input = try await request.decode(as: BookmarkInput.self, context: context)
        let updated = try await store.update(id, ifMatch: condition, input, replacing: replacing)
        return EditedResponse(headers: [.eTag: updated.etag], response: updated)
    }

    /// `DELETE /bookmarks/{id}`: 204; 412 when an `If-Match` is stale.
    @Sendable func delete(_ request: Request, context: Context) async throws -> HTTPResponse.Status {
        try await store.delete(try Self.id(context), ifMatch: try request.ifMatch())
        return .noContent
    }

    static func id(_ context: Context) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw HTTPError(.badRequest, message: "parameter 'id' must be a positive integer")
        }
        return id
    }
}
