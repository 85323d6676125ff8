extension RecordContext {
    /// A one-to-one side of `object` changed here, and the partner it names
    /// in memory before a refresh discards the change.
    struct DiscardedPairing {
        let relationship: ResolvedRelationship
        let inverse: Int
        let partner: (any Entity)?
    }

    /// The one-to-one sides of `object` changed here and not saved yet,
    /// with the partner each names in memory.
    func changedOneToOnes(of object: any Entity) -> [DiscardedPairing] {
        guard let entity = model.entity(for: type(of: object)), entity.hasRelationships else { return [] }
        let changes = object.withState({ $0.changes })
        var pairings: [DiscardedPairing] = []
        for index in entity.toOneIndexes {
            let relationship = entity.relationships[index]
            guard relationship.isOneToOne, let column = relationship.columnIndex, changes.contains(column),
                let inverse = relationship.inverseIndex
            else { continue }
            pairings.append(DiscardedPairing(relationship: relationship, inverse: inverse, partner: RelationGraph.toOneInMemory(object, index)))
        }
        return pairings
    }

    /// Re-reads `object`, discarding its unsaved changes (`refresh`), and
    /// keeps both sides of its one-to-ones agreeing: a pairing made here is
    /// a change of both objects, and discarding it on one side discards it
    /// on the other. The partner the object named here lets go of it, and
    /// the stored partner names it again — unless that partner was paired
    /// with another object here since, a change of its own the refresh does
    /// not discard: then the object is displaced, its side reads `nil` and
    /// its next save clears the column. Without this the two sides named
    /// different partners after the refresh, and deleting one cascaded by
    /// its own side where the other named something else (model seeds
    /// 31172 and 34914).
    ///
    /// Docs/Concurrency.md, "Conflicts and merge policies".
    func refetchDiscardingChanges(_ object: any Entity) throws {
        let pairings = changedOneToOnes(of: object)
        try refetch(object)
        guard !pairings.isEmpty, object.statePhase == .managed, object.stateBelongs(to: self) else { return }
        for pairing in pairings { try settleDiscardedPairing(of: object, pairing) }
    }

    private func settleDiscardedPairing(of object: any Entity, _ pairing: DiscardedPairing) throws {
        let stored = Self.namedRowID(object, pairing.relationship.index)
        // The partner named here lets go of the object: its side reads what
        // its row holds when that is no partner, else nil (a change of its
        // own, made when it was paired with the object).
        if let partner = pairing.partner, partner.statePhase != .deleted,
            partner.stateRowID.map({ stored != .some($0) }) ?? true,
            RelationGraph.toOneInMemory(partner, pairing.inverse) === object,
            let side = RelationGraph.relationship(of: partner, at: pairing.inverse)
        {
            RelationGraph.assignToOne(partner, side, nil)
            if try storedSideIsEmpty(of: partner, side) { clearChange(of: partner, side) }
        }
        // The stored partner, when held here, names the object again.
        guard case .some(let storedRowID?) = stored,
            let held = registeredObject(pairing.relationship.destination, rowID: storedRowID), held !== pairing.partner,
            held.statePhase == .managed, let side = RelationGraph.relationship(of: held, at: pairing.inverse)
        else { return }
        // Only a side changed here speaks for this context: an unchanged one
        // naming another object is a stale read (another writer's pairing not
        // merged), which the object's next read corrects, not a pairing that
        // displaces the refreshed object.
        guard let sideColumn = side.columnIndex, held.withState({ $0.changes.contains(sideColumn) }) else { return }
        switch RelationGraph.slot(held, pairing.inverse) {
        case .toOne(nil), .fault(nil):
            RelationGraph.assignToOne(held, side, object)
            clearChange(of: held, side)
        case .toOne(let other?) where other !== object:
            RelationGraph.assignToOne(object, pairing.relationship, nil)
        case .fault(let other?) where other != object.stateRowID:
            RelationGraph.assignToOne(object, pairing.relationship, nil)
        default:
            break
        }
    }

    /// Whether the row of `object` holds no partner in `side`'s column (or
    /// is gone). A child context holds its parent's values, not the row's:
    /// there the change stays, and the push writes the same value.
    private func storedSideIsEmpty(of object: any Entity, _ side: ResolvedRelationship) throws -> Bool {
        guard parent == nil, let rowID = object.stateRowID, let entity = model.entity(for: type(of: object)) else { return false }
        let sql = SelectStatement([SQLIdentifier(side.name)], from: entity.table, where: .rowID).sql
        let rows = try reading("refreshing \(entity.name).\(side.name)") { connection in try connection.rows(sql, [.integer(rowID)]) }
        guard let value = rows.first?.first else { return true }
        return value == .null
    }

    /// Takes back the change bit of a side set to what its row holds.
    private func clearChange(of object: any Entity, _ side: ResolvedRelationship) {
        guard parent == nil, let column = side.columnIndex else { return }
        object.recordState.changes.remove(column)
        object.recordState.readToOnes?[column] = nil
    }
}
