import Foundation

extension Migrator {
    /// Everything inside the migration transaction, in an order that lets
    /// custom steps see the new tables, columns and join tables while the
    /// removed ones (join tables included) are still readable, and that
    /// creates indexes last, so that a step can remove duplicates before a
    /// unique index is built.
    func apply(_ work: Work, _ report: inout MigrationReport) throws {
        try reshapeForSteps(work, &report)
        try runCustomSteps(work.steps, &report)
        try finishTables(work, &report)
        try addMissingIndexes(&report)
        try performing("checking foreign keys") {
            if let violation = try connection.rows("PRAGMA foreign_key_check").first {
                throw LiteRecordError(.migrationFailed, "the migrated store violates a foreign key (\(violation.map(\.description).joined(separator: ", ")))")
            }
        }
        if work.rewritesStoredValues { try expireHistoryTokens(&report) }
        try performing("recording the new model") { try connection.writeModelMetadata(to.schema) }
        log("recorded model \(to.fingerprint)", &report)
    }

    /// Before the custom steps: row versions, then drops, renames, creations
    /// and each table's ``EntityMigration/first`` transform, so that the steps
    /// see the new tables, columns and join tables.
    private func reshapeForSteps(_ work: Work, _ report: inout MigrationReport) throws {
        // A store written before row versions gets them first, so that a
        // rebuilt table can copy them like any other column.
        let versioned = try performing("adding row versions") {
            try connection.upgradeStoreFormat(tables: from.entities.map(\.name))
        }
        if !versioned.isEmpty { log("added row versions to \(versioned.joined(separator: ", "))", &report) }
        // Full-text indexes whose table or columns change go before anything
        // else: their triggers name the columns, which would stop a rename,
        // a DROP COLUMN or a rebuild. They are built again at the end.
        try dropChangingSearchIndexes(work, &report)
        // Indexes the new model does not want (including those named after an
        // old table or column name) go first, so that no rename or DROP COLUMN
        // trips over them.
        for entity in work.entities {
            try dropUnwantedIndexes(on: entity.storedTable, keeping: entity.entity, &report)
        }
        if work.steps.isEmpty {
            try dropTables(work.dropped, &report)
        }
        for rename in work.renamed {
            try renameTable(rename, &report)
        }
        try renameEntitiesInHistory(work.renamed)
        for entity in work.created {
            try performing("creating table \(entity.name)") { try connection.executeOnce(entity.createTableSQL) }
            report.note(\.createdTables, entity.name)
            log("created table \(entity.name)", &report)
        }
        for entity in work.entities {
            try transform(entity.first, &report)
        }
        // After the entity tables they reference exist under their new names.
        try createMissingJoinTables(work, &report)
        try fillLinks(work.linkFills, &report)
        try fillPerRowDefaults(work, &report)
    }

    /// Runs the plan's pending custom steps in order, each recorded as run.
    private func runCustomSteps(_ steps: [MigrationPlan.Step], _ report: inout MigrationReport) throws {
        for step in steps {
            try performing("custom migration step '\(step.name)'") {
                // A store keeping history records what the step changed.
                let capture = try MigrationStepCapture.begin(on: connection, model: to)
                try runRefusingTransactionControl(step)
                try capture?.finish(step: step.name)
                try connection.recordStepRan(step.name)
            }
            report.customSteps.append(step.name)
            log("ran custom step '\(step.name)'", &report)
        }
    }

    /// After the custom steps: checks what they were handed, takes each table
    /// to its final shape, and drops the join tables and tables the steps
    /// could still read.
    private func finishTables(_ work: Work, _ report: inout MigrationReport) throws {
        for entity in work.entities {
            try verifyNoNulls(entity)
            for check in entity.postStepChecks {
                if let problem = try performing("checking \(entity.entity.name)", { try check.problem(in: connection) }) {
                    throw LiteRecordError(.migrationFailed, "after the custom steps, " + problem)
                }
            }
            if let second = entity.second { try transform(second, &report) }
            try verifyStorageClasses(entity)
        }
        for entity in work.entities {
            for column in entity.removedColumns { report.note(\.droppedColumns, "\(entity.entity.name).\(column)") }
        }
        try dropUnwantedJoinTables(&report)
        if !work.steps.isEmpty {
            try dropTables(work.dropped, &report)
        }
    }

    /// Last, so that a step can remove duplicates before a unique index is
    /// built: the new model's indexes and full-text indexes the store lacks.
    private func addMissingIndexes(_ report: inout MigrationReport) throws {
        for entity in to.entities {
            try createMissingIndexes(for: entity, &report)
        }
        for entity in to.entities where entity.isSearchable {
            try createMissingSearchIndex(for: entity, &report)
        }
    }

