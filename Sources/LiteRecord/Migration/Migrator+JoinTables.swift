extension Migrator {
    /// The join tables of the stored model, with the relationships naming them.
    private var storedJoinTables: [(table: String, entity: String, relationship: String)] {
        from.entities.flatMap { entity in
            (entity.relationships ?? []).compactMap { relationship in
                relationship.joinTable.map { ($0, entity.name, relationship.name) }
            }
        }
    }

    /// The join tables of the new model.
    private var wantedJoinTables: [JoinTable] {
        to.entities.flatMap { entity in
            entity.relationships.compactMap { relationship -> JoinTable? in
                guard relationship.ownsJoinTable, case .joinTable(let table) = relationship.storage else { return nil }
                return table
            }
        }
    }

    /// A join table the new model drops while it still holds links is deleted
    /// data: refused unless the plan declares the relationship's removal.
    func joinTableRefusals(_ work: Work) throws -> [String] {
        // Tables whose links move elsewhere are not dropped data.
        let wanted = Set(wantedJoinTables.map(\.name) + work.joinTableMoves.map(\.from) + work.linkFills.map(\.joinTable))
        var refusals: [String] = []
        var seen = Set<String>()
        for (table, entity, relationship) in storedJoinTables where !wanted.contains(table) && seen.insert(table).inserted {
            let sides = storedJoinTables.filter { $0.table == table }
            let declared = sides.contains { plan?.declaresRemoval(ofAttribute: $0.relationship, of: [$0.entity]) ?? false }
            guard !declared, try tableExists(table) else { continue }
            let links = try connection.count(SelectStatement(["COUNT(*)"], from: SQLIdentifier.quote(table)).sql)
            guard links > 0 else { continue }
            refusals.append(
                "\(entity): relationship '\(relationship)' is not in the model, but its join table \(table) holds \(links) link(s), which the migration would delete; if it was left out by mistake, add it back; to delete the links, declare it with let plan = MigrationPlan().removeRelationship(\"\(relationship)\", of: \"\(entity)\") and open with setupAutoMigrating(…, plan: plan) or migration: .plan(plan)"
            )
        }
        return refusals
    }

    /// Creates the join tables the new model adds. Runs before the custom
    /// steps, so that a step can fill a new many-to-many's links.
    func createMissingJoinTables(_ work: Work, _ report: inout MigrationReport) throws {
        try moveJoinTables(work.joinTableMoves, &report)
        for table in wantedJoinTables where try !tableExists(table.name) {
            try performing("creating join table \(table.name)") {
                try connection.executeOnce(table.createSQL)
                try connection.executeOnce(table.createIndexSQL)
            }
            report.note(\.createdTables, table.name)
            log("created join table \(table.name)", &report)
        }
    }

    /// Drops the join tables the new model no longer has (empty, or declared
    /// removed: see ``joinTableRefusals()``). Runs after the custom steps, so
    /// that a step can still read the links of a removed many-to-many.
    func dropUnwantedJoinTables(_ report: inout MigrationReport) throws {
        let names = Set(wantedJoinTables.map(\.name))
        for table in Set(storedJoinTables.map(\.table)).sorted() where !names.contains(table) {
            guard try tableExists(table) else { continue }
            try performing("dropping join table \(table)") { try connection.executeOnce("DROP TABLE \(SQLIdentifier(table))") }
            report.note(\.droppedTables, table)
            log("dropped join table \(table)", &report)
        }
    }

    /// The stored join tables the new model drops, links and all.
    func droppedJoinTables(_ work: Work) -> [String] {
        let kept = Set(wantedJoinTables.map(\.name) + work.joinTableMoves.map(\.from) + work.linkFills.map(\.joinTable))
        return Set(storedJoinTables.map(\.table)).subtracting(kept).sorted()
    }

    private func tableExists(_ name: String) throws -> Bool {
        try connection.count("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) > 0
    }
}
