import BenchSQLite
import Foundation
import LiteRecord

// LiteRecord as its users write it: `@Entity` classes, a stack, a context,
// `save()`, `findAll`, `#Predicate` + `SortDescriptor`, `enumerate`.

@Entity
final class Item {
    var uuid: UUID
    var name: String
    @Attribute(.indexed) var age: Int
    var score: Double
    var created: Date
    var email: String?

    convenience init(_ values: ItemValues) {
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
}

extension Item: MemoryMeasured {
    func add(to checksum: inout Checksum) {
        checksum.add(uuid: uuid, name: name, age: age, score: score, created: created, email: email)
    }

    func appendTexts(to texts: inout [String]) {
        texts.append(name)
        if let email { texts.append(email) }
    }
}

/// The entity of `memory-user`: `Item`'s columns in the shape apps write
/// them, the `uuid` kept as its text.
@Entity
final class UserItem {
    var uuid: String
    var name: String
    @Attribute(.indexed) var age: Int
    var score: Double
    var created: Date
    var email: String?

    init(_ values: ItemValues) {
        uuid = values.uuid
        name = values.name
        age = values.age
        score = values.score
        created = Date(timeIntervalSinceReferenceDate: values.created)
        email = values.email
    }
}

extension UserItem: MemoryMeasured {
    func add(to checksum: inout Checksum) {
        checksum.add(
            uuid: uuid, name: name, age: age, score: score, created: created.timeIntervalSinceReferenceDate, email: email)
    }

    func appendTexts(to texts: inout [String]) {
        texts.append(uuid)
        texts.append(name)
        if let email { texts.append(email) }
    }
}

// MARK: The 10-entity model of the open workload

@Entity(name: "e0") final class E0 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e1") final class E1 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e2") final class E2 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e3") final class E3 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e4") final class E4 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e5") final class E5 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e6") final class E6 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e7") final class E7 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e8") final class E8 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

@Entity(name: "e9") final class E9 {
    var title = ""
    @Attribute(.indexed) var count = 0
    var amount = 0.0
    var stamp = Date()
    var note: String?
    var flag = false
    init() {}
}

let modelEntities: [any Entity.Type] = [
    E0.self, E1.self, E2.self, E3.self, E4.self, E5.self, E6.self, E7.self, E8.self, E9.self,
]

// MARK: The relationship workloads' model

@Entity
final class Author {
    var name = ""
    var born = 0
    @Relationship(deleteRule: .cascade, inverse: \Book.author)
    var books: [Book] = []
    init() {}
}

@Entity
final class Book {
    var title = ""
    var year = 0
    @Relationship var author: Author?
    init() {}
}

// MARK: The engine

struct LiteRecordEngine: SynchronousEngine {
    /// Whether reader connections map the file (`RecordStack.memoryMappedReadSize`,
    /// off by default): the `literecord-mmap` engine, which runs `concurrent` only.
    var mapsReads = false
    var name: String { mapsReads ? "literecord-mmap" : "literecord" }
    let itemTable = ItemTable(table: "Item", key: "Z_PK")
    let templateFamily = "literecord"
    let libraryTables = LibraryTables(author: "Author", book: "Book", key: "Z_PK", bookAuthor: "author")

    func supports(_ workload: Workload) -> Bool {
        mapsReads ? workload == .concurrent : supportsByKind(workload)
    }

    private func openStack(_ path: String, entities: [any Entity.Type] = [Item.self]) throws -> RecordStack {
        RecordStack.memoryMappedReadSize = mapsReads ? 1 << 30 : 0
        return try RecordStack(storeAt: URL(fileURLWithPath: path), entities: entities)
    }

    /// A stack and a context whose reader connection is already open, as in
    /// an app that has been running for a moment.
    private func openWarm(_ path: String) throws -> (RecordStack, RecordContext) {
        let stack = try openStack(path)
        let context = stack.newContext()
        _ = try Item.count(in: context)
        return (stack, context)
    }

    func insert(_ rows: [ItemValues], _ context: RunContext) throws {
        let stack = try openStack(context.store)
        let records = stack.newContext()
        // The objects exist before the clock starts: building them from the
        // dataset's text is the user's code, the same for every record engine.
        let items = rows.map(Item.init)
        context.stopwatch.start()
        for item in items { records.insert(item) }
        try records.save()
        context.stopwatch.stop()
        try stack.close()
    }