    /// Runs a custom step with every statement that would begin, end or
    /// nest a transaction refused before it runs: a `COMMIT` inside a step
    /// would make the migration half-happen, and a `ROLLBACK` would undo the
    /// inferred changes while the rest of the migration went on. Commits are
    /// refused too, so that a statement that rolls the transaction back by
    /// itself (`INSERT OR ROLLBACK`, `RAISE(ROLLBACK)`) cannot leave the
    /// step's later statements to commit one by one; the step then fails.
    private func runRefusingTransactionControl(_ step: MigrationPlan.Step) throws {
        do {
            try connection.refusingTransactionControl { try step.body(MigrationDatabase(connection: connection)) }
        } catch let refused as Connection.RefusedTransactionControl {
            throw LiteRecordError(
                .migrationFailed,
                "custom migration step '\(step.name)' tried to control the transaction (\(refused.operation)), which a step may not do: the whole migration is one transaction that LiteRecord begins and commits; remove BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT and RELEASE from the step"
            )
        } catch {
            guard connection.isInTransaction else { throw Self.transactionEnded(step, cause: error) }
            throw error
        }
        // The step may have caught the error of the statement that ended it.
        guard connection.isInTransaction else { throw Self.transactionEnded(step, cause: nil) }
    }

    /// The failure of a step whose migration transaction was rolled back
    /// under it. Nothing it ran afterwards was committed (commits are refused
    /// while a step runs), so the store holds what it held before.
    private static func transactionEnded(_ step: MigrationPlan.Step, cause: (any Error)?) -> LiteRecordError {
        let sqlite = (cause as? SQLiteError) ?? (cause as? LiteRecordError)?.sqliteError
        let reason = sqlite.map { " (\($0.message))" } ?? ""
        return LiteRecordError(
            .migrationFailed,
            "custom migration step '\(step.name)' ended the migration transaction\(reason): one of its statements rolled it back (INSERT OR ROLLBACK or ON CONFLICT ROLLBACK meeting a constraint, a trigger's RAISE(ROLLBACK), an I/O error or a full disk). Everything the migration had done was rolled back with it, and nothing the step ran afterwards was committed; use OR ABORT or OR FAIL in a step, or let the error end the step",
            sqlite: sqlite)
    }

    // MARK: Tables

    private func dropTables(_ tables: [String], _ report: inout MigrationReport) throws {
        for table in tables {
            try performing("dropping table \(table)") { try connection.executeOnce("DROP TABLE \(SQLIdentifier.quote(table))") }
            report.note(\.droppedTables, table)
            log("dropped table \(table)", &report)
        }
    }

    private func renameTable(_ rename: MigrationReport.TableRename, _ report: inout MigrationReport) throws {
        try performing("renaming table \(rename.from) to \(rename.to)") {
            let alter = { (from: String, to: String) in
                try connection.executeOnce("ALTER TABLE \(SQLIdentifier.quote(from)) RENAME TO \(SQLIdentifier.quote(to))")
            }
            if rename.from.lowercased() == rename.to.lowercased() {
                // Table names ignore case, so SQLite sees a case-only rename as a
                // clash with the table itself: go through a temporary name.
                let temporary = "literecord_rename_" + rename.to
                try alter(rename.from, temporary)
                try alter(temporary, rename.to)
            } else {
                try alter(rename.from, rename.to)
            }
            try connection.moveRecordIDMark(from: rename.from, to: rename.to)
        }
        report.renamedTables.append(rename)
        log("renamed table \(rename.from) to \(rename.to)", &report)
    }

    /// Brings one table to the transform's target, in place when SQLite's
    /// `ALTER TABLE` can, else by a rebuild.
    private func transform(_ transform: TableTransform, _ report: inout MigrationReport) throws {
        guard !transform.isIdentity else { return }
        if let alterations = transform.alterations {
            for alteration in alterations {
                try performing("altering table \(transform.table)") {
                    try connection.executeOnce(transform.sql(for: alteration))
                }
                log(transform.describe(alteration), &report)
            }
            report.note(\.alteredTables, transform.table)
            return
        }
        try performing("rebuilding table \(transform.table)") {
            for (sql, arguments) in transform.rebuildStatements() {
                try connection.executeOnce(sql, arguments)
            }
        }
        report.note(\.rebuiltTables, transform.table)
        log("rebuilt table \(transform.table) (\(transform.target.count) columns, rows and record IDs kept)", &report)
    }

    // MARK: Checks after custom steps

