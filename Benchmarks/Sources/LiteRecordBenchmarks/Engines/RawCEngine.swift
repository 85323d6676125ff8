import BenchSQLite
import Foundation

/// The physical-limit baseline: the C API with prepared statements reused,
/// bind/step/column by index, values read into plain structs.
struct RawCEngine: SynchronousEngine {
    let name = "raw-c"
    let itemTable = ItemTable.shared
    let templateFamily = "shared"

    /// A fetched row: the id plus the column values.
    struct Item {
        var id: Int64
        var values: ItemValues
    }

    private func connect(_ context: RunContext) throws -> RawDatabase {
        let db = try RawDatabase(path: context.store)
        try db.applyBenchmarkPragmas()
        // Parse the schema before the clock starts, as every engine does.
        _ = try db.scalarInt("SELECT count(*) FROM sqlite_master")
        return db
    }

    @inline(__always)
    static func insert(_ row: ItemValues, with statement: RawStatement) throws {
        statement.reset()
        statement.bind(row.uuid, at: 1)
        statement.bind(row.name, at: 2)
        statement.bind(Int64(row.age), at: 3)
        statement.bind(row.score, at: 4)
        statement.bind(row.created, at: 5)
        statement.bind(row.email, at: 6)
        _ = try statement.step()
    }

    @inline(__always)
    private static func item(_ statement: RawStatement) -> Item {
        Item(
            id: statement.int64(0),
            values: ItemValues(
                uuid: statement.string(1), name: statement.string(2), age: Int(statement.int64(3)),
                score: statement.double(4), created: statement.double(5), email: statement.optionalString(6)))
    }

    func insert(_ rows: [ItemValues], _ context: RunContext) throws {
        let db = try connect(context)
        context.stopwatch.start()
        try db.execute("BEGIN IMMEDIATE")
        let statement = try db.prepare(SharedSchema.insert)
        for row in rows { try Self.insert(row, with: statement) }
        try db.execute("COMMIT")
        context.stopwatch.stop()
    }

    private func fetchAll(_ db: RawDatabase) throws -> [Item] {
        let statement = try db.prepare(SharedSchema.selectAll)
        var items: [Item] = []
        while try statement.step() { items.append(Self.item(statement)) }
        return items
    }

    func fetch(_ context: RunContext) throws -> Checksum {
        let db = try connect(context)
        context.stopwatch.start()
        let items = try fetchAll(db)
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in items { checksum.add(item.values) }
        return checksum
    }

    func query(_ lowerBounds: [Int], _ context: RunContext) throws -> Checksum {
        let db = try connect(context)
        var results: [[Item]] = []
        results.reserveCapacity(lowerBounds.count)
        context.stopwatch.start()
        let statement = try db.prepare(SharedSchema.query)
        for lower in lowerBounds {
            statement.reset()
            statement.bind(Int64(lower), at: 1)
            statement.bind(Int64(lower + 2), at: 2)
            var items: [Item] = []
            while try statement.step() { items.append(Self.item(statement)) }
            results.append(items)
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in results.joined() { checksum.add(item.values) }
        return checksum
    }

    func update(_ context: RunContext) throws {
        let db = try connect(context)
        let items = try fetchAll(db)
        context.stopwatch.start()
        try db.execute("BEGIN IMMEDIATE")
        let statement = try db.prepare(SharedSchema.updateScore)
        for item in items {
            statement.reset()
            statement.bind(Dataset.updatedScore(item.values.score), at: 1)
            statement.bind(item.id, at: 2)
            _ = try statement.step()
        }
        try db.execute("COMMIT")
        context.stopwatch.stop()
    }

    func delete(_ context: RunContext) throws {
        let db = try connect(context)
        let items = try fetchAll(db)
        context.stopwatch.start()
        try db.execute("BEGIN IMMEDIATE")
        let statement = try db.prepare(SharedSchema.delete)
        for item in items {
            statement.reset()
            statement.bind(item.id, at: 1)
            _ = try statement.step()
        }
        try db.execute("COMMIT")
        context.stopwatch.stop()
    }

    func enumerate(_ context: RunContext) throws -> Checksum {
        let db = try connect(context)
        var checksum = Checksum()
        context.stopwatch.start()
        let statement = try db.prepare(SharedSchema.selectAll)
        while try statement.step() {
            // Hash the column bytes in place: no per-row allocation at all.
            var hasher = RowHasher()
            hasher.add(bytes: statement.bytes(1))
            hasher.add(bytes: statement.bytes(2))
            hasher.add(UInt64(bitPattern: statement.int64(3)))
            hasher.add(statement.double(4).bitPattern)
            hasher.add(statement.double(5).bitPattern)
            if statement.isNull(6) { hasher.addNull() } else { hasher.add(bytes: statement.bytes(6)) }
            checksum.addRowHash(hasher.value)
        }
        context.stopwatch.stop()
        return checksum
    }

    func open(_ context: RunContext) throws -> Checksum {
        context.stopwatch.start()
        let db = try RawDatabase(path: context.store)
        try db.applyBenchmarkPragmas()
        let count = try db.scalarInt("SELECT count(*) FROM e0")
        context.stopwatch.stop()
        return Checksum(rowCount: Int(count))
    }

    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws {
        try SharedTemplates.make(kind, at: path, count: count)
    }
}

// MARK: Relationships

extension RawCEngine: RelationshipEngine {
    struct Book {
        var id: Int64
        var title: String
        var year: Int
        var authorID: Int64
    }

