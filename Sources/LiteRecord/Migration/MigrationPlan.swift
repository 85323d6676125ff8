/// Custom migration steps for changes a lightweight migration cannot infer.
///
/// Steps run in order, inside the migration transaction, after the inferred
/// changes and before removed columns and tables are dropped and indexes are
/// created. So a step sees the new tables and columns (a new non-optional
/// column without a default accepts `NULL` until the steps are done), can
/// still read removed columns, finds a column whose type change cannot be
/// inferred holding its old values, and can remove duplicates before a
/// unique index is built. LiteRecord then checks that non-optional columns
/// were filled and converted columns hold the new type.
///
/// The store records each step's name (metadata key `migration_step:<name>`)
/// in the same transaction, so a step runs once per store, even when several
/// processes open it at the same moment (which steps are pending is decided
/// again under the write lock); a new store counts every step of its plan as
/// done. If a step throws, the whole migration is rolled back and opening the
/// store throws `.migrationFailed`. A step may not control the transaction:
/// `BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT` and `RELEASE` are refused
/// before they run, and the migration fails naming the step.
///
/// A plan also declares which entities and attributes may be removed with
/// the data they hold (``removeEntity(_:)``, ``removeAttribute(_:of:)``):
/// without such a declaration a migration that would delete stored records
/// or values is refused.
///
/// ```swift
/// let plan = MigrationPlan()
///     .step("fill-nick") { db in try db.execute("UPDATE Person SET nick = name") }
/// let stack = try RecordStack(storeAt: url, entities: [Person.self], migration: .plan(plan))
/// ```
public struct MigrationPlan: Sendable {
    /// One named step.
    public struct Step: Sendable {
        /// The name the store records once the step ran; unique within a plan
        /// and never reused for a different step.
        public let name: String
        let body: @Sendable (MigrationDatabase) throws -> Void
    }

    /// The steps, in the order they run.
    public private(set) var steps: [Step] = []

    /// The entities and attributes whose stored data the plan allows a
    /// migration to delete (see ``removeEntity(_:)``).
    var removals: [DeclaredRemoval] = []

    /// An empty plan: no steps and no declared removals.
    public init() {}

    /// Returns the plan with `body` appended as a step called `name`. The body
    /// may throw any error to abort (and roll back) the migration; a statement
    /// that controls the transaction (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`,
    /// `SAVEPOINT`, `RELEASE`) aborts it too, even if the body catches the error.
    public func step(_ name: String, _ body: @escaping @Sendable (MigrationDatabase) throws -> Void) -> MigrationPlan {
        var plan = self
        plan.steps.append(Step(name: name, body: body))
        return plan
    }
}

/// The database as a migration step sees it: statements run inside the
/// migration transaction, on the tables as described in ``MigrationPlan``.
/// Statements that control transactions are refused before they run.
///
/// ```swift
/// .step("lowercase-emails") { db in
///     for row in try db.rows("SELECT Z_PK, email FROM Person") { … }
///     try db.execute("UPDATE Person SET email = lower(email) WHERE email <> ?", arguments: [""])
/// }
/// ```
public struct MigrationDatabase {
    let connection: Connection

    /// Runs `sql` with bound `arguments`. Without arguments, `sql` may hold
    /// several statements separated by semicolons.
    ///
    /// - Throws: ``LiteRecordError`` when SQLite rejects the statement or an
    ///   argument cannot be stored, or when a statement would begin, commit,
    ///   roll back or nest a transaction (the migration then fails too).
    public func execute(_ sql: String, arguments: [any SQLValueConvertible] = []) throws {
        let values = try arguments.map { try $0.sqlValue() }
        try withErrorContext("migration statement") {
            try refusingAfterTransactionEnded {
                // Not cached: a step's statements run once.
                if values.isEmpty { try connection.execute(sql) } else { try connection.executeOnce(sql, values) }
            }
        }
    }

    /// The rows of a query, each as its column values.
    ///
    /// - Throws: ``LiteRecordError`` when SQLite rejects the query or an
    ///   argument cannot be stored.
    public func rows(_ sql: String, arguments: [any SQLValueConvertible] = []) throws -> [[SQLValue]] {
        let values = try arguments.map { try $0.sqlValue() }
        return try withErrorContext("migration query") { try refusingAfterTransactionEnded { try connection.rows(sql, values) } }
    }

    /// Runs one statement of a step only while the migration transaction is
    /// open, and fails once a statement ended it (an implicit rollback), so
    /// that a step that catches that error stops at its next statement
    /// instead of running the rest outside the migration.
    private func refusingAfterTransactionEnded<T>(_ body: () throws -> T) throws -> T {
        let ended = "the migration transaction has ended (a statement of the step rolled it back); nothing more can run in this migration"
        guard connection.isInTransaction else { throw LiteRecordError(.migrationFailed, ended) }
        let result = try body()
        guard connection.isInTransaction else { throw LiteRecordError(.migrationFailed, ended) }
        return result
    }
}
