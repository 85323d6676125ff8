import BenchSQLite
import Foundation
import GRDB
import LiteRecord

// MARK: The launch workload
//
// An app's first answer after launch: open a store of 1,000,000 rows over a
// model of 10 entities (indexes, a relationship, a searchable attribute) and
// answer the first `findFirst(matching:)`, in a fresh process (every child
// is one). Every engine opens the same file, which LiteRecord made, and runs
// the same query: the first row (by primary key) with `age == LaunchQuery.age`,
// by the index on `age`.

@Entity
final class LaunchItem {
    var uuid: UUID
    @Attribute(.searchable) var name: String
    @Attribute(.indexed) var age: Int
    var score: Double
    var created: Date
    var email: String?
    @Relationship var owner: LaunchOwner?

    init(_ values: ItemValues) {
        uuid = UUID(uuidString: values.uuid) ?? UUID()
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

@Entity
final class LaunchOwner {
    @Attribute(.indexed) var name = ""
    @Relationship(deleteRule: .nullify, inverse: \LaunchItem.owner)
    var items: [LaunchItem] = []
    init() {}
}

/// The launch store's model: the item and its owner, and eight more
/// entities (the open workload's `e2`…`e9`, each with an index).
let launchEntities: [any Entity.Type] = [
    LaunchItem.self, LaunchOwner.self, E2.self, E3.self, E4.self, E5.self, E6.self, E7.self, E8.self, E9.self,
]

enum LaunchQuery {
    /// The age asked for: the data set's first row of that age is some way in.
    static let age = 77
    static let table = "LaunchItem"
    static let sql = "SELECT uuid, name, age, score, created, email FROM \"LaunchItem\" WHERE age = ? ORDER BY \"Z_PK\" LIMIT 1"

    /// The store every engine opens: LiteRecord writes the schema (tables,
    /// indexes, the full-text index and its triggers, the model's metadata),
    /// the C API the rows. As a LiteRecord save does, the rows go in with the
    /// search triggers' deferral flag set and are indexed at once at the end
    /// (FTS5's `'rebuild'`), which takes seconds where a row-by-row trigger
    /// takes minutes.
    static func makeTemplate(at path: String, count: Int) throws {
        try RecordStack(storeAt: URL(fileURLWithPath: path), entities: launchEntities).close()
        let db = try RawDatabase(path: path)
        try db.applyBenchmarkPragmas()
        // The flag is committed here (a save never commits it): nothing else
        // opens the template until it is cleared below.
        try db.execute("INSERT INTO \"literecord_search_deferral\" (flag) VALUES (1)")
        try SharedTemplates.insertRows(count, into: db, table: ItemTable(table: table, key: "Z_PK"))
        try db.execute("INSERT INTO \"literecord_search:\(table)\"(\"literecord_search:\(table)\") VALUES ('rebuild')")
        try db.execute("DELETE FROM \"literecord_search_deferral\"")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The reference: the first data set row of `age`.
    static func expected(count: Int) -> Checksum {
        var checksum = Checksum()
        for index in 0..<count where Dataset.row(index).age == age {
            checksum.add(Dataset.row(index))
            break
        }
        return checksum
    }
}

/// An engine that runs `launch`.
protocol LaunchEngine: BenchmarkEngine {
    func launch(_ context: RunContext) throws -> Checksum
}

extension RawCEngine: LaunchEngine {
    func launch(_ context: RunContext) throws -> Checksum {
        context.stopwatch.start()
        let db = try RawDatabase(path: context.store)
        try db.applyBenchmarkPragmas()
        let statement = try db.prepare(LaunchQuery.sql)
        statement.bind(Int64(LaunchQuery.age), at: 1)
        var found: ItemValues?
        if try statement.step() {
            found = ItemValues(
                uuid: statement.string(0), name: statement.string(1), age: Int(statement.int64(2)),
                score: statement.double(3), created: statement.double(4), email: statement.optionalString(5))
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        if let found { checksum.add(found) }
        return checksum
    }
}

/// GRDB's record of the launch store's item table.
struct LaunchItemRecord: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = LaunchQuery.table

    var uuid: UUID
    var name: String
    var age: Int
    var score: Double
    var created: Date
    var email: String?

    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .uppercaseString }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSinceReferenceDate }
}

extension GRDBRecordsEngine: LaunchEngine {
    func launch(_ context: RunContext) throws -> Checksum {
        context.stopwatch.start()
        let queue = try GRDBSupport.openQueue(context.store)
        let record = try queue.read { db in
            try LaunchItemRecord.filter(Column("age") == LaunchQuery.age).order(Column("Z_PK")).fetchOne(db)
        }
        context.stopwatch.stop()
        var checksum = Checksum()
        if let record {
            checksum.add(
                uuid: record.uuid, name: record.name, age: record.age, score: record.score, created: record.created,
                email: record.email)
        }
        return checksum
    }
}

extension LiteRecordEngine: LaunchEngine {
    func launch(_ context: RunContext) throws -> Checksum {
        let age = LaunchQuery.age
        context.stopwatch.start()
        let stack = try RecordStack(storeAt: URL(fileURLWithPath: context.store), entities: launchEntities)
        let item = try LaunchItem.findFirst(
            matching: #Predicate { $0.age == age }, sortedBy: [], in: stack.newContext())
        context.stopwatch.stop()
        var checksum = Checksum()
        item?.add(to: &checksum)
        try stack.close()
        return checksum
    }
}