    /// The objects are read as an app reads those of its main context: in
    /// an observable context (`isObservable`), every property after the
    /// clock, so that peak RSS includes what reading them costs.
    func fetch(_ context: RunContext) throws -> Checksum {
        let (stack, records) = try openWarm(context.store)
        records.isObservable = true
        context.stopwatch.start()
        let items = try Item.findAll(in: records)
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in items { item.add(to: &checksum) }
        try stack.close()
        return checksum
    }

    func query(_ lowerBounds: [Int], _ context: RunContext) throws -> Checksum {
        let (stack, records) = try openWarm(context.store)
        var results: [[Item]] = []
        context.stopwatch.start()
        for lower in lowerBounds {
            results.append(try Self.itemsAged(lower...(lower + 2), sortedByNameFirst: 100, in: records))
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        for item in results.joined() { item.add(to: &checksum) }
        try stack.close()
        return checksum
    }

    /// `age BETWEEN lower AND upper ORDER BY name LIMIT limit`.
    static func itemsAged(
        _ ages: ClosedRange<Int>, sortedByNameFirst limit: Int, in context: RecordContext
    ) throws -> [Item] {
        let lower = ages.lowerBound
        let upper = ages.upperBound
        return try Item.fetch(
            FetchRequest(
                predicate: #Predicate<Item> { $0.age >= lower && $0.age <= upper },
                sortBy: [SortDescriptor(\.name)],
                fetchLimit: limit),
            in: context)
    }

    func update(_ context: RunContext) throws {
        let (stack, records) = try openWarm(context.store)
        let items = try Item.findAll(in: records)
        context.stopwatch.start()
        for item in items { item.score = Dataset.updatedScore(item.score) }
        try records.save()
        context.stopwatch.stop()
        try stack.close()
    }

    func delete(_ context: RunContext) throws {
        let (stack, records) = try openWarm(context.store)
        let items = try Item.findAll(in: records)
        context.stopwatch.start()
        for item in items { records.delete(item) }
        try records.save()
        context.stopwatch.stop()
        try stack.close()
    }

    func enumerate(_ context: RunContext) throws -> Checksum {
        let (stack, records) = try openWarm(context.store)
        var checksum = Checksum()
        context.stopwatch.start()
        try Item.enumerate(batchSize: 1_000, in: records) { item in
            item.add(to: &checksum)
        }
        context.stopwatch.stop()
        try stack.close()
        return checksum
    }

    func open(_ context: RunContext) throws -> Checksum {
        context.stopwatch.start()
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: context.store), entities: modelEntities)
        let count = try E0.count(in: stack.newContext())
        context.stopwatch.stop()
        try stack.close()
        return Checksum(rowCount: count)
    }

    func makeTemplate(_ kind: TemplateKind, at path: String, count: Int) throws {
        let url = URL(fileURLWithPath: path)
        switch kind {
        case .empty:
            try RecordStack(storeAt: url, entities: [Item.self]).close()
        case .items, .manyItems:
            // LiteRecord creates the file (schema and model metadata); the rows
            // go in through the C API, which takes a third of the time for the
            // 1,000,000-row store. The content is what `insert` + `save()` writes.
            try RecordStack(storeAt: url, entities: [Item.self]).close()
            try SharedTemplates.insertRows(count, into: path, table: itemTable)
        case .userItems:
            try RecordStack(storeAt: url, entities: [UserItem.self]).close()
            try SharedTemplates.insertRows(
                count, into: path, table: ItemTable(table: "UserItem", key: "Z_PK"), row: Dataset.userRow)
        case .model:
            try RecordStack(storeAt: url, entities: modelEntities).close()
        case .launch:
            try LaunchQuery.makeTemplate(at: path, count: count)
        case .library:
            // As for the items: LiteRecord writes the schema, the C API the rows.
            try RecordStack(storeAt: url, entities: [Author.self, Book.self]).close()
            let db = try RawDatabase(path: path)
            try db.applyBenchmarkPragmas()
            try LibrarySchema.insertRows(authors: count, into: db, tables: libraryTables)
        }
    }
}