    struct Author {
        var id: Int64
        var name: String
        var born: Int
        var books: [Book] = []
    }

    /// A row of the join: the book and its author's columns.
    struct BookWithAuthor {
        var book: Book
        var authorName: String
        var authorBorn: Int
    }

    /// One hand-written join.
    func fetchBooksWithAuthors(_ context: RunContext) throws -> Checksum {
        let db = try connect(context)
        context.stopwatch.start()
        let statement = try db.prepare(
            "SELECT b.id, b.title, b.year, b.authorId, a.name, a.born FROM book b JOIN author a ON a.id = b.authorId")
        context.statements.add()
        var rows: [BookWithAuthor] = []
        while try statement.step() {
            rows.append(
                BookWithAuthor(
                    book: Book(id: statement.int64(0), title: statement.string(1), year: Int(statement.int64(2)), authorID: statement.int64(3)),
                    authorName: statement.string(4), authorBorn: Int(statement.int64(5))))
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for row in rows {
            checksum.addBook(title: row.book.title, year: row.book.year, authorName: row.authorName, authorBorn: row.authorBorn)
        }
        return checksum
    }

    /// Two queries, the books grouped under their authors by id.
    func walkAuthorsBooks(_ context: RunContext) throws -> Checksum {
        let db = try connect(context)
        context.stopwatch.start()
        let authorRows = try db.prepare("SELECT id, name, born FROM author")
        context.statements.add()
        var authors: [Author] = []
        var positions: [Int64: Int] = [:]
        while try authorRows.step() {
            let id = authorRows.int64(0)
            positions[id] = authors.count
            authors.append(Author(id: id, name: authorRows.string(1), born: Int(authorRows.int64(2))))
        }
        let bookRows = try db.prepare("SELECT id, title, year, authorId FROM book")
        context.statements.add()
        while try bookRows.step() {
            let book = Book(id: bookRows.int64(0), title: bookRows.string(1), year: Int(bookRows.int64(2)), authorID: bookRows.int64(3))
            if let position = positions[book.authorID] { authors[position].books.append(book) }
        }
        var walked = 0
        for author in authors { walked &+= author.books.count }
        context.stopwatch.stop()
        var checksum = Checksum()
        for author in authors {
            for book in author.books {
                checksum.addBook(title: book.title, year: book.year, authorName: author.name, authorBorn: author.born)
            }
        }
        guard walked == checksum.count else { throw SQLiteFailure(code: 0, message: "walked \(walked) books") }
        return checksum
    }

    /// The cascade by hand: each doomed author's books, then the author.
    func cascadeDelete(_ context: RunContext) throws {
        let db = try connect(context)
        var doomed: [Int64] = []
        let authors = try db.prepare("SELECT id, born FROM author")
        while try authors.step() {
            if Library.isDoomed(born: Int(authors.int64(1))) { doomed.append(authors.int64(0)) }
        }
        context.stopwatch.start()
        try db.execute("BEGIN IMMEDIATE")
        let deleteBooks = try db.prepare("DELETE FROM book WHERE authorId = ?")
        let deleteAuthor = try db.prepare("DELETE FROM author WHERE id = ?")
        for id in doomed {
            deleteBooks.reset()
            deleteBooks.bind(id, at: 1)
            _ = try deleteBooks.step()
            deleteAuthor.reset()
            deleteAuthor.bind(id, at: 1)
            _ = try deleteAuthor.step()
        }
        try db.execute("COMMIT")
        context.stopwatch.stop()
        context.statements.add(2 + 2 * doomed.count)
    }
}

// MARK: Objects built in the timed part, concurrency, memory

extension RawCEngine: BuildingInsertEngine {
    /// The C program's own rows: plain structs (id + values) built from the
    /// data set inside the clock, then bound as in `insert`.
    func insertBuilt(_ rows: [ItemValues], _ context: RunContext) throws {
        let db = try connect(context)
        context.stopwatch.start()
        var items: [Item] = []
        items.reserveCapacity(rows.count)
        for row in rows { items.append(Item(id: 0, values: row)) }
        try db.execute("BEGIN IMMEDIATE")
        let statement = try db.prepare(SharedSchema.insert)
        for item in items { try Self.insert(item.values, with: statement) }
        try db.execute("COMMIT")
        context.stopwatch.stop()
    }
}

extension RawCEngine: ConcurrentEngine {
    /// One thread and one connection per reader, one for the writer.
    func concurrent(_ run: ConcurrentRun, _ context: RunContext) throws -> ConcurrentOutcome {
        // Open and warm every connection before the clock.
        let readers = try (0..<ConcurrentRun.readers).map { _ in
            let db = try connect(context)
            try db.execute("PRAGMA busy_timeout = 5000")
            return db
        }
        let writer = try connect(context)
        try writer.execute("PRAGMA busy_timeout = 5000")
        let results = ThreadResults(count: ConcurrentRun.readers + 1)
        let done = DispatchGroup()
        context.stopwatch.start()
        let started = ContinuousClock.now
        let deadline = started + ConcurrentRun.duration
        for (reader, db) in readers.enumerated() {
            let db = UncheckedBox(db)
            done.enter()
            Thread.detachNewThread {
                results.finish(reader) {
                    var outcome = ConcurrentOutcome()
                    let statement = try db.value.prepare(SharedSchema.query)
                    while ContinuousClock.now < deadline {
                        let lower = run.lowerBound(reader: reader, index: outcome.reads)
                        statement.reset()
                        statement.bind(Int64(lower), at: 1)
                        statement.bind(Int64(lower + 2), at: 2)
                        var items: [Item] = []
                        while try statement.step() { items.append(Self.item(statement)) }
                        outcome.reads += 1
                        if !ConcurrentRun.isValid(items.map { ($0.values.age, $0.values.name) }, lower: lower) {
                            outcome.invalidReads += 1
                        }
                    }
                    statement.reset()
                    return outcome
                }
                done.leave()
            }
        }
        let db = UncheckedBox(writer)
        done.enter()
        Thread.detachNewThread {
            results.finish(ConcurrentRun.readers) {
                var outcome = ConcurrentOutcome()
                let statement = try db.value.prepare(SharedSchema.insert)
                for batch in run.batches {
                    guard ContinuousClock.now < deadline else { break }
                    try db.value.execute("BEGIN IMMEDIATE")
                    for row in batch { try Self.insert(row, with: statement) }
                    try db.value.execute("COMMIT")
                    outcome.writtenRows += batch.count
                }
                return outcome
            }
            done.leave()
        }
        done.wait()
        var total = try results.total()
        total.seconds = (ContinuousClock.now - started).asSeconds
        context.stopwatch.stop()
        return total
    }
}

extension RawCEngine: MemoryEngine {
    /// The heap bytes of `fetch`'s result, per row: the array of structs and
    /// the three strings each row holds (uuid, name, email). The same for
    /// every memory workload: its template holds that workload's rows.
    func memory(_ context: RunContext, _ workload: Workload) throws -> (Checksum, [String: Double]) {
        let db = try connect(context)
        let before = bench_heap_in_use()
        let items = try fetchAll(db)
        let after = bench_heap_in_use()
        var checksum = Checksum()
        for item in items { checksum.add(item.values) }
        let perRow = Double(after - before) / Double(max(items.count, 1))
        return (checksum, [Metric.heapPerObject: perRow])
    }
}

/// A non-Sendable value handed to exactly one thread.
struct UncheckedBox<T>: @unchecked Sendable {
    // @unchecked: the creating thread never touches `value` again.
    let value: T
    init(_ value: T) { self.value = value }
}

/// What each thread of a concurrent run returned.
final class ThreadResults: @unchecked Sendable {
    // @unchecked: `results` is only touched with `lock` held.
    private let lock = NSLock()
    private var results: [Result<ConcurrentOutcome, any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func finish(_ index: Int, _ body: () throws -> ConcurrentOutcome) {
        let result = Result { try body() }
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    func total() throws -> ConcurrentOutcome {
        lock.lock()
        defer { lock.unlock() }
        var total = ConcurrentOutcome()
        for result in results {
            guard let result else { throw SQLiteFailure(code: 0, message: "a concurrent thread did not finish") }
            total.merge(try result.get())
        }
        return total
    }
}
