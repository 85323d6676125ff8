import Foundation
import Testing
@testable import LiteRecord

/// The behaviours of the linked SQLite that the migrator relies on, pinned
/// down so that a different SQLite build fails here first.
@Suite("Migration: SQLite assumptions")
struct MigrationAssumptionsTests {
    func withDatabase(_ body: (Connection, TemporaryStore) throws -> Void) throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        let connection = try Connection(path: store.url.path)
        defer { connection.close() }
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("CREATE TABLE t (\"Z_PK\" INTEGER PRIMARY KEY, a TEXT, b INTEGER)")
        try connection.execute("CREATE INDEX \"literecord_index:t.b\" ON t (b)")
        try connection.execute("INSERT INTO t (a, b) VALUES ('x', 1), ('y', 2)")
        try body(connection, store)
    }

    @Test func vacuumIntoTakesABoundPathAndRefusesAnExistingFile() throws {
        try withDatabase { connection, store in
            let copy = store.folder.appendingPathComponent("copy.sqlite").path
            try connection.executeOnce("VACUUM INTO ?", [.text(copy)])
            #expect(FileManager.default.fileExists(atPath: copy))
            #expect(throws: SQLiteError.self) { try connection.executeOnce("VACUUM INTO ?", [.text(copy)]) }
            try connection.execute("BEGIN")
            // Which is why the copy is taken before BEGIN.
            #expect(throws: SQLiteError.self) {
                try connection.executeOnce("VACUUM INTO ?", [.text(copy + "2")])
            }
            try connection.execute("ROLLBACK")
        }
    }

    @Test func addColumnTakesALiteralDefaultButNotATimestamp() throws {
        try withDatabase { connection, _ in
            // https://sqlite.org/lang_altertable.html#altertabaddcol
            #expect(throws: SQLiteError.self) {
                try connection.execute("ALTER TABLE t ADD COLUMN c TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP")
            }
            #expect(throws: SQLiteError.self) { try connection.execute("ALTER TABLE t ADD COLUMN c TEXT NOT NULL") }
            try connection.execute("ALTER TABLE t ADD COLUMN c TEXT NOT NULL DEFAULT 'it''s'")
            try connection.execute("ALTER TABLE t ADD COLUMN d REAL NOT NULL DEFAULT 1e-05")
            try connection.execute("ALTER TABLE t ADD COLUMN e BLOB NOT NULL DEFAULT X''")
            #expect(try connection.rows("SELECT c, d, e FROM t LIMIT 1") == [[.text("it's"), .real(1e-05), .blob(Data())]])
        }
    }

    @Test func dropColumnRefusesAnIndexedColumnAndRenameKeepsIndexNames() throws {
        try withDatabase { connection, _ in
            #expect(throws: SQLiteError.self) { try connection.execute("ALTER TABLE t DROP COLUMN b") }
            try connection.execute("ALTER TABLE t RENAME COLUMN b TO c")
            // The index follows the column but keeps its name: the migrator renames it.
            #expect(try connection.indexList("t").map(\.name) == ["literecord_index:t.b"])
            let sql = try connection.strings("SELECT sql FROM sqlite_schema WHERE type = 'index'")
            #expect(sql.count == 1 && !sql[0].contains("(b)"), "\(sql)")
        }
    }

    @Test func foreignKeysPragmaIsANoOpInsideATransaction() throws {
        try withDatabase { connection, _ in
            try connection.execute("PRAGMA foreign_keys = ON")
            try connection.execute("BEGIN")
            try connection.execute("PRAGMA foreign_keys = OFF")
            #expect(try connection.rows("PRAGMA foreign_keys") == [[.integer(1)]])
            try connection.execute("ROLLBACK")
        }
    }

    @Test func aRolledBackTransactionLeavesTheMainFileByteIdentical() throws {
        try withDatabase { connection, store in
            try connection.execute(
                """
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000)
                INSERT INTO t (a, b) SELECT hex(randomblob(40)), x FROM n
                """)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let before = try store.bytes()
            try connection.execute("BEGIN IMMEDIATE")
            // Enough writes to spill pages into the WAL before the rollback.
            try connection.execute("CREATE TABLE u AS SELECT * FROM t")
            try connection.execute("UPDATE t SET a = a || a")
            try connection.execute("ROLLBACK")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(try store.bytes() == before)
        }
    }
}
