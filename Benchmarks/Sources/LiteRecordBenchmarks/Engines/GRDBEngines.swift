import Foundation
import GRDB

/// GRDB's connection setup shared by both GRDB engines: one `DatabaseQueue`
/// in WAL mode with `synchronous = NORMAL`.
enum GRDBSupport {
    static func openQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Opens the queue and parses the schema before the clock starts.
    static func openWarm(_ path: String) throws -> DatabaseQueue {
        let queue = try openQueue(path)
        _ = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
        return queue
    }

    static func openModel(_ context: RunContext) throws -> Checksum {
        context.stopwatch.start()
        let queue = try openQueue(context.store)
        let count = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM e0") } ?? 0
        context.stopwatch.stop()
        return Checksum(rowCount: count)
    }
}

/// GRDB with raw rows: cached statements and a row cursor, columns read by index.
struct GRDBRowsEngine: SynchronousEngine {
    let name = "grdb-rows"
    let itemTable = ItemTable.shared
    let templateFamily = "shared"

    @inline(__always)
    private static func values(_ row: Row) -> RawCEngine.Item {
        RawCEngine.Item(
            id: row[0],
            values: ItemValues(uuid: row[1], name: row[2], age: row[3], score: row[4], created: row[5], email: row[6]))
    }

    private static func fetchAll(_ db: Database) throws -> [RawCEngine.Item] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: SharedSchema.selectAll))
        var items: [RawCEngine.Item] = []
        while let row = try rows.next() { items.append(values(row)) }
        return items
    }

    func insert(_ rows: [ItemValues], _ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        try queue.write { db in
            let statement = try db.cachedStatement(sql: SharedSchema.insert)
            for row in rows {
                try statement.execute(arguments: [row.uuid, row.name, row.age, row.score, row.created, row.email])
            }
        }
        context.stopwatch.stop()
    }

    func fetch(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let items = try queue.read(Self.fetchAll)
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in items { checksum.add(item.values) }
        return checksum
    }

    func query(_ lowerBounds: [Int], _ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let results = try queue.read { db in
            try lowerBounds.map { lower in
                let statement = try db.cachedStatement(sql: SharedSchema.query)
                let rows = try Row.fetchCursor(statement, arguments: [lower, lower + 2])
                var items: [RawCEngine.Item] = []
                while let row = try rows.next() { items.append(Self.values(row)) }
                return items
            }
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in results.joined() { checksum.add(item.values) }
        return checksum
    }

    func update(_ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let items = try queue.read(Self.fetchAll)
        context.stopwatch.start()
        try queue.write { db in
            let statement = try db.cachedStatement(sql: SharedSchema.updateScore)
            for item in items {
                try statement.execute(arguments: [Dataset.updatedScore(item.values.score), item.id])
            }
        }
        context.stopwatch.stop()
    }

    func delete(_ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let items = try queue.read(Self.fetchAll)
        context.stopwatch.start()
        try queue.write { db in
            let statement = try db.cachedStatement(sql: SharedSchema.delete)
            for item in items { try statement.execute(arguments: [item.id]) }
        }
        context.stopwatch.stop()
    }

    func enumerate(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let checksum = try queue.read { db in
            var checksum = Checksum()
            let rows = try Row.fetchCursor(db.cachedStatement(sql: SharedSchema.selectAll))
            while let row = try rows.next() { checksum.add(Self.values(row).values) }
            return checksum
        }
        context.stopwatch.stop()
        return checksum
    }

    func open(_ context: RunContext) throws -> Checksum {
        try GRDBSupport.openModel(context)
    }

    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws {
        try SharedTemplates.make(kind, at: path, count: count)
    }

}

