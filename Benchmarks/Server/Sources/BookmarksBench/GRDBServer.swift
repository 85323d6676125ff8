import BookmarksCore
import Foundation
import GRDB
import Hummingbird
import HummingbirdLiteRecord

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
    /// Bumped by every update, as LiteRecord's row version: the ETag's second half.
    var version: Int64
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
                    tags: tags.map(\.label), version: bookmark.version)
    }
}

final class GRDBServer: Sendable {
    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        // As LiteRecord and the Fluent engine: WAL with synchronous NORMAL.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        // As many readers as LiteRecord's pool (GRDB's default is 5).
        configuration.maximumReaderCount = 4
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
                t.column("version", .integer).notNull().defaults(to: 1)
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
                                          createdAt: Date(), folderId: folder.id ?? 0, version: 1)
            try bookmark.insert(db)
            let tags = try Self.link(bookmark.id ?? 0, to: new.tags, db)
            return BookmarkInfo(bookmark: bookmark, folder: folder, tags: tags).dto
        }
    }

    /// Links bookmark `id` to the tags `labels` names, making the new ones.
    static func link(_ id: Int64, to labels: [String], _ db: Database) throws -> [TagRecord] {
        var tags: [TagRecord] = []
        for label in labels {
            var tag = try TagRecord.filter(Column("label") == label).fetchOne(db) ?? TagRecord(id: nil, label: label)
            if tag.id == nil { try tag.insert(db) }
            try BookmarkTagRecord(bookmarkId: id, tagId: tag.id ?? 0).insert(db)
            tags.append(tag)
        }
        return tags
    }

    /// PUT /bookmarks/{id}: replaces the bookmark when `condition` names its
    /// current ETag, in one write transaction.
    func replace(_ id: Int64, ifMatch condition: EntityTagCondition, _ new: NewBookmark) async throws -> BookmarkDTO {
        try await pool.write { db -> BookmarkDTO in
            guard var bookmark = try BookmarkRecord.fetchOne(db, key: id) else { throw HTTPError(.notFound, message: "no bookmark \(id)") }
            try checkCondition(condition, id: id, version: bookmark.version)
            if new.url != bookmark.url, try BookmarkRecord.filter(Column("url") == new.url).fetchCount(db) > 0 {
                throw HTTPError(.conflict, message: "a bookmark with url '\(new.url)' exists")
            }
            var folder = try FolderRecord.filter(Column("name") == new.folder).fetchOne(db) ?? FolderRecord(id: nil, name: new.folder)
            if folder.id == nil { try folder.insert(db) }
            bookmark.url = new.url
            bookmark.title = new.title
            bookmark.note = new.note
            bookmark.visits = 0
            bookmark.folderId = folder.id ?? 0
            bookmark.version += 1
            try bookmark.update(db)
            try BookmarkTagRecord.filter(Column("bookmarkId") == id).deleteAll(db)
            let tags = try Self.link(id, to: new.tags, db)
            return BookmarkInfo(bookmark: bookmark, folder: folder, tags: tags).dto
        }
    }

    /// The list request of `GET /bookmarks?tag=&limit=`.
    static func listRequest(tag: String?, limit: Int) -> QueryInterfaceRequest<BookmarkInfo> {
        var request = GRDBServer.request()
        if let tag {
            request = request.filter(sql: tagExistsSQL(bookmark: "bookmark", joinTable: "bookmarkTag",
                                                       bookmarkColumn: "bookmarkId", tagColumn: "tagId"), arguments: [tag])
        }
        return request.order(Column("createdAt").desc).limit(limit).asRequest(of: BookmarkInfo.self)
    }

    /// The SQL of the list request by tag, for `--explain`.
    func listSQL() async throws -> String {
        try await pool.read { db in
            try Self.listRequest(tag: "swift", limit: 20).makePreparedRequest(db, forSingleResult: false).statement.sql
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
            var response = try taggedResponse(created, encoder: encoder, status: .created)
            response.headers[.location] = "/bookmarks/\(created.id)"
            return response
        }

        router.get("/bookmarks") { request, _ in
            let (tag, limit) = try listParameters(request)
            let list = try await pool.read { db in
                try GRDBServer.listRequest(tag: tag, limit: limit).fetchAll(db).map(\.dto)
            }
            return try jsonResponse(list, encoder: encoder)
        }

        router.get("/bookmarks/:id") { request, context in
            guard let id = context.parameters.get("id", as: Int64.self) else { throw HTTPError(.badRequest, message: "parameter 'id'") }
            let found = try await pool.read { db in
                try GRDBServer.request().filter(Column("id") == id).asRequest(of: BookmarkInfo.self).fetchOne(db)?.dto
            }
            guard let found else { throw HTTPError(.notFound, message: "no bookmark \(id)") }
            return try conditionalGet(request, found, encoder: encoder)
        }

        router.put("/bookmarks/:id") { request, context in
            guard let id = context.parameters.get("id", as: Int64.self) else { throw HTTPError(.badRequest, message: "parameter 'id'") }
            let condition = try requiredIfMatch(request)
            let new = try NewBookmark(try BookmarkJSON.decode(BookmarkInput.self, from: try await bookmarkBody(request)))
            return try taggedResponse(try await self.replace(id, ifMatch: condition, new), encoder: encoder)
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
