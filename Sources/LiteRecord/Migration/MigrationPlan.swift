/// Custom migration steps for changes a lightweight migration cannot infer.
///
/// Steps run in order, inside the migration transaction, after the inferred
/// changes; the store records each step's name so it runs once.
///
/// ```swift
/// let plan = MigrationPlan()
///     .step("fill-nick") { db in try db.execute("UPDATE Person SET nick = name") }
/// let stack = try RecordStack(storeAt: url, entities: [Person.self], migration: .plan(plan))
/// ```
public struct MigrationPlan: Sendable {
    /// One named step.
    public struct Step: Sendable {
        public let name: String
        let body: @Sendable (MigrationDatabase) throws -> Void
    }

    public private(set) var steps: [Step] = []

    public init() {}

    /// Returns the plan with `body` appended as a step called `name`.
    public func step(_ name: String, _ body: @escaping @Sendable (MigrationDatabase) throws -> Void) -> MigrationPlan {
        var plan = self
        plan.steps.append(Step(name: name, body: body))
        return plan
    }
}

/// The database as a migration step sees it: statements run inside the
/// migration transaction.
public struct MigrationDatabase {
    let connection: Connection

    /// Runs `sql` with bound `arguments`.
    ///
    /// - Throws: ``LiteRecordError`` when SQLite rejects the statement.
    public func execute(_ sql: String, arguments: [any SQLValueConvertible] = []) throws {
        let values = try arguments.map { try $0.sqlValue() }
        try withErrorContext("migration statement") {
            if values.isEmpty { try connection.execute(sql) } else { try connection.execute(sql, values) }
        }
    }

    /// The rows of a query, each as its column values.
    public func rows(_ sql: String, arguments: [any SQLValueConvertible] = []) throws -> [[SQLValue]] {
        let values = try arguments.map { try $0.sqlValue() }
        return try withErrorContext("migration query") { try connection.rows(sql, values) }
    }
}
