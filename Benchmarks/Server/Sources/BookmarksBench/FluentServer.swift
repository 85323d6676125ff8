import BookmarksCore
import FluentKit
import FluentSQLiteDriver
import Foundation
import Hummingbird
import HummingbirdLiteRecord
import Logging
import NIOPosix

// The same routes on Fluent (fluent-kit on fluent-sqlite-driver), without
// Vapor: models with @Parent and @Siblings, eager loading with `with`.
// `createdAt` is a Double (seconds since 1970), as SQLiteNIO stores a Date.

// @unchecked: Fluent models are mutable classes by design; each request uses
// its own.
final class FolderModel: Model, @unchecked Sendable {
    static let schema = "folder"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "name") var name: String
    init() {}
    init(name: String) { self.name = name }
}

final class TagModel: Model, @unchecked Sendable {
    static let schema = "tag"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "label") var label: String
    init() {}
    init(label: String) { self.label = label }
}

final class BookmarkTagModel: Model, @unchecked Sendable {
    static let schema = "bookmark_tag"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Parent(key: "bookmark_id") var bookmark: BookmarkModel
    @Parent(key: "tag_id") var tag: TagModel
    init() {}
}

final class BookmarkModel: Model, @unchecked Sendable {
    static let schema = "bookmark"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "url") var url: String
    @Field(key: "title") var title: String
    @OptionalField(key: "note") var note: String?
    @Field(key: "visits") var visits: Int
    @Field(key: "created_at") var createdAt: Double
    @Parent(key: "folder_id") var folder: FolderModel
    /// Bumped by every update: the ETag's second half.
    @Field(key: "version") var version: Int
    @Siblings(through: BookmarkTagModel.self, from: \.$bookmark, to: \.$tag) var tags: [TagModel]
    init() {}

    /// The JSON of a bookmark whose folder and tags are loaded.
    func dto(folder: FolderModel? = nil, tags: [TagModel]? = nil) -> BookmarkDTO {
        BookmarkDTO(id: Int64(id ?? 0), url: url, title: title, note: note, visits: visits,
                    createdAt: Date(timeIntervalSince1970: createdAt),
                    folder: (folder ?? $folder.value)?.name,
                    tags: (tags ?? $tags.value ?? []).map(\.label), version: Int64(version))
    }
}

