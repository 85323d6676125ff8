public import Foundation

/// What a store file holds, read without changing it: what `literecord
/// inspect` prints.
///
/// ```swift
/// let report = try StoreInspection(storeAt: url)
/// for table in report.tables { print(table.name, table.rowCount) }
/// ```
public struct StoreInspection: Sendable {
    /// One column of a table, as `PRAGMA table_info` reports it.
    public struct Column: Sendable {
        /// The column's name.
        public let name: String
        /// The declared column type, such as `INTEGER` or `TEXT`; empty when none was declared.
        public let type: String
        /// Whether the column accepts NULL (it has no `NOT NULL` constraint).
        public let isNullable: Bool
        /// Whether the column is part of the table's primary key.
        public let isPrimaryKey: Bool
    }

    /// One table of the store other than LiteRecord's metadata table.
    public struct Table: Sendable {
        /// The table's name.
        public let name: String
        /// The table's columns, in declaration order.
        public let columns: [Column]
        /// How many rows the table holds.
        public let rowCount: Int
        /// The names of the table's indexes, sorted, including the ones SQLite
        /// creates for `UNIQUE` constraints.
        public let indexes: [String]
    }

    /// A full-text index LiteRecord keeps for an entity with `.searchable`
    /// attributes: an FTS5 table over the entity's table, and the triggers
    /// that keep it exact.
    ///
    /// ```swift
    /// for index in try StoreInspection(storeAt: url).searchIndexes {
    ///     print(index.name, index.entity, index.columns)   // literecord_search:Article Article ["title", "body"]
    /// }
    /// ```
    public struct SearchIndex: Sendable {
        /// The FTS5 table's name, `literecord_search:<Entity>`.
        public let name: String
        /// The entity (table) whose text it indexes.
        public let entity: String
        /// The indexed columns, in index order.
        public let columns: [String]
        /// The names of the triggers on the entity's table that keep the
        /// index exact; three (insert, delete, update) in a healthy store.
        public let triggers: [String]
    }

    /// The store file that was inspected.
    public let url: URL
    /// The size of the main file plus its `-wal`, in bytes.
    public let sizeInBytes: Int64
    /// The journal mode the file is in, as `PRAGMA journal_mode` reports it (`wal` for a LiteRecord store).
    public let journalMode: String
    /// The version of the SQLite library that read the file, such as `3.40.1`.
    public let sqliteVersion: String
    /// The fingerprint of the model that last wrote the store, when LiteRecord
    /// wrote it.
    public let modelFingerprint: String?
    /// The entities of that model, by name.
    public let entityNames: [String]
    /// When LiteRecord created the store, as an ISO 8601 timestamp; `nil` when
    /// the file carries no LiteRecord metadata.
    public let createdAt: String?
    /// Custom migration steps that have run.
    public let migrationSteps: [String]
    /// The store's tables, LiteRecord's metadata table and full-text indexes
    /// (see ``searchIndexes``) excepted.
    public let tables: [Table]
    /// The full-text indexes of entities with `.searchable` attributes,
    /// sorted by name. `literecord check` verifies their contents.
    public let searchIndexes: [SearchIndex]
    /// Copies of the store taken before migrations, next to it and newest
    /// first: those kept after a migration that removed tables or columns
    /// (`<store>.pre-migration-<UTC timestamp>`, see
    /// ``MigrationReport/keptCopyURL``) and any left by a failed or
    /// interrupted migration (`<store>.pre-migration-<model fingerprint>`).
    ///
    /// ```swift
    /// for copy in try StoreInspection(storeAt: url).preMigrationCopies { print(copy.path) }
    /// ```
    public let preMigrationCopies: [URL]
    /// The entities of the model that last wrote the store, with their
    /// attributes, as the model description kept in the store records them;
    /// empty when LiteRecord did not write the file.
    public let entities: [StoredEntity]
    /// Where the file's tables, columns and LiteRecord's indexes differ from
    /// that model description, one line each, e.g. `Person: column 'nick' is
    /// not in the model`; empty when they match (or for other databases).
    public let schemaDifferences: [String]
    /// The database page size in bytes (`PRAGMA page_size`).
    public let pageSize: Int
    /// The number of pages in the main file (`PRAGMA page_count`).
    public let pageCount: Int

