import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdLiteRecord

// What the three engines share: the command line, the JSON, the validation
// of a new bookmark and the list route's parameters, as the example has them.

/// The value after `--name` on the command line.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// A JSON answer, encoded by the example's encoder (the same bytes for every engine).
func jsonResponse(_ value: some Encodable, encoder: JSONEncoder, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try encoder.encode(value)
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}

/// The body of a bookmark request, up to the example's limit.
func bookmarkBody(_ request: Request) async throws -> Data {
    let buffer = try await request.body.collect(upTo: BookmarksApp.maximumBookmarkBody)
    return Data(buffer.readableBytesView)
}

/// The example's validation of a new bookmark: trimmed, non-empty url, title
/// and folder; tags trimmed, non-empty, without duplicates.
struct NewBookmark: Sendable {
    var url: String
    var title: String
    var folder: String
    var tags: [String]
    var note: String?

    init(_ input: BookmarkInput) throws {
        func required(_ value: String?, _ field: String) throws -> String {
            let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !trimmed.isEmpty else { throw HTTPError(.badRequest, message: "field '\(field)' is missing or empty") }
            return trimmed
        }
        url = try required(input.url, "url")
        title = try required(input.title, "title")
        folder = try required(input.folder, "folder")
        var seen = Set<String>()
        tags = []
        for (index, tag) in (input.tags ?? []).enumerated() {
            let label = tag.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !label.isEmpty else { throw HTTPError(.badRequest, message: "field 'tags[\(index)]' must not be empty") }
            if seen.insert(label).inserted { tags.append(label) }
        }
        note = input.note ?? nil
    }
}

extension NewBookmark {
    /// The tags the load script asks for.
    static let labels = ["swift", "server", "sqlite", "linux", "web", "database", "http", "testing"]

    /// Seed bookmark `index`: two tags, one of 20 folders.
    init(seedIndex index: Int) {
        url = "https://seed.example/\(index)"
        title = "Seed bookmark \(index)"
        folder = "folder-\(index % 20)"
        tags = [Self.labels[index % 8], Self.labels[(index / 8 + 3) % 8]]
        if tags[0] == tags[1] { tags.removeLast() }
        note = nil
    }
}

/// `limit` (1…500, 50) and `tag` of `GET /bookmarks`, read as the example reads them.
func listParameters(_ request: Request) throws -> (tag: String?, limit: Int) {
    let query = try BookmarkQuery(parameters: request.uri.queryParameters)
    return (query.tag, query.limit)
}

// MARK: - Conditional requests, as the example answers them

/// `GET /bookmarks/{id}`: 304 with the ETag when `If-None-Match` names it,
/// else the JSON with its ETag.
func conditionalGet(_ request: Request, _ dto: BookmarkDTO, encoder: JSONEncoder) throws -> Response {
    let tag = dto.entityTag
    if try request.isNotModified(current: tag) { return Response.notModified(tag) }
    var response = try jsonResponse(dto, encoder: encoder)
    response.headers[.eTag] = tag.description
    return response
}

/// The `If-Match` a `PUT` must carry (428 without it).
func requiredIfMatch(_ request: Request) throws -> EntityTagCondition {
    guard let condition = try request.ifMatch() else {
        throw HTTPError(.preconditionRequired, message: "PUT needs an If-Match header with the bookmark's ETag")
    }
    return condition
}

/// 412 carrying the current ETag unless `condition` names it.
func checkCondition(_ condition: EntityTagCondition, id: Int64, version: Int64) throws {
    try condition.requireMatch(BookmarkDTO.entityTag(id: id, version: version), message: "bookmark \(id) has changed")
}

/// A JSON answer with the bookmark's ETag.
func taggedResponse(_ dto: BookmarkDTO, encoder: JSONEncoder, status: HTTPResponse.Status = .ok) throws -> Response {
    var response = try jsonResponse(dto, encoder: encoder, status: status)
    response.headers[.eTag] = dto.etag
    return response
}

/// The tag filter of `GET /bookmarks?tag=` in LiteRecord's shape, for the
/// other engines: a correlated `EXISTS` over the join table, so that every
/// engine runs the same query plan (`--explain` prints them).
func tagExistsSQL(bookmark: String, joinTable: String, bookmarkColumn: String, tagColumn: String) -> String {
    "EXISTS (SELECT 1 FROM \(joinTable) JOIN tag ON tag.id = \(joinTable).\(tagColumn) "
        + "WHERE \(joinTable).\(bookmarkColumn) = \(bookmark).id AND tag.label = ?)"
}