final class FluentServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let threads: NIOThreadPool
    let databases: Databases
    let logger: Logger
    /// Writes run on one event loop's connection, so two writers never meet
    /// in SQLite (a deferred transaction that read first would fail with
    /// SQLITE_BUSY_SNAPSHOT); reads use any loop's connection.
    let writeLoop: any EventLoop

    private init(group: MultiThreadedEventLoopGroup, threads: NIOThreadPool, databases: Databases, logger: Logger) {
        self.group = group
        self.threads = threads
        self.databases = databases
        self.logger = logger
        writeLoop = group.next()
    }

    static func open(path: String, logger: Logger, sqlLogLevel: Logger.Level? = nil) async throws -> FluentServer {
        // Four event loops, one SQLite connection each (fluent-sqlite-driver
        // keeps one per loop): as many connections as LiteRecord's four
        // readers, one of them also the writer.
        let loops = 4
        let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
        let threads = NIOThreadPool(numberOfThreads: loops)
        threads.start()
        let databases = Databases(threadPool: threads, on: group)
        databases.use(.sqlite(.file(path), sqlLogLevel: sqlLogLevel), as: .sqlite)
        let server = FluentServer(group: group, threads: threads, databases: databases, logger: logger)
        let sql = try server.sql(server.writeDatabase)
        for statement in [
            "PRAGMA journal_mode = WAL",
            // The write loop's one connection makes every commit: NORMAL, as
            // LiteRecord and the GRDB engine.
            "PRAGMA synchronous = NORMAL",
            "CREATE TABLE IF NOT EXISTS folder (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE)",
            "CREATE TABLE IF NOT EXISTS tag (id INTEGER PRIMARY KEY AUTOINCREMENT, label TEXT NOT NULL UNIQUE)",
            """
            CREATE TABLE IF NOT EXISTS bookmark (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL UNIQUE,
              title TEXT NOT NULL, note TEXT, visits INTEGER NOT NULL, created_at REAL NOT NULL,
              folder_id INTEGER NOT NULL REFERENCES folder(id) ON DELETE CASCADE, version INTEGER NOT NULL DEFAULT 1)
            """,
            "CREATE INDEX IF NOT EXISTS bookmark_created_at ON bookmark(created_at)",
            "CREATE INDEX IF NOT EXISTS bookmark_folder_id ON bookmark(folder_id)",
            """
            CREATE TABLE IF NOT EXISTS bookmark_tag (id INTEGER PRIMARY KEY AUTOINCREMENT,
              bookmark_id INTEGER NOT NULL REFERENCES bookmark(id) ON DELETE CASCADE,
              tag_id INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE, UNIQUE(bookmark_id, tag_id))
            """,
            "CREATE INDEX IF NOT EXISTS bookmark_tag_tag_id ON bookmark_tag(tag_id)",
        ] {
            try await sql.raw(SQLQueryString(statement)).run()
        }
        return server
    }

    var writeDatabase: any Database {
        get throws {
            guard let db = databases.database(logger: logger, on: writeLoop) else { throw HTTPError(.internalServerError) }
            return db
        }
    }

    var readDatabase: any Database {
        get throws {
            guard let db = databases.database(logger: logger, on: group.any()) else { throw HTTPError(.internalServerError) }
            return db
        }
    }

    func sql(_ db: any Database) throws -> any SQLDatabase {
        guard let sql = db as? any SQLDatabase else { throw HTTPError(.internalServerError) }
        return sql
    }

    func close() async throws {
        await databases.shutdownAsync()
        try await threads.shutdownGracefully()
        try await group.shutdownGracefully()
    }

    /// POST /bookmarks: one transaction on the write loop's connection.
    func create(_ new: NewBookmark) async throws -> BookmarkDTO {
        try await writeDatabase.transaction { db -> BookmarkDTO in
            if try await BookmarkModel.query(on: db).filter(\.$url == new.url).count() > 0 {
                throw HTTPError(.conflict, message: "a bookmark with url '\(new.url)' exists")
            }
            let folder: FolderModel
            if let existing = try await FolderModel.query(on: db).filter(\.$name == new.folder).first() {
                folder = existing
            } else {
                folder = FolderModel(name: new.folder)
                try await folder.create(on: db)
            }
            let bookmark = BookmarkModel()
            bookmark.url = new.url
            bookmark.title = new.title
            bookmark.note = new.note
            bookmark.visits = 0
            bookmark.createdAt = Date().timeIntervalSince1970
            bookmark.$folder.id = try folder.requireID()
            bookmark.version = 1
            try await bookmark.create(on: db)
            let tags = try await Self.link(bookmark, to: new.tags, db)
            return bookmark.dto(folder: folder, tags: tags)
        }
    }

    /// The folder named `name`, made when new.
    static func folder(_ name: String, _ db: any Database) async throws -> FolderModel {
        if let existing = try await FolderModel.query(on: db).filter(\.$name == name).first() { return existing }
        let folder = FolderModel(name: name)
        try await folder.create(on: db)
        return folder
    }

    /// Attaches the tags `labels` names to `bookmark`, making the new ones.
    static func link(_ bookmark: BookmarkModel, to labels: [String], _ db: any Database) async throws -> [TagModel] {
        var tags: [TagModel] = []
        for label in labels {
            let tag: TagModel
            if let existing = try await TagModel.query(on: db).filter(\.$label == label).first() {
                tag = existing
            } else {
                tag = TagModel(label: label)
                try await tag.create(on: db)
            }
            try await bookmark.$tags.attach(tag, on: db)
            tags.append(tag)
        }
        return tags
    }

    /// PUT /bookmarks/{id}: replaces the bookmark when `condition` names its
    /// current ETag, in one transaction on the write loop's connection.
    func replace(_ id: Int, ifMatch condition: EntityTagCondition, _ new: NewBookmark) async throws -> BookmarkDTO {
        try await writeDatabase.transaction { db -> BookmarkDTO in
            guard let bookmark = try await BookmarkModel.find(id, on: db) else { throw HTTPError(.notFound, message: "no bookmark \(id)") }
            try checkCondition(condition, id: Int64(id), version: Int64(bookmark.version))
            if new.url != bookmark.url, try await BookmarkModel.query(on: db).filter(\.$url == new.url).count() > 0 {
                throw HTTPError(.conflict, message: "a bookmark with url '\(new.url)' exists")
            }
            let folder = try await Self.folder(new.folder, db)
            bookmark.url = new.url
            bookmark.title = new.title
            bookmark.note = new.note
            bookmark.visits = 0
            bookmark.$folder.id = try folder.requireID()
            bookmark.version += 1
            try await bookmark.update(on: db)
            try await bookmark.$tags.detachAll(on: db)
            let tags = try await Self.link(bookmark, to: new.tags, db)
            return bookmark.dto(folder: folder, tags: tags)
        }
    }

    /// The list query of `GET /bookmarks?tag=&limit=`: the tag as LiteRecord
    /// filters it, a correlated EXISTS (not a join).
    func listQuery(tag: String?, limit: Int, on db: any Database) -> QueryBuilder<BookmarkModel> {
        var query = BookmarkModel.query(on: db)
        if let tag {
            let exists = tagExistsSQL(bookmark: "bookmark", joinTable: "bookmark_tag", bookmarkColumn: "bookmark_id", tagColumn: "tag_id")
            let parts = exists.split(separator: "?", omittingEmptySubsequences: false)
            query = query.filter(.sql(embed: "\(unsafeRaw: String(parts[0]))\(bind: tag)\(unsafeRaw: String(parts[1]))"))
        }
        return query.sort(\.$createdAt, .descending).limit(limit)
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let encoder = BookmarkJSON.makeEncoder()

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
            let models = try await self.listQuery(tag: tag, limit: limit, on: try self.readDatabase).with(\.$folder).with(\.$tags).all()
            return try jsonResponse(models.map { $0.dto() }, encoder: encoder)
        }

        router.get("/bookmarks/:id") { request, context in
            guard let id = context.parameters.get("id", as: Int.self) else { throw HTTPError(.badRequest, message: "parameter 'id'") }
            guard let model = try await BookmarkModel.query(on: try self.readDatabase).filter(\.$id == id)
                .with(\.$folder).with(\.$tags).first() else {
                throw HTTPError(.notFound, message: "no bookmark \(id)")
            }
            return try conditionalGet(request, model.dto(), encoder: encoder)
        }

        router.put("/bookmarks/:id") { request, context in
            guard let id = context.parameters.get("id", as: Int.self) else { throw HTTPError(.badRequest, message: "parameter 'id'") }
            let condition = try requiredIfMatch(request)
            let new = try NewBookmark(try BookmarkJSON.decode(BookmarkInput.self, from: try await bookmarkBody(request)))
            return try taggedResponse(try await self.replace(id, ifMatch: condition, new), encoder: encoder)
        }

        router.get("/stats") { _, _ in
            let db = try self.readDatabase
            let counts = StoreCounts(bookmarks: try await BookmarkModel.query(on: db).count(),
                                     folders: try await FolderModel.query(on: db).count(),
                                     tags: try await TagModel.query(on: db).count())
            return try jsonResponse(counts, encoder: encoder)
        }
        return router
    }
}