    /// For a replica (``init(replicaAt:asOf:vfsExtension:snapshotTimeout:)``): the commit
    /// the report describes; `nil` for a store file.
    public let replicaPosition: ReplicaPosition?

    /// What the store's persistent history holds (Docs/History.md).
    public struct History: Sendable {
        /// The transactions kept.
        public let transactionCount: Int
        /// The oldest transaction kept; `nil` when none is.
        public let oldest: HistoryToken?
        /// The newest transaction kept; `nil` when none is.
        public let newest: HistoryToken?
        /// The last transaction deleted (by `deleteHistory(before:)` or the
        /// retention); `nil` when none was.
        public let purgedThrough: HistoryToken?
        /// The bytes of the kept transactions' change lists.
        public let changeBytes: Int64
    }

    /// The store's persistent history; `nil` when it keeps none.
    public let history: History?

    /// Whether the file's tables match the model description the store
    /// keeps; `nil` when LiteRecord did not write the file.
    public var tablesMatchModel: Bool? { isLiteRecordStore ? schemaDifferences.isEmpty : nil }

    /// Whether the file carries LiteRecord's metadata.
    public var isLiteRecordStore: Bool { modelFingerprint != nil }

    /// Reads the store at `url` read-only.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.storeUnavailable` when there is
    ///   no such file, `.corruptStore` when it is not a SQLite database.
    public init(storeAt url: URL) throws {
        let connection = try StoreInspection.openReadOnly(url)
        defer { connection.close() }
        let fileManager = FileManager.default
        func size(_ path: String) -> Int64 {
            ((try? fileManager.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        let facts = try withErrorContext("inspecting \(url.path)") { () -> Facts in
            try Facts(connection)
        }
        // Opened immutable (nothing else had it open), SQLite reports the mode
        // it read with, not the file's: the header's write version 2 means WAL
        // (https://sqlite.org/fileformat2.html#file_format_version_numbers).
        self.init(
            url: url, facts: facts, sizeInBytes: size(url.path) + size(url.path + "-wal"),
            journalMode: StoreInspection.headerSaysWAL(connection) ? "wal" : facts.journalMode,
            preMigrationCopies: PreMigrationCopies.all(of: url), replicaPosition: nil)
    }

    /// The report of what `facts` says, read from the file or replica at
    /// `url` (``init(storeAt:)``, ``init(replicaAt:asOf:vfsExtension:snapshotTimeout:)``).
    init(
        url: URL, facts: Facts, sizeInBytes: Int64, journalMode: String, preMigrationCopies: [URL],
        replicaPosition: ReplicaPosition?
    ) {
        self.url = url
        self.sizeInBytes = sizeInBytes
        self.journalMode = journalMode
        self.preMigrationCopies = preMigrationCopies
        self.replicaPosition = replicaPosition
        history = facts.history
        sqliteVersion = Connection.sqliteVersion
        modelFingerprint = facts.fingerprint
        entityNames = facts.entityNames
        createdAt = facts.createdAt
        migrationSteps = facts.steps
        tables = facts.tables
        searchIndexes = facts.searchIndexes
        entities = StoreInspection.storedEntities(facts.schema)
        pageSize = facts.pageSize
        pageCount = facts.pageCount
        if let schema = facts.schema {
            schemaDifferences =
                StoreInspection.differences(schema, tables: facts.tables)
                + StoreInspection.searchDifferences(schema, indexes: facts.searchIndexes)
        } else if facts.fingerprint != nil {
            schemaDifferences = ["the model description kept in the store cannot be read"]
        } else {
            schemaDifferences = []
        }
    }

    /// What the store's file (or a replica) says about itself, read on one
    /// connection.
    struct Facts {
        var journalMode = ""
        var fingerprint: String?
        var entityNames: [String] = []
        var createdAt: String?
        var steps: [String] = []
        var tables: [Table] = []
        var searchIndexes: [SearchIndex] = []
        var schema: ModelSchema?
        var pageSize = 0
        var pageCount = 0
        var history: History?

        init(_ connection: Connection) throws {
            if case .text(let mode)? = try connection.scalar("PRAGMA journal_mode") { journalMode = mode }
            if case .integer(let size)? = try connection.scalar("PRAGMA page_size") { pageSize = Int(size) }
            if case .integer(let count)? = try connection.scalar("PRAGMA page_count") { pageCount = Int(count) }
            let names = try connection.tableNames()
            if names.contains(Model.metadataTable) {
                fingerprint = try connection.metadata(MetadataKey.fingerprint)
                createdAt = try connection.metadata(MetadataKey.createdAt)
                if let text = try connection.metadata(MetadataKey.schema), let schema = try? ModelSchema.decode(text) {
                    entityNames = schema.entities.map(\.name)
                    self.schema = schema
                }
                let key = SQLIdentifier(bare: "key")
                let select = SelectStatement([key], from: SQLIdentifier(Model.metadataTable), where: WhereClause(sql: "key LIKE ?"), orderBy: "key")
                steps = try connection.rows(
                    select.sql,
                    [.text(MetadataKey.migrationStepPrefix + "%")]
                ).compactMap { row in
                    if case .text(let key) = row.first { String(key.dropFirst(MetadataKey.migrationStepPrefix.count)) } else { nil }
                }
            }
            let searchObjects = try connection.searchIndexObjects()
            for object in searchObjects where object.type != "trigger" {
                let columns = try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(object.name)]).map { $0[0].textValue }
                let entity = String(object.name.dropFirst(EntityDescription.searchTableName(table: "").count))
                let triggers = searchObjects.filter { $0.type == "trigger" && $0.name.hasPrefix(object.name + ":") }.map(\.name)
                searchIndexes.append(SearchIndex(name: object.name, entity: entity, columns: columns, triggers: triggers))
            }
            // The FTS5 table and its shadow tables are the index, and the
            // deferral flag and the record-id marks belong to the saves, not
            // tables of the model.
            let searchPrefix = EntityDescription.searchTableName(table: "")
            let own: Set = [Model.metadataTable, Model.searchDeferralTable, Model.recordIDTable, HistoryLog.table]
            if names.contains(HistoryLog.table), let storeID = try connection.metadata(HistoryLog.storeIDKey) {
                history = try History(connection, storeID: storeID)
            }
            for name in names where !own.contains(name) && !name.hasPrefix(searchPrefix) {
                let quoted = SQLIdentifier.quote(name)
                let columns = try connection.rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(name)])
                    .map { row -> Column in
                        Column(
                            name: row[0].textValue, type: row[1].textValue,
                            isNullable: row[2] == .integer(0), isPrimaryKey: row[3] != .integer(0))
                    }
                let indexes = try connection.rows("SELECT name FROM pragma_index_list(?)", [.text(name)]).map { $0[0].textValue }
                var count = 0
                if case .integer(let value)? = try connection.scalar("SELECT count(*) FROM \(quoted)") { count = Int(value) }
                tables.append(Table(name: name, columns: columns, rowCount: count, indexes: indexes.sorted()))
            }
        }
    }

    /// Whether the file's header says WAL, read through SQLite's own handle
    /// on the file: a descriptor of this code's own on the store file would
    /// release, when closed, the locks this process's other connections hold
    /// on it (an open stack's included).
    static func headerSaysWAL(_ connection: Connection) -> Bool {
        guard let header = connection.mainFileHeader(count: 20) else { return false }
        return header[18] == 2
    }

    /// Opens `url` for reading without leaving anything beside it (see
    /// ``Store/readingOptions(for:)``).
    static func openReadOnly(_ url: URL) throws(LiteRecordError) -> Connection {
        if let error = Store.missingFileError(url.path) { throw error }
        do {
            let connection = try Connection(path: url.path, options: Store.readingOptions(for: url.path))
            // Opening is lazy; touching the schema tells a database from other bytes.
            _ = try connection.scalar("SELECT count(*) FROM sqlite_schema")
            return connection
        } catch {
            throw LiteRecordError.wrap(error, "opening \(url.path)")
        }
    }
}

