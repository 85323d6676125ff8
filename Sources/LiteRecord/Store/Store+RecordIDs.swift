/// Record ids that never come back.
///
/// Optimistic locking writes `WHERE "Z_PK" = ? AND "Z_OPT" = ?`, so it holds
/// only if a record id and a version never name two different rows
/// (Docs/Internals/Invariants.md, "Record ids are never reused"). SQLite gives a new row one more than the largest row id in
/// the table unless the insert names one (https://sqlite.org/autoinc.html):
/// deleting the highest row would hand its id to the next insert, and an
/// object still holding the deleted record — in another context, stack or
/// process — would then save its edit into the newcomer's row.
///
/// `AUTOINCREMENT` prevents that at a price on every row: SQLite reads and
/// writes `sqlite_sequence` once per `INSERT` statement, which LiteRecord runs
/// once per object (22 VM steps per inserted row become 41; over the 6-column
/// row of the insert benchmark, about 60% more SQLite time per row). So
/// LiteRecord does what Core Data does with its `Z_PRIMARYKEY` table: its own
/// table (``Model/recordIDTable``) keeps, per entity table, the highest id it
/// ever handed out. A write transaction reads it once per entity table it
/// inserts into, makes sure each new row gets one past the larger of the mark
/// and the table's highest row (``RecordIDAllocator``), and writes the mark
/// back once, inside the same transaction.
///
/// What keeps the guarantee:
/// - The next id is one past the larger of the mark and the table's highest
///   row, read under the write lock: every process and stack agrees.
/// - `deleteAll`, `truncateAll`, cascades and `VACUUM` never touch the mark
///   (`VACUUM` keeps `INTEGER PRIMARY KEY` values,
///   https://sqlite.org/lang_vacuum.html).
/// - A migration's table rebuild copies the ids and leaves the mark alone; a
///   renamed entity's mark moves with its table
///   (``Connection/moveRecordIDMark(from:to:)``); a removed entity's mark stays,
///   so an entity added later under its name starts above it.
/// - A store written before the mark existed gains the table when it is opened
///   for writing (store format 4), each table marked at its highest row.
///
/// Rows inserted by SQL outside LiteRecord's writes (a custom migration step's
/// own `INSERT`) take SQLite's id, which the mark does not cover.
extension Model {
    /// `entity` (a table name) → `high`, the highest record id handed out.
    static let recordIDTable = "literecord_record_ids"
}

extension EntityDescription {
    /// The entity's mark and its highest row (`max(rowid)` is one b-tree
    /// step, https://sqlite.org/optoverview.html#minmax), 0 for none.
    var lastRecordIDSQL: String {
        let mark = SelectStatement([RecordIDMarks.high], from: RecordIDMarks.table, where: .equals(RecordIDMarks.entity))
        let highest = SelectStatement(["max(\(SQLIdentifier.rowID))"], from: quotedTable)
        return "SELECT coalesce((\(mark)), 0), coalesce((\(highest)), 0)"
    }
}

/// Hands out the record ids of one write transaction's new rows (see the
/// comment on ``Model/recordIDTable``). Used inside the transaction only.
///
/// The next id is always one past the larger of the mark and the table's
/// highest row. While the highest row holds the last id handed out (the
/// usual case: nothing deleted the top row since), SQLite's own choice for
/// an insert that names no id is exactly that — one past the highest row
/// (https://sqlite.org/autoinc.html) — and costs no look-up, where a named
/// id makes SQLite seek it out to check it is free (`OP_NotExists`, some
/// 400 instructions a row). So the allocator names an id only for the first
/// row after the top was deleted (after which the new row is the top), and
/// otherwise lets SQLite pick it, reading it back: the ids are the same
/// either way. `RecordIDReuseTests` runs one workload both ways and compares
/// every id (``Store/namesEveryRecordID`` forces the named path).
struct RecordIDAllocator {
    /// Where one table's ids stand, used by one run of inserts into it and
    /// handed back with ``close(_:)``.
    struct Cursor {
        fileprivate let slot: Int
        fileprivate var last: Int64
        fileprivate var topIsLast: Bool
        fileprivate let namesEvery: Bool

        /// The id to bind for the next row, or `nil` to let SQLite pick it:
        /// when that gives the same id (see above), and once a row holds the
        /// largest id there is (SQLite then picks an unused id at random,
        /// https://sqlite.org/autoinc.html, and that table alone may see an
        /// id again). Call ``took(_:)`` with the row's id after the insert.
        @inline(__always)
        mutating func next() -> Int64? {
            guard namesEvery || !topIsLast else { return nil }
            let (id, overflow) = last.addingReportingOverflow(1)
            return overflow ? nil : id
        }

        /// Records the id the new row got: the table's highest row is now
        /// the last id handed out.
        @inline(__always)
        mutating func took(_ rowID: Int64) {
            if rowID > last { last = rowID }
            topIsLast = rowID == last
        }
    }