/// The record a GRDB user writes: a `Codable` struct with
/// `FetchableRecord & PersistableRecord`. `UUID` and `Date` are stored as the
/// same uppercase text and reference-date seconds as every other engine.
struct ItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"

    var id: Int64?
    var uuid: UUID
    var name: String
    var age: Int
    var score: Double
    var created: Date
    var email: String?

    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .uppercaseString }
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSinceReferenceDate }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSinceReferenceDate }

    init(_ values: ItemValues) {
        self.init(values, uuid: UUID(uuidString: values.uuid) ?? UUID())
    }

    /// The object of one data set row whose UUID the caller parsed already
    /// (`insert-built` parses before the clock: see the report's Method).
    init(_ values: ItemValues, uuid: UUID) {
        self.uuid = uuid
        name = values.name
        age = values.age
        score = values.score
        created = Date(timeIntervalSinceReferenceDate: values.created)
        email = values.email
    }

    func add(to checksum: inout Checksum) {
        checksum.add(uuid: uuid, name: name, age: age, score: score, created: created, email: email)
    }
}

struct GRDBRecordsEngine: SynchronousEngine {
    let name = "grdb-records"
    let itemTable = ItemTable.shared
    let templateFamily = "shared"

    func insert(_ rows: [ItemValues], _ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        // Built before the clock starts, as for every record engine.
        let records = rows.map(ItemRecord.init)
        context.stopwatch.start()
        try queue.write { db in
            for record in records { try record.insert(db) }
        }
        context.stopwatch.stop()
    }

    func fetch(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let records = try queue.read { try ItemRecord.fetchAll($0) }
        context.stopwatch.stop()
        var checksum = Checksum()
        for record in records { record.add(to: &checksum) }
        return checksum
    }

    func query(_ lowerBounds: [Int], _ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let results = try queue.read { db in
            try lowerBounds.map { lower in
                try ItemRecord
                    .filter((lower...(lower + 2)).contains(Column("age")))
                    .order(Column("name"))
                    .limit(100)
                    .fetchAll(db)
            }
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for record in results.joined() { record.add(to: &checksum) }
        return checksum
    }

    func update(_ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let records = try queue.read { try ItemRecord.fetchAll($0) }
        context.stopwatch.start()
        try queue.write { db in
            for var record in records {
                record.score = Dataset.updatedScore(record.score)
                try record.update(db, columns: [Column("score")])
            }
        }
        context.stopwatch.stop()
    }

    func delete(_ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let records = try queue.read { try ItemRecord.fetchAll($0) }
        context.stopwatch.start()
        try queue.write { db in
            for record in records { try record.delete(db) }
        }
        context.stopwatch.stop()
    }

    func enumerate(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        context.stopwatch.start()
        let checksum = try queue.read { db in
            var checksum = Checksum()
            let records = try ItemRecord.fetchCursor(db)
            while let record = try records.next() { record.add(to: &checksum) }
            return checksum
        }
        context.stopwatch.stop()
        return checksum
    }

    func open(_ context: RunContext) throws -> Checksum {
        try GRDBSupport.openModel(context)
    }

    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws {
        try SharedTemplates.make(kind, at: path, count: count)
    }

}

// MARK: Relationships: GRDB associations

struct AuthorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    static let books = hasMany(BookRecord.self)

    var id: Int64
    var name: String
    var born: Int
}

struct BookRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    static let author = belongsTo(AuthorRecord.self)

    var id: Int64
    var title: String
    var year: Int
    var authorId: Int64
}

/// `Book.including(required: Book.author)`: one joined row per book.
struct BookWithAuthor: Decodable, FetchableRecord {
    var book: BookRecord
    var author: AuthorRecord
}

/// `Author.including(all: Author.books)`: the authors, then their books.
struct AuthorWithBooks: Decodable, FetchableRecord {
    var author: AuthorRecord
    var books: [BookRecord]
}

extension GRDBRecordsEngine: RelationshipEngine {
    /// Counts the statements run on the queue from now on, in a counting run.
    private func count(_ queue: DatabaseQueue, _ context: RunContext) throws {
        guard context.statements.enabled else { return }
        let counter = context.statements
        queue.inDatabase { db in db.trace(options: .statement) { _ in counter.add() } }
        counter.reset()
    }