/// The outcome of `PRAGMA integrity_check`, `PRAGMA foreign_key_check` and
/// FTS5's `integrity-check` of each full-text index: what `literecord check`
/// prints.
///
/// ```swift
/// let result = try StoreCheck(storeAt: url)
/// if !result.isHealthy { print(result.problems) }
/// ```
public struct StoreCheck: Sendable {
    /// Every problem found; empty for a healthy store.
    public let problems: [String]
    /// Whether both checks found nothing.
    public var isHealthy: Bool { problems.isEmpty }

    /// Checks the store at `url` read-only.
    ///
    /// - Throws: ``LiteRecordError`` when the file cannot be opened at all
    ///   (missing: `.storeUnavailable`; not a database: `.corruptStore`).
    public init(storeAt url: URL) throws {
        let connection = try StoreInspection.openReadOnly(url)
        defer { connection.close() }
        var problems: [String] = []
        do {
            let integrity = try connection.rows("PRAGMA integrity_check").map { $0[0].textValue }
            problems += integrity.filter { $0 != "ok" }
            problems += try connection.rows("PRAGMA foreign_key_check").map { row in
                "foreign key violation in \(row[0].textValue) row \(row[1].textValue) referring to \(row[2].textValue)"
            }
        } catch let error as SQLiteError where error.isCorrupt {
            problems.append(error.message)
        } catch {
            throw LiteRecordError.wrap(error, "checking \(url.path)")
        }
        if problems.isEmpty {
            do {
                problems += try Self.searchIndexProblems(connection)
            } catch {
                throw LiteRecordError.wrap(error, "checking the full-text indexes of \(url.path)")
            }
        }
        self.problems = problems
    }

