import BookmarksCore
import Foundation
import GRDB
import Hummingbird

// The same routes on GRDB 7: a `DatabasePool` (WAL, readers beside the
// writer), Codable records and associations, as GRDB's documentation writes
// them.

struct FolderRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "folder"
    var id: Int64?
    var name: String
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct TagRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "tag"
    var id: Int64?
    var label: String
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct BookmarkTagRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bookmarkTag"
    var bookmarkId: Int64
    var tagId: Int64
    static let tag = belongsTo(TagRecord.self)
}

struct BookmarkRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "bookmark"
    var id: Int64?
    var url: String
    var title: String
    var note: String?
    var visits: Int
    var createdAt: Date
    var folderId: Int64
    static let folder = belongsTo(FolderRecord.self)
    static let bookmarkTags = hasMany(BookmarkTagRecord.self)
    static let tags = hasMany(TagRecord.self, through: bookmarkTags, using: BookmarkTagRecord.tag)
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A bookmark with its folder and tags, fetched in one request.
struct BookmarkInfo: Decodable, FetchableRecord {
    var bookmark: BookmarkRecord
    var folder: FolderRecord?
    var tags: [TagRecord]

    var dto: BookmarkDTO {
        BookmarkDTO(id: bookmark.id ?? 0, url: bookmark.url, title: bookmark.title, note: bookmark.note,
                    visits: bookmark.visits, createdAt: bookmark.createdAt, folder: folder?.name,
                    tags: tags.map(\.label), version: 1)
    }
}

final class GRDBServer: Sendable {
    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        // As LiteRecord and the Fluent engine: WAL with synchronous NORMAL.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "folder") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
            }
            try db.create(table: "tag") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("label", .text).notNull().unique()
            }
            try db.create(table: "bookmark") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("url", .text).notNull().unique()
                t.column("title", .text).notNull()
                t.column("note", .text)
                t.column("visits", .integer).notNull()
                t.column("createdAt", .datetime).notNull().indexed()
                t.belongsTo("folder", onDelete: .cascade).notNull()
            }
            try db.create(table: "bookmarkTag") { t in
                t.primaryKey {
                    t.belongsTo("bookmark", onDelete: .cascade)
                    t.belongsTo("tag", onDelete: .cascade)
                }
            }
        }
        try migrator.migrate(pool)
    }

    func close() throws { try pool.close() }

    /// POST /bookmarks: one write transaction.
    func create(_ new: NewBookmark) async throws -> BookmarkDTO {
        try await pool.write { db -> BookmarkDTO in
            if try BookmarkRecord.filter(Column("url") == new.url).fetchCount(db) > 0 {
                throw HTTPError(.conflict, message: "a bookmark with url '\(new.url)' exists")
            }
            var folder = try FolderRecord.filter(Column("name") == new.folder).fetchOne(db) ?? FolderRecord(id: nil, name: new.folder)
            if folder.id == nil { try folder.insert(db) }
            var bookmark = BookmarkRecord(id: nil, url: new.url, title: new.title, note: new.note, visits: 0,
                                          createdAt: Date(), folderId: folder.id ?? 0)
            try bookmark.insert(db)
            var tags: [TagRecord] = []
            for label in new.tags {
                var tag = try TagRecord.filter(Column("label") == label).fetchOne(db) ?? TagRecord(id: nil, label: label)
                if tag.id == nil { try tag.insert(db) }
                try BookmarkTagRecord(bookmarkId: bookmark.id ?? 0, tagId: tag.id ?? 0).insert(db)
                tags.append(tag)
            }
            return BookmarkInfo(bookmark: bookmark, folder: folder, tags: tags).dto
        }
    }

    static func request() -> QueryInterfaceRequest<BookmarkRecord> {
        BookmarkRecord
            .including(optional: BookmarkRecord.folder)
            .including(all: BookmarkRecord.tags)
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let encoder = BookmarkJSON.makeEncoder()
        let pool = self.pool

        router.get("/health") { _, _ in try jsonResponse(["status": "ok"], encoder: encoder) }

        router.post("/bookmarks") { request, _ in
            let new = try NewBookmark(try BookmarkJSON.decode(BookmarkInput.self, from: try await bookmarkBody(request)))
            let created = try await self.create(new)
            var response = try jsonResponse(created, encoder: encoder, status: .created)
            response.headers[.location] = "/bookmarks/\(created.id)"
            return response
        }

        router.get("/bookmarks") { request, _ in
            let (tag, limit) = try listParameters(request)
            let list = try await pool.read { db in
                var request = GRDBServer.request()
                if let tag {
                    request = request.joining(required: BookmarkRecord.tags.filter(Column("label") == tag).forKey("matchingTag"))
                }
                return try request
                    .order(Column("createdAt").desc)
                    .limit(limit)
                    .asRequest(of: BookmarkInfo.self)
                    .fetchAll(db)
                    .map(\.dto)
            }
            return try jsonResponse(list, encoder: encoder)
        }

        router.get("/bookmarks/:id") { _, context in
            guard let id = context.parameters.get("id", as: Int64.self) else { throw HTTPError(.badRequest, message: "parameter 'id'") }
            let found = try await pool.read { db in
                try GRDBServer.request().filter(Column("id") == id).asRequest(of: BookmarkInfo.self).fetchOne(db)?.dto
            }
            guard let found else { throw HTTPError(.notFound, message: "no bookmark \(id)") }
            return try jsonResponse(found, encoder: encoder)
        }

        router.get("/stats") { _, _ in
            let counts = try await pool.read { db in
                StoreCounts(bookmarks: try BookmarkRecord.fetchCount(db), folders: try FolderRecord.fetchCount(db),
                            tags: try TagRecord.fetchCount(db))
            }
            return try jsonResponse(counts, encoder: encoder)
        }
        return router
    }
}
