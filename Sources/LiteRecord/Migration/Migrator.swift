import Foundation
import Logging

extension LiteRecordError {
    /// The SQLite failure underneath, so that re-wrapping keeps its codes.
    var sqliteError: SQLiteError? {
        guard let extendedResultCode, let sqliteMessage else { return nil }
        return SQLiteError(extendedCode: extendedResultCode, message: sqliteMessage, sql: sql)
    }
}

/// Migrates a store from the model it was written with to a new one.
///
/// The work is decided in ``prepare()`` by reading only, so that a refused
/// migration leaves the file byte-identical. ``run(_:)`` then takes the write
/// lock, makes sure nobody committed since the planning began (else the store
/// plans again: another process may have run the same migration or steps),
/// copies a file store aside when the migration can lose data (it drops a
/// table, a column or a join table, or runs custom steps), applies everything
/// in one transaction on the store's own connection, records the new model,
/// and keeps that copy (``PreMigrationCopies``). A migration that loses
/// nothing takes no copy: it costs no disk and no time under the write lock.
struct Migrator {
    let connection: Connection
    let store: Store
    let from: ModelSchema
    let to: Model
    let plan: MigrationPlan?

    /// For tests: runs after a migration was planned and before its write
    /// transaction begins, so that a test can commit from another connection
    /// exactly there.
    @TaskLocal static var afterPlanning: (@Sendable () -> Void)?

    /// Everything the migration will do, decided before anything is written.
    struct Work {
        /// `PRAGMA data_version` before anything was read for the plan.
        var dataVersion: Int64
        var changes: [SchemaChange]
        var created: [EntityDescription] = []
        var renamed: [MigrationReport.TableRename] = []
        /// Stored tables of entities the new model no longer has.
        var dropped: [String] = []
        var entities: [EntityMigration] = []
        /// The plan's steps this store has not run yet.
        var steps: [MigrationPlan.Step] = []
        /// Stored data the migration deletes: only what holds nothing, or
        /// what the plan declares.
        var removals: [DataRemoval] = []
        /// Join tables whose links go to another table, and new to-ones
        /// filled from a join table.
        var joinTableMoves: [JoinTableMove] = []
        var linkFills: [LinkFill] = []
        /// Stored join tables dropped with their links.
        var droppedJoinTables: [String] = []
        /// Whether the migration itself deletes records or values, or writes
        /// values into stored records (defaults, conversions): it then
        /// expires every history token (``expireHistoryTokens(_:)``).
        var rewritesStoredValues = false

        /// Whether something stored can be lost, so that a copy is taken
        /// first and kept: a table, column or join table dropped, or custom
        /// steps, which may run any SQL.
        var mayLoseData: Bool {
            !dropped.isEmpty || entities.contains { !$0.removedColumns.isEmpty } || !droppedJoinTables.isEmpty || !steps.isEmpty
        }
    }

    /// Decides the migration, reading the store but never writing to it.
    ///
    /// - Throws: `.migrationFailed` listing every change that cannot be
    ///   inferred, or that the stored data does not allow.
    func prepare() throws(LiteRecordError) -> Work {
        try plan?.validate()
        return try withErrorContext("planning the migration of \(store.displayName)") {
            // Read first, so that the transaction can tell whether anything the
            // plan rests on (the pending steps above all) changed since.
            let version = try dataVersion()
            var work = Work(dataVersion: version, changes: from.changes(to: to.schema))
            work.steps = try connection.pendingSteps(of: plan)
            let names = MigrationNames(from: from, to: to.schema)
            var refusals = names.refusals
            for entity in to.entities {
                guard let storedName = names.storedEntity(entity.name), let old = from.entity(named: storedName) else {
                    work.created.append(entity)
                    continue
                }
                if storedName != entity.name { work.renamed.append(MigrationReport.TableRename(from: old.name, to: entity.name)) }
                work.entities.append(
                    EntityMigration(old: old, new: entity, names: names, stepsPending: !work.steps.isEmpty, refusals: &refusals))
            }
            work.dropped = from.entities.map(\.name).filter { names.newEntity(forStored: $0) == nil }
            try refuseIfNeeded(refusals)
            // The data is only worth reading once the schema changes are possible.
            for entity in work.entities {
                for check in entity.dataChecks {
                    if let problem = try check.problem(in: connection) { refusals.append(problem) }
                }
            }
            work.joinTableMoves = try joinTableMoves(names: names)
            work.linkFills = try linkFills(names: names, refusals: &refusals)
            work.droppedJoinTables = droppedJoinTables(work)
            // A missing entity or attribute may be a slip in the setup call as
            // much as a removal: its data is deleted only when the plan says so.
            work.removals = try dataRemovals(work)
            refusals += work.removals.filter { !$0.isAllowed }.map(\.refusal)
            refusals += try joinTableRefusals(work)
            try refuseIfNeeded(refusals)
            work.rewritesStoredValues = try rewritesStoredValues(work)
            return work
        }
    }

