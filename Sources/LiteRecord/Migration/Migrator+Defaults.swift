extension Migrator {
    /// Gives each stored record its own value of a default that differs from
    /// call to call (`@Attribute(.unique) var identifier = UUID()` added in
    /// a later version): one value for all of them would make them share it.
    /// Runs after each table's first transform, before the custom steps, so
    /// a step sees the values; the table's second transform then makes a
    /// non-optional column `NOT NULL`.
    func fillPerRowDefaults(_ work: Work, _ report: inout MigrationReport) throws {
        for entity in work.entities {
            for fill in entity.perRowFills {
                let count = try performing("filling \(entity.entity.name).\(fill.column) with its default value") {
                    try fillPerRow(fill, in: entity.entity.table)
                }
                log("gave \(count) record(s) of \(entity.entity.name) their own default value of \(fill.column)", &report)
            }
        }
    }

    private func fillPerRow(_ fill: EntityMigration.PerRowFill, in table: SQLIdentifier) throws -> Int {
        let key = SQLIdentifier.rowID
        let column = SQLIdentifier(fill.column)
        let rows = try connection.rows(
            "SELECT \(key) FROM \(table)" + (fill.nullsOnly ? " WHERE \(column) IS NULL" : "") + " ORDER BY \(key)")
        let update = try connection.makeStatement("UPDATE \(table) SET \(column) = ? WHERE \(key) = ?")
        defer { update.finalize() }
        for row in rows {
            guard case .integer(let id)? = row.first else { continue }
            try update.bind([try fill.make(), .integer(id)])
            try update.run()
            update.reset()
        }
        return rows.count
    }
}