    private var tables: [(table: String, last: Int64, topIsLast: Bool)] = []
    /// Whether every id is named (the plain path), for the test that
    /// compares both.
    private let namesEvery: Bool

    init(namingEvery: Bool = false) {
        namesEvery = namingEvery
    }

    /// Starts (or goes on) handing out ids for `entity`'s table, reading its
    /// mark and highest row once per transaction.
    mutating func open(_ entity: EntityDescription, on connection: Connection) throws -> Cursor {
        if let slot = tables.firstIndex(where: { $0.table == entity.tableName }) {
            return Cursor(slot: slot, last: tables[slot].last, topIsLast: tables[slot].topIsLast, namesEvery: namesEvery)
        }
        let statement = try connection.cachedStatement(entity.lastRecordIDSQL)
        defer { statement.reset() }
        try statement.bind(.text(entity.tableName), at: 1)
        var (mark, top): (Int64, Int64) = (0, 0)
        if try statement.step() { (mark, top) = (statement.int64(at: 0), statement.int64(at: 1)) }
        tables.append((entity.tableName, max(mark, top), top >= mark))
        return Cursor(slot: tables.count - 1, last: max(mark, top), topIsLast: top >= mark, namesEvery: namesEvery)
    }

    /// Takes back a cursor after its run of inserts.
    mutating func close(_ cursor: Cursor) {
        tables[cursor.slot].last = cursor.last
        tables[cursor.slot].topIsLast = cursor.topIsLast
    }

    /// Writes each table's mark: call after the inserts, in their transaction.
    func record(on connection: Connection) throws {
        guard !tables.isEmpty else { return }
        let insert = InsertStatement(into: RecordIDMarks.table, columns: [RecordIDMarks.entity, RecordIDMarks.high])
        let statement = try connection.cachedStatement(insert.onConflict(RecordIDMarks.entity, doUpdate: [RecordIDMarks.raise]).sql)
        defer { statement.reset() }
        for (table, last, _) in tables {
            statement.rewind()
            try statement.bind(.text(table), at: 1)
            try statement.bind(.integer(last), at: 2)
            try statement.run()
        }
    }
}

extension Connection {
    /// Creates ``Model/recordIDTable`` when the store lacks it.
    func createRecordIDTable() throws {
        try execute(
            "CREATE TABLE IF NOT EXISTS \(RecordIDMarks.table) "
                + "(entity TEXT PRIMARY KEY NOT NULL, high INTEGER NOT NULL) WITHOUT ROWID")
    }

    /// Creates ``Model/recordIDTable`` in a store written before it existed,
    /// each of `tables` marked at its highest row: a row deleted after the
    /// upgrade must not give its id away.
    func createRecordIDTable(markingHighestRowsOf tables: [String]) throws {
        try createRecordIDTable()
        let existing = Set(try tableNames())
        for table in tables where existing.contains(table) {
            // `WHERE true` keeps SQLite from reading ON CONFLICT as a join's ON
            // (https://sqlite.org/lang_upsert.html#parsing_ambiguity).
            let highest = SelectStatement(
                ["?", "coalesce(max(\(SQLIdentifier.rowID)), 0)"], from: SQLIdentifier.quote(table), where: WhereClause(sql: "true"))
            let insert = InsertStatement(into: RecordIDMarks.table, columns: [RecordIDMarks.entity, RecordIDMarks.high], select: highest.sql)
            try executeOnce(insert.onConflict(RecordIDMarks.entity, doUpdate: [RecordIDMarks.raise]).sql, [.text(table)])
        }
    }

    /// Whether the store has ``Model/recordIDTable``.
    func hasRecordIDTable() throws -> Bool {
        try scalar("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(Model.recordIDTable)]) != nil
    }

    /// Gives a renamed table the mark of its old name (a migration's
    /// `ALTER TABLE … RENAME TO`), keeping the larger one if the new name
    /// already had one (an entity removed earlier).
    func moveRecordIDMark(from old: String, to new: String) throws {
        let (table, entity, high) = (RecordIDMarks.table, RecordIDMarks.entity, RecordIDMarks.high)
        let previous = SelectStatement(["?", high.quoted], from: table.quoted, where: .equals(entity))
        let insert = InsertStatement(into: table, columns: [entity, high], select: previous.sql)
        try executeOnce(insert.onConflict(entity, doUpdate: [RecordIDMarks.raise]).sql, [.text(new), .text(old)])
        try executeOnce(DeleteStatement(from: table, where: .equals(entity)).sql, [.text(old)])
    }
}

/// ``Model/recordIDTable`` and its columns, as its statements name them.
enum RecordIDMarks {
    static let table = SQLIdentifier(Model.recordIDTable)
    static let entity = SQLIdentifier(bare: "entity")
    static let high = SQLIdentifier(bare: "high")

    /// `high = max(high, excluded.high)`: a mark only ever rises.
    static let raise = Assignment.expression(high, "max(high, excluded.high)")
}
