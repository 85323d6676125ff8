import Foundation
@testable import LiteRecord

/// The seeded store every sequence of ModelBasedTests starts from, made
/// once: a stack with the seed saved (`ModelRunner.seed`), its rows kept as
/// they are, and the model's view of them. ``restore()`` puts every table
/// back, the record-id marks included, so a sequence starts from exactly what
/// a fresh stack with the seed saved holds — at a fraction of the cost of
/// building one (the model, the schema, the seed save: most of a sequence's
/// time when each made its own).
final class ModelFixture {
    let stack: RecordStack
    /// The seeded store as the model sees it.
    let seeded: MStore
    /// Every table LiteRecord writes, with its rows as seeded.
    private let tables: [(name: String, rows: [[SQLValue]])]
    /// Whether the stack records history (Docs/History.md).
    let history: Bool
    /// `stack.changes`, subscribed once: every commit's change set, read by
    /// the runner after each step (`ModelRunner.checkEvents()`).
    var events: AsyncStream<ChangeSet>.AsyncIterator
    /// The row versions as seeded.
    let seededVersions: [MID: Int64]

    init(history: Bool = false) throws {
        self.history = history
        stack = history ? try RecordStack(inMemoryWith: modelTestEntities, history: .enabled) : try RecordStack(inMemoryWith: modelTestEntities)
        events = stack.changes.makeAsyncIterator()
        try ModelRunner.seed(stack)
        seededVersions = try ModelAccess.readVersions(stack)
        let (rows, joins) = try ModelAccess.readStore(stack)
        seeded = MStore(rows: rows, joins: joins, issued: Set(rows.keys))
        tables = try stack.store.rawWrite("reading the seeded store") { connection in
            // The full-text index (its FTS5 table and that table's own) is
            // left to its triggers, which follow the rows put back.
            let names = try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .compactMap { row -> String? in if case .text(let name) = row.first { name } else { nil } }
                .filter { !$0.hasPrefix(EntityDescription.searchTableName(table: "")) }
            return try names.map { name in (name, try connection.rows("SELECT * FROM \(SQLIdentifier.quote(name))")) }
        }
    }

    deinit { try? stack.close() }

    /// Puts every table back as seeded, in one transaction (foreign keys
    /// checked at its commit).
    func restore() throws {
        try stack.store.rawWrite("restoring the seeded store") { connection in
            try connection.execute("PRAGMA defer_foreign_keys = ON")
            // Every table emptied before any is filled: a join table's rows go
            // with their records (ON DELETE CASCADE).
            for (name, _) in tables { try connection.execute("DELETE FROM \(SQLIdentifier.quote(name))") }
            for (name, rows) in tables {
                guard let width = rows.first?.count else { continue }
                let sql = "INSERT INTO \(SQLIdentifier.quote(name)) VALUES (\(Array(repeating: "?", count: width).joined(separator: ", ")))"
                for row in rows { try connection.execute(sql, row) }
            }
        }
    }
}
