public import Foundation

extension RecordStack {
    /// What the migration run when this stack opened its store did, or `nil`
    /// when no migration ran (a new store, or one that already matched).
    ///
    /// ```swift
    /// try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: [Note.self])
    /// if let report = try RecordStack.current().lastMigrationReport {
    ///     print(report.rebuiltTables)
    /// }
    /// ```
    public var lastMigrationReport: MigrationReport? { store.migrationReport }

    /// Whether the store called `name` (found by ``locator``) was written by a
    /// model other than `entities`, so that opening it needs a migration.
    ///
    /// Choose the setup the way MagicalRecord apps checked `isRequiredMigration`:
    ///
    /// ```swift
    /// let entities: [any Entity.Type] = [Note.self, Tag.self]
    /// if try RecordStack.requiresMigration(storeNamed: "Notes", entities: entities) {
    ///     try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: entities)
    /// } else {
    ///     try RecordStack.setup(storeNamed: "Notes", entities: entities)
    /// }
    /// ```
    ///
    /// It cannot see a ``MigrationPlan``: a step added to a plan without a
    /// model change runs at the next open with that plan, yet this answers
    /// `false`. An app with a plan asks ``requiresMigration(storeNamed:entities:plan:)``.
    ///
    /// - Returns: `false` when there is no store yet, or it already matches.
    /// - Throws: ``LiteRecordError`` of kind `.invalidModel` for a bad entity
    ///   list, `.modelMismatch` when the file is a SQLite database LiteRecord
    ///   did not create, `.corruptStore` or `.storeUnavailable` when it cannot
    ///   be read.
    public static func requiresMigration(storeNamed name: String, entities: [any Entity.Type]) throws -> Bool {
        try requiresMigration(storeAt: locator.url(forStoreNamed: name), entities: entities)
    }

    /// Whether opening the store called `name` with `entities` and `plan`
    /// migrates it: the model differs, or the plan has a step the store has
    /// not run yet (a step added without a model change runs too).
    ///
    /// ```swift
    /// let plan = MigrationPlan().step("lowercase-emails") { db in try db.execute("UPDATE Person SET email = lower(email)") }
    /// if try RecordStack.requiresMigration(storeNamed: "Notes", entities: [Person.self], plan: plan) {
    ///     try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: [Person.self], plan: plan)
    /// } else {
    ///     try RecordStack.setup(storeNamed: "Notes", entities: [Person.self])
    /// }
    /// ```
    ///
    /// - Returns: `false` when there is no store yet (a new store counts its
    ///   plan's steps as done), or it matches and has run every step.
    /// - Throws: as ``requiresMigration(storeNamed:entities:)``, and
    ///   `.migrationFailed` for a plan that cannot be run (two steps of one name).
    public static func requiresMigration(storeNamed name: String, entities: [any Entity.Type], plan: MigrationPlan) throws -> Bool {
        try requiresMigration(storeAt: locator.url(forStoreNamed: name), entities: entities, plan: plan)
    }

    /// Whether opening the store file at `url` with `entities` and `plan`
    /// migrates it. See ``requiresMigration(storeNamed:entities:plan:)``.
    ///
    /// ```swift
    /// let needed = try RecordStack.requiresMigration(storeAt: url, entities: [Person.self], plan: plan)
    /// ```
    ///
    /// - Throws: see ``requiresMigration(storeNamed:entities:plan:)``.
    public static func requiresMigration(storeAt url: URL, entities: [any Entity.Type], plan: MigrationPlan) throws -> Bool {
        try plan.validate()
        return try requiresMigration(storeAt: url, entities: entities, pendingStepsOf: plan)
    }

    /// Whether the store file at `url` needs a migration to be opened with
    /// `entities`. The file is only read, never written, and a missing file is
    /// not created. See ``requiresMigration(storeNamed:entities:)``.
    ///
    /// - Throws: see ``requiresMigration(storeNamed:entities:)``.
    public static func requiresMigration(storeAt url: URL, entities: [any Entity.Type]) throws -> Bool {
        try requiresMigration(storeAt: url, entities: entities, pendingStepsOf: nil)
    }

    private static func requiresMigration(storeAt url: URL, entities: [any Entity.Type], pendingStepsOf plan: MigrationPlan?) throws -> Bool {
        let model = try Model(entities: entities)
        let path = url.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return false }
        return try withErrorContext("checking whether \(path) needs a migration") {
            // Read-only: a read-write connection that is the file's last would
            // checkpoint the WAL and delete it when it closes, which a store
            // left to a replicator must never see. Opened `immutable` when no
            // -wal, -shm or -journal is there, so it leaves none behind
            // (https://sqlite.org/wal.html#readonly).
            let connection = try Connection(path: path, options: Store.readingOptions(for: path))
            defer { connection.close() }
            switch try connection.storedModel() {
            case .empty:
                return false
            case .foreign(let tables):
                throw LiteRecordError(
                    .modelMismatch,
                    "\(path) is a SQLite database that LiteRecord did not create (tables: \(tables.joined(separator: ", "))); no migration can open it")
            case .model(let fingerprint, let schema):
                return try !schema.isUnchanged(becoming: model.schema, fingerprint: fingerprint)
                    || !connection.pendingSteps(of: plan).isEmpty
            }
        }
    }
}