// MARK: Relationships

extension LiteRecordEngine: RelationshipEngine {
    private func openLibrary(_ path: String) throws -> (RecordStack, RecordContext) {
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: path), entities: [Author.self, Book.self])
        let context = stack.newContext()
        _ = try Author.count(in: context)
        return (stack, context)
    }

    /// Runs `body`, counting its statements with `recordingSQL` in a counting run.
    private func counting<T>(_ stack: RecordStack, _ context: RunContext, _ body: () throws -> T) throws -> T {
        guard context.statements.enabled else { return try body() }
        let (result, statements) = try stack.recordingSQL(body)
        context.statements.add(statements.count)
        return result
    }

    /// A fetch request prefetching `author`; the walk reads every book's author.
    func fetchBooksWithAuthors(_ context: RunContext) throws -> Checksum {
        let (stack, records) = try openLibrary(context.store)
        let checksum = try counting(stack, context) {
            context.stopwatch.start()
            let books = try records.fetch(FetchRequest<Book>(relationshipKeyPathsForPrefetching: [\.author]))
            var resolved = 0
            for book in books where book.author != nil { resolved &+= 1 }
            context.stopwatch.stop()
            var checksum = Checksum()
            for book in books {
                checksum.addBook(title: book.title, year: book.year, authorName: book.author?.name, authorBorn: book.author?.born)
            }
            guard resolved == checksum.count else { throw SQLiteFailure(code: 0, message: "\(resolved) books have an author") }
            return checksum
        }
        try stack.close()
        return checksum
    }

    /// A fetch request prefetching `books`; the walk reads every author's list.
    func walkAuthorsBooks(_ context: RunContext) throws -> Checksum {
        let (stack, records) = try openLibrary(context.store)
        let checksum = try counting(stack, context) {
            context.stopwatch.start()
            let authors = try records.fetch(FetchRequest<Author>(relationshipKeyPathsForPrefetching: [\.books]))
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
        try stack.close()
        return checksum
    }

    /// Fetches the doomed authors — inside the clock, unlike the other
    /// engines, which get their ids or records before it — then deletes them
    /// with `context.delete(_:)` and one `save()`. Their books are not
    /// loaded: the `.cascade` rule leaves them to the store, one `SELECT` of
    /// their row ids and one `DELETE … WHERE author IN (…)` for all the
    /// authors, and the change set still names every book.
    func cascadeDelete(_ context: RunContext) throws {
        let (stack, records) = try openLibrary(context.store)
        try counting(stack, context) {
            context.stopwatch.start()
            let doomed = try records.fetch(FetchRequest<Author>(predicate: #Predicate<Author> { $0.born % 2 == 0 }))
            records.delete(doomed)
            try records.save()
            context.stopwatch.stop()
        }
        try stack.close()
    }
}

// MARK: Objects built in the timed part, concurrency, memory

extension LiteRecordEngine: BuildingInsertEngine {
    /// New `@Entity` objects made from the data set's values inside the clock
    /// (the `Date` conversion included), then `insert` and one `save()`. The
    /// UUIDs are parsed from the data set's text before the clock, as for
    /// GRDB records: raw C binds that text, so parsing it would time
    /// Foundation's parser for the record engines only.
    func insertBuilt(_ rows: [ItemValues], _ context: RunContext) throws {
        let stack = try openStack(context.store)
        let records = stack.newContext()
        let uuids = rows.map { UUID(uuidString: $0.uuid) ?? UUID() }
        context.stopwatch.start()
        for (row, uuid) in zip(rows, uuids) { records.insert(Item(row, uuid: uuid)) }
        try records.save()
        context.stopwatch.stop()
        try stack.close()
    }
}

extension LiteRecordEngine: ConcurrentEngine {
    /// Readers: `stack.read { context in … }` (the stack's pool of reader
    /// connections); the writer: `stack.write { context in … }` inserting one
    /// batch of new objects per call.
    func concurrent(_ run: ConcurrentRun, _ context: RunContext) throws -> ConcurrentOutcome {
        let stack = try openStack(context.store)
        _ = try Item.count(in: stack.newContext())
        context.stopwatch.start()
        let outcome = try TaskRace.run(
            readers: ConcurrentRun.readers,
            read: { reader, index in
                let lower = run.lowerBound(reader: reader, index: index)
                return try await stack.read { records in
                    let items = try Self.itemsAged(lower...(lower + 2), sortedByNameFirst: 100, in: records)
                    return ConcurrentRun.isValid(items.map { ($0.age, $0.name) }, lower: lower)
                }
            },
            write: { batch in
                let rows = run.batches[batch]
                try await stack.write { records in
                    for row in rows { records.insert(Item(row)) }
                }
                return rows.count
            })
        context.stopwatch.stop()
        try stack.close()
        return outcome
    }
}

/// An entity whose fetch the memory workloads measure.
protocol MemoryMeasured: Entity {
    func add(to checksum: inout Checksum)
    /// Its text values: the heap strings any engine holding the row has.
    func appendTexts(to texts: inout [String])
}

extension LiteRecordEngine: MemoryEngine {
    /// `memory` and `memory-plain` fetch `Item`s, `memory-user` `UserItem`s
    /// (see `memory(of:_:observable:)`).
    func memory(_ context: RunContext, _ workload: Workload) throws -> (Checksum, [String: Double]) {
        workload == .memoryUser
            ? try memory(of: UserItem.self, context, observable: false)
            : try memory(of: Item.self, context, observable: workload == .memory)
    }

    /// Heap bytes per object of `fetch` (`findAll`), measured with
    /// glibc's `mallinfo2` before and after, then split: the object's block
    /// (`malloc_usable_size`; its `RecordState` is inside), its text values
    /// (copies made and measured the same way), what the context holds
    /// per object (freed when the context goes: identity map, snapshots), the
    /// result array's slot, and the rest. Every property of every object is
    /// read before the second measurement: what reading an object costs
    /// counts. `observable` makes the context observable, as the main
    /// context is (the `memory` workload); otherwise it stays as
    /// `stack.newContext()` makes it. The peak RSS reported
    /// (`Metric.peakResidentKiB`) is the one at that second measurement, as
    /// raw C's is after its fetch: the breakdown's own lists come after.
    private func memory<T: MemoryMeasured>(
        of type: T.Type, _ context: RunContext, observable: Bool
    ) throws -> (Checksum, [String: Double]) {
        let stack = try openStack(context.store, entities: [T.self])
        var records: RecordContext? = stack.newContext()
        records!.isObservable = observable
        _ = try T.count(in: records!)
        let before = bench_heap_in_use()
        var items: [T] = try T.findAll(in: records!)
        var checksum = Checksum()
        for item in items { item.add(to: &checksum) }
        let fetched = bench_heap_in_use()
        let peak = Machine.peakResidentKiB()
        records = nil
        let contextGone = bench_heap_in_use()
        let count = Double(max(items.count, 1))

        let objectBlock = items.first.map { bench_block_size(Unmanaged.passUnretained($0).toOpaque()) } ?? 0

        // The text values are measured last, once the objects and the stack
        // are gone: a fresh copy of each, made the way a fetched string is
        // (one native buffer of its UTF-8 bytes).
        var texts: [String] = []
        texts.reserveCapacity(items.count * 3)
        for item in items { item.appendTexts(to: &texts) }
        let resultArray = Double(MemoryLayout<T>.stride)
        let total = Double(fetched - before) / count
        let contextPart = Double(fetched - contextGone) / count
        items.removeAll()
        try stack.close()
        var copies: [String] = []
        copies.reserveCapacity(texts.count)
        let textBefore = bench_heap_in_use()
        for text in texts { copies.append(Self.copy(text)) }
        let text = Double(bench_heap_in_use() - textBefore) / count
        let rest = total - Double(objectBlock) - text - contextPart - resultArray
        return (
            checksum,
            [
                Metric.heapPerObject: total, Metric.objectBlock: Double(objectBlock),
                Metric.textValues: text,
                Metric.contextPerObject: contextPart, Metric.resultArray: resultArray, Metric.rest: rest,
                Metric.peakResidentKiB: Double(peak),
            ]
        )
    }

    /// A fresh native copy of `text`: a buffer of exactly its UTF-8 bytes.
    private static func copy(_ text: String) -> String {
        var text = text
        return text.withUTF8 { String(decoding: $0, as: UTF8.self) }
    }
}