    /// Whether `work` deletes stored records or values, or writes values into
    /// stored records (a default, a conversion), by itself: what custom steps
    /// change is recorded in the history as they run.
    private func rewritesStoredValues(_ work: Work) throws -> Bool {
        if work.removals.contains(where: { $0.records > 0 }) { return true }
        for entity in work.entities {
            let targets = entity.first.target + (entity.second?.target ?? [])
            let writes = targets.contains { column in
                switch column.source {
                case .column(_, let cast, let fallback): cast != nil || fallback != nil
                case .value(let value): !value.isNull
                }
            }
            if writes || !entity.perRowFills.isEmpty, try connection.count("SELECT COUNT(*) FROM \(SQLIdentifier(entity.storedTable))") > 0 { return true }
        }
        return false
    }

    private func refuseIfNeeded(_ refusals: [String]) throws(LiteRecordError) {
        guard !refusals.isEmpty else { return }
        throw LiteRecordError(
            .migrationFailed,
            "\(store.displayName) cannot be migrated automatically:\n- \(refusals.joined(separator: "\n- "))\nThe store was left untouched.")
    }

    /// Another connection committed between planning and the write lock.
    private struct Outdated: Error {}

    /// Applies `work` in one transaction and returns what it did, or `nil`
    /// when another connection committed since ``prepare()`` began: the work
    /// may be done already (two processes opening with the same new step), so
    /// nothing was written and the caller plans again.
    ///
    /// - Throws: `.migrationFailed` with the reason; the transaction is rolled
    ///   back, the store is as it was, and the message says where the copy
    ///   taken beforehand is.
    func run(_ work: Work) throws(LiteRecordError) -> MigrationReport? {
        var report = MigrationReport(from: from.fingerprint, to: to.fingerprint)
        var backup: URL?
        do {
            try waitingForOtherWriters { began in
                try connection.transaction(.immediate) {
                    began()
                    // Under the write lock nobody else can commit: if nobody did
                    // since the planning began, the plan (which steps are pending
                    // above all) still holds. Otherwise plan again.
                    guard try dataVersion() == work.dataVersion, case .model(_, let schema) = try connection.storedModel(),
                        schema == from, try connection.pendingSteps(of: plan).map(\.name) == work.steps.map(\.name)
                    else { throw Outdated() }
                    report.changes = work.changes.map(\.description)
                    log("migrating \(store.displayName) from model \(from.fingerprint) to \(to.fingerprint)", &report)
                    for change in work.changes { log("change: \(change)", &report) }
                    for removal in work.removals { log(removal.summary, &report) }
                    // Taken under the write lock, so the copy is exactly what this
                    // migration starts from, and no other migration writes the same
                    // copy meanwhile.
                    backup = work.mayLoseData ? try takeBackup() : nil
                    report.backupURL = backup
                    if let backup { log("copied the store to \(backup.path)", &report) }
                    try apply(work, &report)
                }
            }
        } catch is Outdated {
            store.logger.info("another connection changed the store while the migration was planned; planning again", metadata: ["store": "\(store.displayName)"])
            return nil
        } catch let error as OtherWriter {
            throw LiteRecordError(
                .storeUnavailable,
                "migrating \(store.displayName) did not start: another connection held the store's write lock for the whole \(error.waited.components.seconds) s this open waits for it — another process migrating it most likely, or a long write in another process. This open changed nothing; open the store again once the other process is done",
                sqlite: error.sqlite)
        } catch {
            throw failure(error, backup: backup)
        }
        // Taken only when something could be lost: the copy is the way back.
        if let backup { keepBackup(backup, &report) }
        store.logger.info("\(report)", metadata: ["store": "\(store.displayName)"])
        return report
    }