    /// FTS5's `integrity-check` of every full-text index: whether it holds
    /// exactly the words of its table's rows. The command needs a writable
    /// database although it writes nothing, and the store is opened
    /// read-only, so it runs on a copy in a temporary file (SQLite's backup
    /// API), removed afterwards; the store itself is never written.
    static func searchIndexProblems(_ connection: Connection) throws -> [String] {
        let indexes = try connection.searchIndexObjects().filter { $0.type != "trigger" }
        guard !indexes.isEmpty else { return [] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("literecord-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try Connection(path: folder.appendingPathComponent("copy.sqlite").path)
        defer { copy.close() }
        let backup = try Backup(from: connection, to: copy)
        while try !backup.step(pages: -1) {}
        try backup.finish()
        var problems: [String] = []
        for index in indexes {
            if let problem = try copy.searchIndexProblem(index.name) { problems.append(problem) }
        }
        return problems
    }
}

extension SQLValue {
    /// The value as text for reports.
    var textValue: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob(let data): "<\(data.count) bytes>"
        }
    }
}

extension StoreInspection.History {
    init(_ connection: Connection, storeID: String) throws {
        let summary = SelectStatement(
            ["count(*)", "min(token)", "max(token)", "coalesce(sum(length(changes)), 0)"], from: SQLIdentifier(HistoryLog.table).quoted)
        let row = try connection.rows(summary.sql)[0]
        func token(_ value: SQLValue?) -> HistoryToken? {
            value?.integerValue.map { HistoryToken(transactionNumber: $0, storeID: storeID) }
        }
        transactionCount = Int(row[0].integerValue ?? 0)
        oldest = token(row[1])
        newest = token(row[2])
        changeBytes = row[3].integerValue ?? 0
        purgedThrough = token(try connection.metadata(HistoryLog.purgedThroughKey).flatMap { Int64($0) }.map { .integer($0) })
    }
}