    func fetchBooksWithAuthors(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        try count(queue, context)
        context.stopwatch.start()
        let rows = try queue.read { db in
            try BookRecord.including(required: BookRecord.author).asRequest(of: BookWithAuthor.self).fetchAll(db)
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for row in rows {
            checksum.addBook(title: row.book.title, year: row.book.year, authorName: row.author.name, authorBorn: row.author.born)
        }
        return checksum
    }

    func walkAuthorsBooks(_ context: RunContext) throws -> Checksum {
        let queue = try GRDBSupport.openWarm(context.store)
        try count(queue, context)
        context.stopwatch.start()
        let authors = try queue.read { db in
            try AuthorRecord.including(all: AuthorRecord.books).asRequest(of: AuthorWithBooks.self).fetchAll(db)
        }
        var walked = 0
        for author in authors { walked &+= author.books.count }
        context.stopwatch.stop()
        var checksum = Checksum()
        for info in authors {
            for book in info.books {
                checksum.addBook(title: book.title, year: book.year, authorName: info.author.name, authorBorn: info.author.born)
            }
        }
        guard walked == checksum.count else { throw SQLiteFailure(code: 0, message: "walked \(walked) books") }
        return checksum
    }

    /// `record.delete(db)` per author; the schema's `ON DELETE CASCADE`
    /// (GRDB turns foreign keys on) takes the books.
    func cascadeDelete(_ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let doomed = try queue.read { try AuthorRecord.fetchAll($0) }.filter { Library.isDoomed(born: $0.born) }
        try count(queue, context)
        context.stopwatch.start()
        try queue.write { db in
            for author in doomed { try author.delete(db) }
        }
        context.stopwatch.stop()
    }
}

// MARK: Records built in the timed part, concurrency

extension GRDBRecordsEngine: BuildingInsertEngine {
    /// The `Codable` records made from the data set inside the clock (`Date`
    /// included; the UUIDs parsed before it, as for LiteRecord), then inserted
    /// one by one in one write.
    func insertBuilt(_ rows: [ItemValues], _ context: RunContext) throws {
        let queue = try GRDBSupport.openWarm(context.store)
        let uuids = rows.map { UUID(uuidString: $0.uuid) ?? UUID() }
        context.stopwatch.start()
        try queue.write { db in
            for (row, uuid) in zip(rows, uuids) { try ItemRecord(row, uuid: uuid).insert(db) }
        }
        context.stopwatch.stop()
    }
}

extension GRDBRecordsEngine: ConcurrentEngine {
    /// A `DatabasePool` (WAL, up to 4 readers): readers `try await pool.read`,
    /// the writer `try await pool.write` inserting one batch of records per call.
    func concurrent(_ run: ConcurrentRun, _ context: RunContext) throws -> ConcurrentOutcome {
        var configuration = Configuration()
        configuration.maximumReaderCount = ConcurrentRun.readers
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool = try DatabasePool(path: context.store, configuration: configuration)
        _ = try pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
        context.stopwatch.start()
        let outcome = try TaskRace.run(
            readers: ConcurrentRun.readers,
            read: { reader, index in
                let lower = run.lowerBound(reader: reader, index: index)
                return try await pool.read { db in
                    let records = try ItemRecord
                        .filter((lower...(lower + 2)).contains(Column("age")))
                        .order(Column("name"))
                        .limit(100)
                        .fetchAll(db)
                    return ConcurrentRun.isValid(records.map { ($0.age, $0.name) }, lower: lower)
                }
            },
            write: { batch in
                let rows = run.batches[batch]
                try await pool.write { db in
                    for row in rows { try ItemRecord(row).insert(db) }
                }
                return rows.count
            })
        context.stopwatch.stop()
        try pool.close()
        return outcome
    }
}
