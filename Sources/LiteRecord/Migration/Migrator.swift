/// Applies a lightweight migration from a stored model to a new one.
struct Migrator {
    let connection: Connection
    let store: Store
    let from: ModelSchema
    let to: Model
    let plan: MigrationPlan?

    func run() throws {
        let changes = from.changes(to: to.schema)
        throw LiteRecordError(.migrationFailed, "automatic migration is not implemented yet; changes: \(changes.summary)")
    }
}
