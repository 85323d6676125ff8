import Foundation

extension Store {
    /// Opens the writer connection and checks the store against the model
    /// (creating, migrating or moving it aside); the connection is closed
    /// again when that fails.
    func openWritable(migration: MigrationMode, onMismatch: ModelMismatchPolicy) throws(LiteRecordError) -> Connection {
        var connection = try openConnection()
        do {
            try prepare(connection, migration: migration)
        } catch let error where error.kind == .modelMismatch && onMismatch == .moveAsideAndRecreate && url != nil {
            movedAsideFiles = try moveAside(closing: connection)
            logger.warning("store did not match the model; moved aside", metadata: ["files": "\(movedAsideFiles.map(\.path))"])
            connection = try openConnection()
            do {
                try prepare(connection, migration: .none)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// How many times an open plans a migration again because another
    /// connection committed between planning and the write lock.
    static let migrationAttempts = 10

    /// Checks the store against the model: creates a new store's schema,
    /// accepts a matching one, migrates or refuses a different one. A
    /// migration that another connection overtook (it committed while this
    /// one was planning, perhaps the same migration) is decided again from
    /// what the store now holds.
    private func prepare(_ connection: Connection, migration: MigrationMode) throws(LiteRecordError) {
        for _ in 0..<Self.migrationAttempts {
            if try prepareOnce(connection, migration: migration) { return }
        }
        throw LiteRecordError(
            .migrationFailed,
            "other connections kept changing \(displayName) while it was being migrated (\(Self.migrationAttempts) attempts); nothing was migrated, open the store again to retry")
    }

    /// One attempt of ``prepare(_:migration:)``: `false` when a migration was
    /// overtaken and nothing was written.
    private func prepareOnce(_ connection: Connection, migration: MigrationMode) throws(LiteRecordError) -> Bool {
        return try attributingErrors("opening the store at \(displayName)") {
            try connection.execute("PRAGMA foreign_keys = ON")
            // The common case, the model unchanged, without decoding the stored
            // model: the same answer as the `.model` case below gives when the
            // fingerprint and canonical text match and no migration step waits
            // (`MetadataFastPathTests` compares the two paths).
            // (A plan may have steps to run: it takes the path below.)
            if !migration.isPlan, try connection.storedModelIsUnchanged(from: model) {
                try connection.requireKnownStoreFormat(displayName)
                try prepareUnchanged(connection)
                return true
            }
            // Read what the file holds before anything writes to it, so a refused
            // store stays byte-identical.
            let stored = try connection.storedModel()
            switch stored {
            case .empty:
                try enableWAL(connection)
                // Another process may be creating the same new store: decide again
                // under the write lock, and read what it wrote if it got there first.
                let created = try connection.transaction { () throws -> Bool in
                    guard case .empty = try connection.storedModel() else { return false }
                    try connection.createSchema(for: model)
                    // A plan's steps move older data forward; a new store has none,
                    // so they count as done and never run on it later.
                    if case .plan(let plan) = migration {
                        try plan.validate()
                        for step in plan.steps { try connection.recordStepRan(step.name) }
                    }
                    return true
                }
                if created {
                    logger.info("created store", metadata: ["store": "\(displayName)", "model": "\(model.fingerprint)"])
                    return true
                }
                return try prepareOnce(connection, migration: migration)
            case .foreign(let tables):
                throw LiteRecordError(
                    .modelMismatch,
                    "\(displayName) is a SQLite database that LiteRecord did not create (tables: \(tables.joined(separator: ", "))); it was left untouched")
            case .model(let fingerprint, let schema):
                try connection.requireKnownStoreFormat(displayName)
                if schema.isUnchanged(becoming: model.schema, fingerprint: fingerprint) {
                    try prepareUnchanged(connection)
                    // Steps added to a plan without a model change still run, once.
                    if case .plan(let plan) = migration, try !connection.pendingSteps(of: plan).isEmpty {
                        return try migrate(connection, stored: schema, plan: plan)
                    }
                    return true
                }
                return try handleMismatch(connection, stored: schema, migration: migration)
            }
        }
    }

    /// Readies a store whose model is the stack's: WAL, and this LiteRecord's
    /// format.
    private func prepareUnchanged(_ connection: Connection) throws {
        try enableWAL(connection)
        try upgradeFormat(connection)
    }

    /// Adds what a store written by an earlier LiteRecord lacks (the version
    /// column of each table, this LiteRecord's full-text triggers). It belongs
    /// to the library, not to the model, so every setup does it, migrating or
    /// not; a migration does it as its first step (``Migrator``).
    private func upgradeFormat(_ connection: Connection) throws {
        guard try connection.storeNeedsUpgrade() else { return }
        let added = try connection.transaction {
            try connection.upgradeStoreFormat(tables: model.entities.map(\.tableName))
        }
        if !added.isEmpty {
            logger.info("added row versions", metadata: ["store": "\(displayName)", "tables": "\(added)"])
        }
    }

    /// Refuses or migrates a store written by another model; `false` when
    /// the migration was overtaken (see ``Migrator/run(_:)``).
    private func handleMismatch(_ connection: Connection, stored: ModelSchema, migration: MigrationMode) throws -> Bool {
        let changes = stored.changes(to: model.schema)
        switch migration {
        case .none:
            let summary = changes.isEmpty ? "the model fingerprints differ" : changes.summary
            // A removal is as likely a slip in the entity list as a decision, so
            // the advice is the declaration, never a setup that would infer it.
            let advice =
                changes.removalAdvice
                ?? "Use setupAutoMigrating (or migration: .automatic) to migrate it"
            throw LiteRecordError(
                .modelMismatch,
                "\(displayName) was written by a different model:\n\(summary)\n\(advice), or onModelMismatch: .moveAsideAndRecreate to start over; the store was left untouched")
        case .automatic:
            return try migrate(connection, stored: stored, plan: nil)
        case .plan(let plan):
            return try migrate(connection, stored: stored, plan: plan)
        }
    }

    /// Plans and runs a migration; `false` when another connection committed
    /// while it was planned, so that nothing was written and it must be
    /// planned again.
    private func migrate(_ connection: Connection, stored: ModelSchema, plan: MigrationPlan?) throws -> Bool {
        let migrator = Migrator(connection: connection, store: self, from: stored, to: model, plan: plan)
        // Decided by reading only: a refused migration must leave the file
        // byte-identical, so even the journal mode is set only afterwards.
        let work = try migrator.prepare()
        try enableWAL(connection)
        Migrator.afterPlanning?()
        guard let report = try migrator.run(work) else { return false }
        migrationReport = report
        return true
    }

    private func enableWAL(_ connection: Connection) throws {
        guard url != nil else { return }
        // WAL lets readers run beside the writer; NORMAL sync is safe in WAL mode
        // (https://sqlite.org/pragma.html#pragma_synchronous).
        // Another process creating the same new store converts it at the
        // same moment, and SQLite answers that conflict without waiting.
        try connection.retryingWhenBusy { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.execute("PRAGMA synchronous = NORMAL")
    }
}