    private func verifyNoNulls(_ entity: EntityMigration) throws {
        for column in entity.handedToSteps where !column.isOptional {
            let count = try performing("checking \(entity.entity.name).\(column.name)") {
                try connection.count(
                    "SELECT COUNT(*) FROM \(entity.entity.quotedTable) WHERE \(SQLIdentifier.quote(column.name)) IS NULL")
            }
            if count > 0 {
                throw LiteRecordError(
                    .migrationFailed, "\(entity.entity.name): the custom steps left \(count) record(s) without a value for the non-optional attribute '\(column.name)'")
            }
        }
    }

    private func verifyStorageClasses(_ entity: EntityMigration) throws {
        for column in entity.handedToSteps where column.convertsType {
            var allowed = column.type.storageClasses
            if column.isOptional { allowed.append("null") }
            let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
            let count = try performing("checking \(entity.entity.name).\(column.name)") {
                try connection.count(
                    "SELECT COUNT(*) FROM \(entity.entity.quotedTable) WHERE typeof(\(SQLIdentifier.quote(column.name))) NOT IN (\(list))")
            }
            if count > 0 {
                throw LiteRecordError(
                    .migrationFailed,
                    "\(entity.entity.name): after the custom steps, \(count) value(s) of attribute '\(column.name)' are not stored as \(column.type) (expected SQLite \(allowed.joined(separator: " or ")) values)"
                )
            }
        }
    }

    // MARK: Indexes

    /// LiteRecord's own indexes on `table`; indexes a custom step created under
    /// other names are left alone.
    private func literecordIndexes(on table: String) throws -> [String] {
        try connection.strings(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE AND name LIKE 'literecord\\_%' ESCAPE '\\'",
            [.text(table)])
    }

    private func dropUnwantedIndexes(on table: String, keeping entity: EntityDescription, _ report: inout MigrationReport) throws {
        // Index names, like all SQLite identifiers, ignore case.
        let wanted = Set(entity.indexes.map { $0.name.lowercased() })
        for name in try literecordIndexes(on: table) where !wanted.contains(name.lowercased()) {
            try performing("dropping index \(name)") { try connection.executeOnce("DROP INDEX \(SQLIdentifier.quote(name))") }
            report.note(\.droppedIndexes, name)
            log("dropped index \(name)", &report)
        }
    }

    private func createMissingIndexes(for entity: EntityDescription, _ report: inout MigrationReport) throws {
        let existing = Set(try literecordIndexes(on: entity.tableName).map { $0.lowercased() })
        for index in entity.indexes where !existing.contains(index.name.lowercased()) {
            try performing("creating index \(index.name)") {
                do {
                    try connection.executeOnce(index.sql)
                } catch let error as SQLiteError where index.isUnique && error.isConstraintViolation {
                    throw LiteRecordError(
                        .migrationFailed,
                        "\(entity.name): attribute '\(index.column)' cannot become unique, because stored records share values of it; remove the duplicates first (a MigrationPlan step runs before indexes are created) or leave the attribute non-unique",
                        sqlite: error)
                }
            }
            report.note(\.createdIndexes, index.name)
            log("created \(index.isUnique ? "unique index" : "index") \(index.name)", &report)
        }
    }

    // MARK: Full-text indexes

    /// Drops every full-text index (its FTS5 table and triggers) that does not
    /// stay exactly as it is: those of removed or renamed entities, of tables
    /// this migration rebuilds, and those whose searchable columns changed
    /// (a rename included). What stays is an index whose statements are the
    /// ones the new model would write, on a table that keeps its name and is
    /// at most altered in place (adding or dropping other columns).
    private func dropChangingSearchIndexes(_ work: Work, _ report: inout MigrationReport) throws {
        let objects = try performing("reading the full-text indexes") { try connection.searchIndexObjects() }
        guard !objects.isEmpty else { return }
        var kept = Set<String>()
        for entity in work.entities where entity.storedTable == entity.entity.tableName && entity.entity.isSearchable {
            // `ALTER TABLE` keeps triggers (and checks them); a rebuild drops them.
            func keepsTriggers(_ transform: TableTransform) -> Bool { transform.isIdentity || transform.alterations != nil }
            guard keepsTriggers(entity.first), entity.second.map(keepsTriggers) ?? true else { continue }
            let name = entity.entity.searchTableName
            let stored = Set(objects.filter { $0.name == name || $0.name.hasPrefix(name + ":") }.map(\.sql))
            if stored == Set(entity.entity.createSearchIndexSQL) { kept.insert(name) }
        }
        // Triggers first: dropping the FTS5 table under a trigger that writes
        // to it would leave a trigger that fails every write.
        for object in objects.sorted(by: { ($0.type == "trigger" ? 0 : 1) < ($1.type == "trigger" ? 0 : 1) }) {
            let owner = object.type == "trigger" ? String(object.name[..<(object.name.lastIndex(of: ":") ?? object.name.endIndex)]) : object.name
            guard !kept.contains(owner) else { continue }
            let kind = object.type == "trigger" ? "TRIGGER" : "TABLE"
            try performing("dropping \(object.name)") { try connection.executeOnce("DROP \(kind) \(SQLIdentifier.quote(object.name))") }
            if object.type != "trigger" {
                report.note(\.droppedSearchIndexes, object.name)
                log("dropped full-text index \(object.name)", &report)
            }
        }
    }

