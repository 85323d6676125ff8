extension RecordContext {
    /// Before a merge re-reads the changed records: forgets each loaded
    /// to-many whose membership the committed changes altered, telling its
    /// observers. The other loaded lists stay as they are and say nothing:
    /// a note in another folder that only changed its title does not make
    /// every folder's list re-render (`MergeToManyObservationTests`).
    ///
    /// One statement per to-many whose destination the commit touched and
    /// that is loaded here: where each changed destination record belongs
    /// now. A list changed when a changed record left it or joined it; one
    /// that cannot be told (the read failed) is forgotten, as before.
    func forgetToManys(changedBy changes: ChangeSet) {
        let changed = Dictionary(grouping: changes.inserted + changes.updated + changes.deleted, by: \.entityName)
        let deleted = Set(changes.deleted)
        for entity in model.entities where entity.hasRelationships {
            for relationship in entity.relationships where relationship.isToMany {
                guard let ids = changed[relationship.destinationName] else { continue }
                // An owner being deleted here too: its save judges its `.deny`
                // rules (and collects its cascade) from its loaded lists, which
                // must not name a record the write moved away.
                let owners = identityMap.table(for: entity.type).objects.filter { owner in
                    let phase = owner.statePhase
                    guard phase == .managed || phase == .deleted, case .toMany = RelationGraph.slot(owner, relationship.index)
                    else { return false }
                    return true
                }
                guard !owners.isEmpty else { continue }
                let links = storedOwners(of: deleted.isEmpty ? ids : ids.filter { !deleted.contains($0) }, relationship)
                for owner in owners where links.map({ membershipChanged(owner, relationship.index, ids, $0) }) ?? true {
                    RelationGraph.forget(relationship.index, of: owner)
                }
            }
        }
    }

    /// Drops each pending many-to-many change that the write made too: the
    /// store already is as wanted, so it is no change any more, as a link
    /// unlinked and linked again here is none (Docs/Concurrency.md). Kept, a
    /// later opposite change here would cancel it and leave the store
    /// without what the context shows (model seed 152215: an unlink pushed
    /// by a child, the same unlink by a write, then the link made again).
    func dropPendingJoinsTheWriteMade(_ changes: ChangeSet) {
        guard !pendingJoins.isEmpty, !changes.updated.isEmpty else { return }
        let updated = Set(changes.updated)
        for (key, pending) in pendingJoins {
            let table = pending.table
            guard let source = pending.source.stateRowID, let destination = pending.destination.stateRowID,
                updated.contains(RecordID(entityName: table.sourceTable, rowID: source)),
                let stored = try? storedLink(table, source, destination), stored == pending.linked
            else { continue }
            pendingJoins[key] = nil
        }
    }

    /// Whether the store links `source` and `destination` through `table`.
    private func storedLink(_ table: JoinTable, _ source: Int64, _ destination: Int64) throws(LiteRecordError) -> Bool {
        let (a, b) = (SQLIdentifier(table.sourceColumn), SQLIdentifier(table.destinationColumn))
        let select = SelectStatement([a], from: SQLIdentifier(table.name), where: .equals(a) && .equals(b))
        return try reading("merging \(table.name)") { connection in
            try !connection.rows(select.sql, [.integer(source), .integer(destination)]).isEmpty
        }
    }

    /// Whether one of `ids` left or joined the owner's loaded list: it is
    /// in the list and the store no longer relates it to the owner, or the
    /// other way round.
    private func membershipChanged(_ owner: any Entity, _ index: Int, _ ids: [RecordID], _ links: [Int64: Set<Int64>]) -> Bool {
        guard let ownerRowID = owner.stateRowID, case .toMany(let members) = RelationGraph.slot(owner, index) else { return true }
        let listed = Set(members.compactMap { $0.stateRowID })
        return ids.contains { id in
            listed.contains(id.rowID) != (links[id.rowID]?.contains(ownerRowID) ?? false)
        }
    }

    /// For each of `ids` (records of the relationship's destination), the
    /// row ids of the records whose to-many holds it now; `nil` when the
    /// store cannot be read.
    private func storedOwners(of ids: [RecordID], _ relationship: ResolvedRelationship) -> [Int64: Set<Int64>]? {
        guard !ids.isEmpty else { return [:] }
        return try? storedOwners(ofRows: ids.map(\.rowID), relationship, "merging \(relationship.qualifiedName)")
    }

    /// For each of `rowIDs` (rows of the relationship's destination), the
    /// row ids of the records whose to-many holds it in the store now; `nil`
    /// for a relationship stored as this side's own foreign key.
    ///
    /// - Throws: the read's error, described as `operation`.
    func storedOwners(
        ofRows rowIDs: [Int64], _ relationship: ResolvedRelationship, _ operation: @autoclosure () -> String
    ) throws(LiteRecordError) -> [Int64: Set<Int64>]? {
        let sql: String
        switch relationship.storage {
        case .inverseForeignKey(let column):
            sql =
                "SELECT \(SQLIdentifier.rowID), \(SQLIdentifier(column)) FROM \(SQLIdentifier(relationship.destinationName)) WHERE \(SQLIdentifier.rowID) IN (\(WhereClause.jsonArrayValues))"
        case .joinTable(let table):
            let member = SQLIdentifier(table.destinationColumn)
            sql = "SELECT \(member), \(SQLIdentifier(table.sourceColumn)) FROM \(SQLIdentifier(table.name)) WHERE \(member) IN (\(WhereClause.jsonArrayValues))"
        case .foreignKey:
            return nil
        }
        let rows = try reading(operation()) { connection in try connection.rows(sql, [Self.jsonArray(rowIDs)]) }
        var owners: [Int64: Set<Int64>] = [:]
        for row in rows {
            guard row.count == 2, case .integer(let member) = row[0], case .integer(let owner) = row[1] else { continue }
            owners[member, default: []].insert(owner)
        }
        return owners
    }
}
