/// How a save deletes rows by the hundred — its own deletions in batches
/// (``SaveTransaction/deleteBatchSize``), and the rows its deletions left to
/// the store — with their row ids bound as parameters:
/// `DELETE … WHERE "Z_OPT" = ? AND "Z_PK" IN (?, ?, …)`, in chunks.
///
/// The ids used to go as one JSON array that `json_each` read back, which
/// cost writing the text and SQLite's parsing it; a temporary table of ids
/// costs a statement per id. Bound parameters cost neither (the `delete`
/// workload's instructions, Docs/Performance.md). A list length is a
/// statement of its own to prepare and keep, so a chunk takes the shortest
/// of a few ``lengths`` that holds it, the parameters past its ids left
/// NULL: `"Z_PK" IN (…, NULL)` holds for no row beyond the ids.
struct RowIDListDeletes {
    /// The list lengths statements are prepared for; the last is the most
    /// ids one statement takes (far below SQLite's 32,766 parameters).
    static let lengths = [1, 2, 4, 8, 16, 32, 64, 128, 256, 500]
    static var chunkSize: Int { lengths[lengths.count - 1] }

    /// The statements used so far, so that a save builds each text once;
    /// by table, the foreign-key column the list names (empty for the row
    /// ids) and the list length. Keyed by `String`, whose dictionary the
    /// connection's statement cache has instantiated already: a key type of
    /// this file cost the first save about half a million instructions in
    /// the Swift runtime's conformance search for its `Hashable`.
    private var statements: [String: Statement] = [:]

    /// Deletes the rows of `entity` among `ids` (any order, repeats
    /// allowed) that are at `version`, and returns how many it deleted.
    mutating func delete(_ ids: [Int64], at version: Int64, of entity: EntityDescription, on connection: Connection) throws -> Int {
        try delete(ids, version: version, of: entity, column: nil, on: connection)
    }

    /// Deletes the rows of `entity` whose foreign key `column` names one of
    /// `owners`, whatever their version, and returns how many it deleted:
    /// SQLite walks the column's index instead of looking each row id up
    /// (the store-side cascade's fast path, ``StoreStamp``).
    mutating func delete(naming owners: [Int64], in column: String, of entity: EntityDescription, on connection: Connection) throws -> Int {
        try delete(owners, version: nil, of: entity, column: column, on: connection)
    }

    private mutating func delete(
        _ ids: [Int64], version: Int64?, of entity: EntityDescription, column: String?, on connection: Connection
    ) throws -> Int {
        var deleted = 0
        var start = 0
        let first: Int32 = version == nil ? 1 : 2
        while start < ids.count {
            let count = min(ids.count - start, Self.chunkSize)
            let length = Self.lengths.first { $0 >= count } ?? Self.chunkSize
            let statement = try self.statement(for: entity, column: column, length: length, on: connection)
            if count < length {
                // The parameters past the ids must be NULL, not an earlier chunk's ids.
                statement.reset()
            } else {
                statement.rewind()
            }
            if let version { try statement.bind(.integer(version), at: 1) }
            for offset in 0..<count {
                try statement.bind(.integer(ids[start + offset]), at: Int32(offset) + first)
            }
            try statement.run()
            deleted += connection.changes
            start += count
        }
        return deleted
    }

    private mutating func statement(
        for entity: EntityDescription, column: String?, length: Int, on connection: Connection
    ) throws -> Statement {
        // A name holds no NUL, so the three parts stay apart.
        let key = "\(entity.name)\u{0}\(column ?? "")\u{0}\(length)"
        if let statement = statements[key] { return statement }
        let sql =
            column.map { DeleteStatement(from: entity.table, where: .column(SQLIdentifier($0), inParameters: length)).sql }
            ?? entity.batchDeleteSQL(rowIDs: length)
        let statement = try connection.cachedStatement(sql)
        statements[key] = statement
        return statement
    }
}
