/// A stored join table whose links a join table of the new model takes over:
/// its name and columns come from entity and relationship names, and from
/// the inverse once there is one (`min(own, other)`), so renaming an entity
/// or a relationship, or adding an inverse to a many-to-many, gives the same
/// links another table.
struct JoinTableMove {
    /// The stored table.
    let from: String
    /// Its columns holding the new table's source and destination row ids.
    let sourceColumn: String
    let destinationColumn: String
    /// The new model's table.
    let to: JoinTable
}

/// A new to-one filled from the stored join table of its inverse: a to-many
/// without an inverse keeps its links in a join table; once it gains an
/// inverse to-one they live in that to-one's column.
struct LinkFill {
    /// The new model's entity (table) holding the to-one's column.
    let entity: String
    let column: String
    /// The stored join table and its columns for this entity's and the
    /// destination's row ids.
    let joinTable: String
    let ownColumn: String
    let destinationColumn: String
}

extension Migrator {
    /// The stored relationship (and its stored entity's name) that the new
    /// model's relationship `relationship` of `entity` continues.
    private func storedRelationship(_ relationship: String, of entity: String, names: MigrationNames) -> (entity: String, relationship: RelationshipSchema)? {
        guard let storedEntity = names.storedEntity(entity), let storedName = names.storedRelationship(relationship, of: entity),
            let stored = from.entity(named: storedEntity)?.relationship(named: storedName)
        else { return nil }
        return (storedEntity, stored)
    }

    /// The stored join table of a to-many and its columns for its own
    /// entity's and the destination's row ids, read from the file: the table
    /// is created with the owning side's columns first.
    private func storedJoinColumns(of stored: RelationshipSchema, entity: String) throws -> (table: String, own: String, other: String)? {
        guard stored.isToMany, let table = stored.joinTable else { return nil }
        let columns = try connection.strings("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
        guard columns.count == 2 else { return nil }
        let owns = table == "\(entity)_\(stored.name)"
        return (table, owns ? columns[0] : columns[1], owns ? columns[1] : columns[0])
    }

    /// The join tables the new model keeps under another name or other
    /// columns, found from either side of each new many-to-many.
    func joinTableMoves(names: MigrationNames) throws -> [JoinTableMove] {
        var moves: [JoinTableMove] = []
        for entity in to.entities {
            for relationship in entity.relationships where relationship.ownsJoinTable {
                guard case .joinTable(let table) = relationship.storage else { continue }
                var sides = [(entity.name, relationship, table)]
                if let inverse = relationship.inverseIndex, let destination = to.entity(named: relationship.destinationName) {
                    sides.append((destination.name, destination.relationships[inverse], table.flipped))
                }
                for (entityName, side, seen) in sides {
                    guard let (storedEntity, stored) = storedRelationship(side.name, of: entityName, names: names),
                        names.newEntity(forStored: stored.destination) == side.destinationName,
                        let (old, own, other) = try storedJoinColumns(of: stored, entity: storedEntity)
                    else { continue }
                    // Seen from this side: own column → the side's source column.
                    let move = JoinTableMove(
                        from: old, sourceColumn: seen == table ? own : other, destinationColumn: seen == table ? other : own, to: table)
                    if move.from != table.name || move.sourceColumn != table.sourceColumn || move.destinationColumn != table.destinationColumn {
                        moves.append(move)
                    }
                    break
                }
            }
        }
        return moves
    }

    /// The new to-ones whose links are in the stored join table of their
    /// inverse to-many, and a refusal for each whose stored links give one
    /// record several destinations (a to-one holds one).
    func linkFills(names: MigrationNames, refusals: inout [String]) throws -> [LinkFill] {
        var fills: [LinkFill] = []
        for entity in to.entities {
            for index in entity.toOneIndexes {
                let relationship = entity.relationships[index]
                guard storedRelationship(relationship.name, of: entity.name, names: names) == nil,
                    let inverseIndex = relationship.inverseIndex, let destination = to.entity(named: relationship.destinationName)
                else { continue }
                let inverse = destination.relationships[inverseIndex]
                guard let (storedDestination, stored) = storedRelationship(inverse.name, of: destination.name, names: names),
                    let (table, destinationColumn, ownColumn) = try storedJoinColumns(of: stored, entity: storedDestination)
                else { continue }
                let shared = try connection.rows(
                    "SELECT \(SQLIdentifier(ownColumn)), COUNT(*) FROM \(SQLIdentifier(table)) GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY 1 LIMIT 1")
                if let row = shared.first, case .integer(let record) = row[0], case .integer(let count) = row[1] {
                    refusals.append(
                        "\(entity.name): relationship '\(relationship.name)' was added as the to-one inverse of \(destination.name).\(inverse.name), whose join table \(table) links record \(entity.name) \(Model.primaryKeyColumn) = \(record) to \(count) \(destination.name) records, and a to-one holds one; make the inverse a to-many, or remove the extra links before migrating"
                    )
                    // Still listed, so the table is not also refused as removed links.
                }
                fills.append(
                    LinkFill(
                        entity: entity.name, column: relationship.name, joinTable: table, ownColumn: ownColumn, destinationColumn: destinationColumn))
            }
        }
        return fills
    }

    /// Gives each join table its new name and columns, links included.
    /// Runs once the entity tables have their new names, before the new
    /// model's missing join tables are created.
    func moveJoinTables(_ moves: [JoinTableMove], _ report: inout MigrationReport) throws {
        for move in moves {
            try performing("moving the links of \(move.from) to \(move.to.name)") {
                var source = move.from
                if source.lowercased() == move.to.name.lowercased() {
                    // Same table name (ignoring case), other columns.
                    source = "literecord_move_" + move.from
                    try connection.executeOnce("ALTER TABLE \(SQLIdentifier(move.from)) RENAME TO \(SQLIdentifier(source))")
                }
                try connection.executeOnce(move.to.createSQL)
                try connection.executeOnce(
                    "INSERT INTO \(SQLIdentifier(move.to.name)) (\(SQLIdentifier(move.to.sourceColumn)), \(SQLIdentifier(move.to.destinationColumn))) SELECT \(SQLIdentifier(move.sourceColumn)), \(SQLIdentifier(move.destinationColumn)) FROM \(SQLIdentifier(source))"
                )
                try connection.executeOnce("DROP TABLE \(SQLIdentifier(source))")
                try connection.executeOnce(move.to.createIndexSQL)
            }
            report.note(\.createdTables, move.to.name)
            log("moved the links of join table \(move.from) to \(move.to.name)", &report)
        }
    }

    /// Fills each new to-one's column from its inverse's stored join table,
    /// which is dropped after the custom steps like any join table the new
    /// model does not have.
    func fillLinks(_ fills: [LinkFill], _ report: inout MigrationReport) throws {
        for fill in fills {
            try performing("filling \(fill.entity).\(fill.column) from \(fill.joinTable)") {
                let key = SQLIdentifier.rowID
                let table = SQLIdentifier(fill.entity)
                let join = SQLIdentifier(fill.joinTable)
                try connection.executeOnce(
                    "UPDATE \(table) SET \(SQLIdentifier(fill.column)) = (SELECT \(SQLIdentifier(fill.destinationColumn)) FROM \(join) WHERE \(SQLIdentifier(fill.ownColumn)) = \(table).\(key)) WHERE \(key) IN (SELECT \(SQLIdentifier(fill.ownColumn)) FROM \(join))"
                )
            }
            log("moved the links of join table \(fill.joinTable) to \(fill.entity).\(fill.column)", &report)
        }
    }
}
