public import Foundation

extension RecordStack {
    /// Sets up the default stack with `<applicationName>.sqlite`, migrating it
    /// with `plan`. See ``setupAutoMigrating(storeAt:entities:plan:onModelMismatch:)``.
    ///
    /// ```swift
    /// try RecordStack.setupAutoMigrating(entities: [Book.self], plan: MigrationPlan().removeEntity("ReadingSession"))
    /// ```
    ///
    /// - Throws: see ``setupAutoMigrating(storeAt:entities:plan:onModelMismatch:)``.
    public static func setupAutoMigrating(
        entities: [any Entity.Type], plan: MigrationPlan, onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        try setupAutoMigrating(
            storeNamed: locator.defaultStoreName, entities: entities, plan: plan, onModelMismatch: onModelMismatch)
    }

    /// Sets up the default stack with the store called `name` (found by
    /// ``locator``), migrating it with `plan`: the inferred lightweight
    /// migration, the removals the plan declares, and its custom steps.
    ///
    /// ```swift
    /// let plan = MigrationPlan().removeEntity("ReadingSession")
    /// try RecordStack.setupAutoMigrating(storeNamed: "Books", entities: [Book.self], plan: plan)
    /// print(try RecordStack.lastMigrationReport?.keptCopyURL)
    /// ```
    ///
    /// - Throws: see ``setupAutoMigrating(storeAt:entities:plan:onModelMismatch:)``.
    public static func setupAutoMigrating(
        storeNamed name: String, entities: [any Entity.Type], plan: MigrationPlan,
        onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        let url = resolveLogging(storeNamed: name)
        try setupAutoMigrating(storeAt: url, entities: entities, plan: plan, onModelMismatch: onModelMismatch)
    }

    /// Sets up the default stack with the store file at `url`, migrating it
    /// with `plan` (like `RecordStack(storeAt:entities:migration: .plan(plan))`).
    ///
    /// An entity or attribute whose stored data the migration would delete
    /// must be declared in the plan (``MigrationPlan/removeEntity(_:)``,
    /// ``MigrationPlan/removeAttribute(_:of:)``); the default stack's
    /// ``lastMigrationReport-type.property`` then says what was removed and where the copy
    /// of the old store was kept.
    ///
    /// ```swift
    /// let plan = MigrationPlan().removeAttribute("nick", of: "Person")
    /// try RecordStack.setupAutoMigrating(storeAt: url, entities: [Person.self], plan: plan)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.migrationFailed` (with the
    ///   reason, e.g. data that would be deleted without a declaration; the
    ///   store is left as it was), `.alreadySetUp`, `.invalidModel`,
    ///   `.corruptStore` or `.storeUnavailable`.
    public static func setupAutoMigrating(
        storeAt url: URL, entities: [any Entity.Type], plan: MigrationPlan, onModelMismatch: ModelMismatchPolicy = .fail
    ) throws {
        try install {
            try RecordStack(storeAt: url, entities: entities, migration: .plan(plan), onModelMismatch: onModelMismatch)
        }
    }

    /// What the migration run when the default stack opened its store did, or
    /// `nil` when no migration ran (a new store, or one that already matched).
    ///
    /// ```swift
    /// try RecordStack.setupAutoMigrating(storeNamed: "Notes", entities: [Note.self])
    /// if let report = try RecordStack.lastMigrationReport {
    ///     print(report.droppedColumns, report.keptCopyURL as Any)
    /// }
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` of kind `.notSetUp` when no default stack
    ///   is set up.
    public static var lastMigrationReport: MigrationReport? {
        get throws { try current().lastMigrationReport }
    }
}