    /// Logs one action at `.info` and adds it to the report.
    func log(_ action: String, _ report: inout MigrationReport) {
        report.actions.append(action)
        store.logger.info("migration: \(action)", metadata: ["store": "\(store.displayName)"])
    }

    /// Runs `body`, turning any failure that is not already a migration
    /// failure into one that says what was being done.
    func performing<T>(_ action: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LiteRecordError where error.kind == .migrationFailed {
            throw error
        } catch let error as SQLiteError {
            throw LiteRecordError(.migrationFailed, "\(action()) failed: \(error.message)", sqlite: error)
        } catch let error as LiteRecordError {
            throw LiteRecordError(.migrationFailed, "\(action()) failed: \(error.message)", sqlite: error.sqliteError)
        } catch {
            throw LiteRecordError(.migrationFailed, "\(action()) failed: \(error)")
        }
    }

    private func failure(_ error: any Error, backup: URL?) -> LiteRecordError {
        let base: LiteRecordError
        switch error {
        case let error as LiteRecordError where error.kind == .migrationFailed:
            base = error
        case let error as LiteRecordError:
            base = LiteRecordError(.migrationFailed, "migrating \(store.displayName) failed: \(error.message)", sqlite: error.sqliteError)
        case let error as SQLiteError:
            base = LiteRecordError(.migrationFailed, "migrating \(store.displayName) failed: \(error.message)", sqlite: error)
        default:
            base = LiteRecordError(.migrationFailed, "migrating \(store.displayName) failed: \(error)")
        }
        var message = base.message + "\nThe migration was rolled back; \(store.displayName) is as it was before."
        if let backup {
            message += " A copy taken before the migration is at \(backup.path)."
        }
        return LiteRecordError(.migrationFailed, message, sqlite: base.sqliteError)
    }

    /// How long a migration waits for the write lock while another
    /// connection holds it — another process migrating the same store, most
    /// often, whose migration this one then finds done — before it gives up
    /// with `.storeUnavailable`. It waits the busy timeout (10 s) at a time
    /// and logs a line at `.notice` after each.
    static let otherWriterWaitLimit: Duration = .seconds(120)

    /// The write lock stayed with another connection for ``otherWriterWaitLimit``.
    private struct OtherWriter: Error {
        let waited: Duration
        let sqlite: SQLiteError
    }

    /// Runs `body` (a write transaction, which calls `began` first thing
    /// inside it) with foreign keys off, again each time its `BEGIN
    /// IMMEDIATE` meets another connection's write lock past the busy
    /// timeout, until ``otherWriterWaitLimit``. Without this a second process
    /// opening the store during the first one's migration failed after 10 s
    /// with "rolled back", while the first was still migrating
    /// (`MigrationTwoProcessTests`).
    private func waitingForOtherWriters(_ body: (_ began: () -> Void) throws -> Void) throws {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            var hasBegun = false
            do {
                try withForeignKeysOff { try body { hasBegun = true } }
                return
            } catch let error as SQLiteError where error.isBusy && !hasBegun {
                let waited = clock.now - start
                guard waited < Self.otherWriterWaitLimit else { throw OtherWriter(waited: waited, sqlite: error) }
                store.logger.notice(
                    "migration: another connection is writing to the store (another process migrating it?); waiting for it",
                    metadata: [
                        "store": "\(store.displayName)", "waited": "\(waited.components.seconds) s",
                        "limit": "\(Self.otherWriterWaitLimit.components.seconds) s",
                    ])
            }
        }
    }

    /// `PRAGMA data_version`: changes when another connection commits
    /// (https://sqlite.org/pragma.html#pragma_data_version).
    private func dataVersion() throws -> Int64 {
        guard case .integer(let version)? = try connection.rows("PRAGMA data_version").first?.first else { return 0 }
        return version
    }

    /// Runs `body` with foreign key enforcement off, as the rebuild recipe
    /// requires; the pragma is a no-op inside a transaction, so it is set
    /// around it (https://sqlite.org/lang_altertable.html#otheralter).
    private func withForeignKeysOff(_ body: () throws -> Void) throws {
        let enabled = try connection.rows("PRAGMA foreign_keys").first?.first == .integer(1)
        if enabled { try connection.execute("PRAGMA foreign_keys = OFF") }
        defer { if enabled { try? connection.execute("PRAGMA foreign_keys = ON") } }
        try body()
    }
}
