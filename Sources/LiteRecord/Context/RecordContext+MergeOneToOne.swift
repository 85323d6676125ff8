extension RecordContext {
    /// After a merge: a one-to-one changed here, and not saved yet, keeps its
    /// pairing over the write's (the merge never drops a pending change). A
    /// record the write paired with a partner whose side this context
    /// changed to name another object (or none) is displaced, as the setter
    /// displaces the partner's former partner, reading it if it is not at
    /// hand: its side reads `nil` and its save clears the column. Without
    /// this, two objects claimed one partner in memory (or a row never read
    /// still named it in the store), and deleting that partner cascaded to
    /// one of them and left the other dangling (model seed 12772).
    ///
    /// Only the sides the write could have paired are looked up: those of
    /// an entity whose rows it updated. A merge of a write that touched no
    /// one-to-one reads nothing.
    ///
    /// Docs/Concurrency.md, "The merge into `mainContext` after `write {}`".
    func displaceMergedOneToOnes(_ changes: ChangeSet) {
        let touched = Set(changes.updated.map(\.entityName))
        guard
            model.entities.contains(where: { entity in
                entity.relationships.contains { $0.isOneToOne && touched.contains($0.destinationName) }
            })
        else { return }
        // A pending deletion whose side was changed here keeps its pairing
        // too: the record the write paired with it is displaced, not taken
        // along by its rules (model seed 230357 at length 80). Only that
        // record: one refreshed back here is left as it is, as with no merge
        // (seed 230074).
        let deleting = lists.deleted.filter { $0.stateBelongs(to: self) && $0.statePhase == .deleted }
        let written = deleting.isEmpty ? [] : Set(changes.updated)
        for partner in updatedObjects + deleting where partner.statePhase != .inserted {
            guard let rowID = partner.stateRowID, let entity = model.entity(for: type(of: partner)) else { continue }
            for index in entity.toOneIndexes {
                let relationship = entity.relationships[index]
                guard relationship.isOneToOne, touched.contains(relationship.destinationName), let column = relationship.columnIndex,
                    let inverse = relationship.inverseIndex, partner.withState({ $0.changes.contains(column) })
                else { continue }
                let kept = Self.namedRowID(partner, index)
                do {
                    for object in try storedPartners(relationship.destination, naming: rowID, inverse, but: kept) {
                        // Only an object whose side here names the partner: a
                        // held one still showing an older pairing waits for the
                        // merge of the write that changed it.
                        guard object.statePhase == .managed, partner.statePhase == .managed || object.recordID.map(written.contains) == true,
                            let side = RelationGraph.relationship(of: object, at: inverse),
                            let sideColumn = side.columnIndex, !object.withState({ $0.changes.contains(sideColumn) }),
                            Self.namedRowID(object, inverse) == .some(rowID)
                        else { continue }
                        RelationGraph.assignToOne(object, side, nil)
                    }
                } catch {
                    store.logger.warning("merging a one-to-one failed", metadata: ["record": "\(rowID)", "error": "\(error)"])
                }
            }
        }
    }

    /// The objects of `type` whose side `index` of a one-to-one names the
    /// row `rowID` in the store, but `kept`'s: an object this context holds
    /// is taken as it is (a fetch would refresh it, which the merge does only
    /// for what the write changed), one it does not hold is read.
    private func storedPartners<T: Entity>(_ type: T.Type, naming rowID: Int64, _ index: Int, but kept: Int64??) throws -> [any Entity] {
        guard let entity = model.entity(for: type), entity.relationships.indices.contains(index) else { return [] }
        let sql = SelectStatement([.rowID], from: entity.table, where: .equals(SQLIdentifier(entity.relationships[index].name))).sql
        let rows = try reading("merging \(entity.name).\(entity.relationships[index].name)") { connection in
            try connection.rows(sql, [.integer(rowID)])
        }
        var partners: [any Entity] = []
        for row in rows {
            guard case .integer(let id)? = row.first, kept != .some(id) else { continue }
            if let held = registeredObject(type, rowID: id) {
                partners.append(held)
            } else if let read = try existingObject(with: RecordID(entityName: entity.name, rowID: id), as: type) {
                partners.append(read)
            }
        }
        return partners
    }
}

extension RecordContext {
    /// The row id a to-one's slot names in memory: `.some(nil)` for none,
    /// `nil` when it is not read (or names an object without a row yet).
    static func namedRowID(_ object: any Entity, _ index: Int) -> Int64?? {
        switch RelationGraph.slot(object, index) {
        case .fault(let rowID): return .some(rowID)
        case .toOne(let target?): return target.stateRowID.map { .some($0) } ?? nil
        case .toOne(nil): return .some(nil)
        case .unloaded, .toMany: return nil
        }
    }
}
