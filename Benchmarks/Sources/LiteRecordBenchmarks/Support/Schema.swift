/// The SQL every engine except LiteRecord shares: LiteRecord creates its own
/// tables from its model (same columns, plus its `Z_PK` key and metadata
/// table), which is part of what is measured.
enum SharedSchema {
    static let createItem = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, name TEXT NOT NULL, age INTEGER NOT NULL, \
        score REAL NOT NULL, created REAL NOT NULL, email TEXT NULL);
        CREATE INDEX item_age ON item(age);
        """
    static let insert = "INSERT INTO item (uuid, name, age, score, created, email) VALUES (?, ?, ?, ?, ?, ?)"
    static let selectAll = "SELECT id, uuid, name, age, score, created, email FROM item"
    static let query = "SELECT id, uuid, name, age, score, created, email FROM item WHERE age BETWEEN ? AND ? ORDER BY name LIMIT 100"
    static let updateScore = "UPDATE item SET score = ? WHERE id = ?"
    static let delete = "DELETE FROM item WHERE id = ?"

    /// The ten tables of the "open an existing store" workload: `e0` … `e9`.
    static let modelEntityCount = 10

    static func createModelTable(_ index: Int) -> String {
        """
        CREATE TABLE e\(index)(id INTEGER PRIMARY KEY, title TEXT NOT NULL, count INTEGER NOT NULL, amount REAL NOT NULL, \
        stamp REAL NOT NULL, note TEXT NULL, flag INTEGER NOT NULL);
        CREATE INDEX e\(index)_count ON e\(index)(count);
        """
    }
}

/// Where an engine family keeps the items: the table and its key column.
struct ItemTable: Sendable {
    let table: String
    let key: String

    static let shared = ItemTable(table: "item", key: "id")
}

/// A checksum of the stored items, read straight from the file with the C API:
/// how the harness checks what the write workloads left behind.
enum StoreVerifier {
    static func checksum(path: String, table: ItemTable) throws -> Checksum {
        let db = try RawDatabase(path: path)
        let statement = try db.prepare("SELECT uuid, name, age, score, created, email FROM \"\(table.table)\"")
        var checksum = Checksum()
        while try statement.step() {
            var hasher = RowHasher()
            hasher.add(bytes: statement.bytes(0))
            hasher.add(bytes: statement.bytes(1))
            hasher.add(UInt64(bitPattern: statement.int64(2)))
            hasher.add(statement.double(3).bitPattern)
            hasher.add(statement.double(4).bitPattern)
            if statement.isNull(5) { hasher.addNull() } else { hasher.add(bytes: statement.bytes(5)) }
            checksum.addRowHash(hasher.value)
        }
        return checksum
    }
}
