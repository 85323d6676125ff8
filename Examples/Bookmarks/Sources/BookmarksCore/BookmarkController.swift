import Foundation
import HTTPTypes
public import Hummingbird
import LiteRecord
import HummingbirdLiteRecord

/// The `/bookmarks` resource: create, list, read, replace, patch and delete,
/// generic over the request context so that a service with a context of its
/// own mounts the same routes.
///
/// ```swift
/// router.addRoutes(BookmarkController<BookmarksRequestContext>(store: store).endpoints, atPath: "/bookmarks")
/// ```
///
/// Every route of one bookmark evaluates the request's preconditions with
/// HummingbirdLiteRecord's `Preconditions` in RFC 9110 §13.2.2's order;
/// a write does it inside its transaction and needs `If-Match` (428).
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

    /// `POST /bookmarks`: 201 with the bookmark, its `ETag` and `Location`,
    /// the bookmark's URI under the path the routes are mounted at. Its
    /// target is the collection: `If-Match` and `If-None-Match` are
    /// evaluated against the list's tag inside the write (412 when false).
    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<BookmarkDTO> {
        let preconditions = try Preconditions(request)
        let input = try await request.decode(as: BookmarkInput.self, context: context)
        let created = try await store.create(input, preconditions)
        var collection = request.uri.path
        while collection.hasSuffix("/") { collection.removeLast() }
        return EditedResponse(status: .created, headers: [.eTag: created.etag, .location: "\(collection)/\(created.id)"],
                              response: created)
    }

    /// `GET /bookmarks?folder=&tag=&q=&sort=&limit=&offset=&cursor=` (and
    /// `HEAD`): the page, `Link: <…>; rel="next"` to the next when it is
    /// full (``BookmarkQuery/nextPage(after:)``), and a strong `ETag` of its bytes
    /// (``BookmarkStore/listTag(of:)``), its preconditions evaluated in RFC
    /// 9110's order (304 for an `If-None-Match` naming it or `*`, 412 for an
    /// `If-Match` that does not).
    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let query = try BookmarkQuery(parameters: request.uri.queryParameters)
        let page = try await store.list(query)
        let body = try BookmarkStore.listBody(page)
        let tag = try BookmarkStore.listTag(of: body)
        if let notModified = try request.evaluatePreconditions(current: tag) { return notModified }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .eTag: tag.description]
        if let next = query.nextPage(after: page) { headers[HTTPField.Name("Link")!] = Self.link(to: next, from: request, relation: "next") }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A `Link` field value (RFC 8288) to the request's own path and query
    /// with `parameter` (`cursor=…` or `offset=…`) instead of its `cursor`
    /// and `offset`: the other parameters as the client encoded them.
    static func link(to parameter: String, from request: Request, relation: String) -> String {
        let kept = (request.uri.query ?? "").split(separator: "&").filter { item in
            let name = item.split(separator: "=", maxSplits: 1).first ?? ""
            return name != "cursor" && name != "offset"
        }
        let query = (kept.map(String.init) + [parameter]).joined(separator: "&")
        return "<\(request.uri.path)?\(query)>; rel=\"\(relation)\""
    }

    /// `GET /bookmarks/{id}` (and `HEAD`): the bookmark and its `ETag`; its
    /// preconditions evaluated in RFC 9110's order (304 for an
    /// `If-None-Match` naming it, 412 for an `If-Match` that does not).
    @Sendable func show(_ request: Request, context: Context) async throws -> Response {
        let bookmark = try await store.bookmark(try Self.id(context))
        return try request.taggedResponse(bookmark, tag: bookmark.entityTag, context: context)
    }

    /// `PUT /bookmarks/{id}`: replaces every field (as `POST` takes them);
    /// needs `If-Match` (428 without, 412 when stale). The answer is the
    /// bookmark as `GET` serves it, without `ETag`: the stored bookmark is not
    /// the body sent (RFC 9110 §9.3.4), its `version` says which it is.
    @Sendable func replace(_ request: Request, context: Context) async throws -> Response {
        let updated = try await update(request, context: context, replacing: true)
        return try updated.response(from: request, context: context)
    }

    /// `PATCH /bookmarks/{id}`: changes the fields the body has; needs
    /// `If-Match` like `PUT`; answers the bookmark with its new `ETag`.
    @Sendable func patch(_ request: Request, context: Context) async throws -> EditedResponse<BookmarkDTO> {
        let updated = try await update(request, context: context, replacing: false)
        return EditedResponse(headers: [.eTag: updated.etag], response: updated)
    }

    func update(_ request: Request, context: Context, replacing: Bool) async throws -> BookmarkDTO {
        let id = try Self.id(context)
        let preconditions = try Preconditions(request)
        try preconditions.requireIfMatch()
        let contentType = request.headers[.contentType] ?? ""
        if !replacing, !BookmarkRequestDecoder.isJSON(contentType) {
            // RFC 5789 §2.2: a 415 to PATCH says which patch documents it takes.
            throw HTTPError(.unsupportedMediaType, headers: [HTTPField.Name("Accept-Patch")!: "application/json"],
                            message: "PATCH takes application/json (a merge of the fields sent), not \(contentType.isEmpty ? "no Content-Type" : "Content-Type '\(contentType)'")")
        }
        let input = try await request.decode(as: BookmarkInput.self, context: context)
        return try await store.update(id, preconditions, input, replacing: replacing)
    }

    /// `DELETE /bookmarks/{id}`: 204; needs `If-Match` as `PUT` does (428
    /// without, 412 when stale).
    @Sendable func delete(_ request: Request, context: Context) async throws -> HTTPResponse.Status {
        let id = try Self.id(context)
        let preconditions = try Preconditions(request)
        try preconditions.requireIfMatch()
        try await store.delete(id, preconditions)
        return .noContent
    }

    static func id(_ context: Context) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw HTTPError(.badRequest, message: "parameter 'id' must be a positive integer")
        }
        return id
    }
}