    /// Creates `entity`'s full-text index when the store lacks it, and indexes
    /// the rows already stored.
    private func createMissingSearchIndex(for entity: EntityDescription, _ report: inout MigrationReport) throws {
        let exists =
            try connection.count(
                "SELECT COUNT(*) FROM sqlite_schema WHERE name = ? AND type = 'table'", [.text(entity.searchTableName)]) > 0
        guard !exists else { return }
        try performing("creating full-text index \(entity.searchTableName)") {
            try connection.createSearchIndex(for: entity, fillingFromRows: true)
        }
        let rows = try connection.count("SELECT COUNT(*) FROM \(entity.quotedTable)")
        report.note(\.createdSearchIndexes, entity.searchTableName)
        log("created full-text index \(entity.searchTableName) over \(entity.searchableAttributes.map(\.name).joined(separator: ", ")) and indexed \(rows) record(s)", &report)
    }

    // MARK: The copy taken before migrating

    /// Copies a file store to a sibling file with `VACUUM INTO`, which writes a
    /// consistent snapshot of what is committed, WAL included
    /// (https://sqlite.org/lang_vacuum.html#vacuuminto). The name depends only
    /// on the stored model, so failed attempts replace one copy rather than
    /// piling up copies.
    ///
    /// Called with the migration's write transaction open (and nothing written
    /// yet): `VACUUM INTO` cannot run inside a transaction, so a second
    /// connection reads the file, which the write lock does not block.
    func takeBackup() throws(LiteRecordError) -> URL? {
        guard let url = store.url else { return nil }
        let backup = URL(fileURLWithPath: url.path + PreMigrationCopies.marker + from.fingerprint)
        removeFiles(of: backup)
        do {
            let reader = try Connection(path: url.path, options: Connection.OpenOptions(create: false))
            defer { reader.close() }
            // The target is an expression, so the path is bound like any value.
            try reader.executeOnce("VACUUM INTO ?", [.text(backup.path)])
            // Restored, the copy would give out this store's next transaction
            // numbers again: its history gets an identity of its own.
            let copy = try Connection(path: backup.path, options: Connection.OpenOptions(create: false))
            defer { copy.close() }
            try HistoryLog.giveCopyItsOwnIdentity(on: copy)
        } catch {
            removeFiles(of: backup)
            let reason = (error as? SQLiteError)?.message ?? "\(error)"
            throw LiteRecordError(
                .migrationFailed,
                "copying \(store.displayName) to \(backup.path) before migrating failed: \(reason)",
                sqlite: error as? SQLiteError)
        }
        return backup
    }

    func removeBackup(_ backup: URL) {
        removeFiles(of: backup)
        if FileManager.default.fileExists(atPath: backup.path) {
            store.logger.warning("could not remove the pre-migration copy", metadata: ["copy": "\(backup.path)"])
        }
    }

    private func removeFiles(of database: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: database.path + suffix)
        }
    }
}

/// One of LiteRecord's named indexes.
struct IndexSpec {
    let name: String
    let column: String
    let isUnique: Bool
    let sql: String
}

extension EntityDescription {
    /// The indexes the entity's unique and indexed attributes call for, named
    /// as ``createIndexSQL`` names them.
    var indexes: [IndexSpec] {
        attributes.flatMap { attribute -> [IndexSpec] in
            [(attribute.isUnique, true), (attribute.isIndexed, false)].compactMap { wanted, unique in
                guard wanted else { return nil }
                return IndexSpec(
                    name: Self.indexName(table: tableName, column: attribute.name, unique: unique),
                    column: attribute.name, isUnique: unique,
                    sql: Self.createIndexSQL(table: tableName, column: attribute.name, unique: unique))
            }
        }
            + toOneIndexes.map { index in
                let column = relationships[index].name
                return IndexSpec(
                    name: Self.indexName(table: tableName, column: column, unique: false), column: column, isUnique: false,
                    sql: Self.createIndexSQL(table: tableName, column: column, unique: false))
            }
    }
}
