/// A `.cascade` to-many of a deleted saved object that was not loaded when
/// the object was deleted, in a root context: the context does not read the
/// related objects then. The save deletes their rows in the store with a
/// `SELECT` and a `DELETE` per relationship for every such object
/// (``SaveTransaction/deleteCascades(sparingHeldRows:)``), and still names each row in its
/// change set. Whatever needs the doomed objects themselves before the save
/// — ``RecordContext/deletedObjects``, a fetch of their entity — reads them
/// first (``RecordContext/loadPendingCascades()``), and the save first
/// deletes in memory those this context holds
/// (``RecordContext/deleteHeldCascadeTargets()``).
struct PendingCascade {
    /// The deleted object.
    let owner: any Entity
    /// The to-many's index among the owner entity's relationships.
    let index: Int
}

/// The pending cascades of one relationship, for the save: the row ids of
/// the deleted owners whose related rows it deletes.
struct CascadeGroup {
    let relationship: ResolvedRelationship
    var owners: [any Entity]
    var rowIDs: [Int64]
}

/// What the store-side cascades of a save deleted and cleared.
struct CascadeOutcome {
    /// Every row deleted, by entity name.
    var doomed: [String: Set<Int64>] = [:]
    /// The same rows as record ids, in the order they were deleted.
    var deleted: [RecordID] = []
    /// Rows that stay whose to-one named a deleted row: now `NULL`, and at
    /// a new version.
    var nullified: [(id: RecordID, column: Int)] = []
}

extension RecordContext {
    /// The pending cascades whose owner this context still deletes, by
    /// relationship, in the order they were first met.
    func pendingCascadeGroups() -> [CascadeGroup] { pendingCascadeGroups(pendingCascades[...]) }

    /// ``pendingCascadeGroups()`` of some of the pending cascades.
    private func pendingCascadeGroups(_ cascades: ArraySlice<PendingCascade>) -> [CascadeGroup] {
        struct Key: Hashable {
            let type: ObjectIdentifier
            let index: Int
        }
        var groups: [CascadeGroup] = []
        var positions: [Key: Int] = [:]
        for cascade in cascades {
            let state = cascade.owner.recordState
            guard state.belongs(to: self), state.phase == .deleted, let rowID = state.rowID else { continue }
            let key = Key(type: ObjectIdentifier(type(of: cascade.owner)), index: cascade.index)
            if let position = positions[key] {
                groups[position].owners.append(cascade.owner)
                groups[position].rowIDs.append(rowID)
            } else {
                guard case .some(let found) = model.relationship(of: type(of: cascade.owner), at: cascade.index),
                    let relationship = found
                else { continue }
                positions[key] = groups.count
                groups.append(CascadeGroup(relationship: relationship, owners: [cascade.owner], rowIDs: [rowID]))
            }
        }
        return groups
    }

    /// Whether `object`, of the destination of `group`'s relationship,
    /// points at one of its owners in memory; `unknown` answers for a to-one
    /// this context never read.
    private static func pointsAtOwner(
        _ object: any Entity, _ inverse: Int, owners: Set<ObjectIdentifier>, rowIDs: Set<Int64>, unknown: Bool
    ) -> Bool {
        switch RelationGraph.slot(object, inverse) {
        case .toOne(let value?):
            return owners.contains(ObjectIdentifier(value))
        case .fault(let rowID?):
            return rowIDs.contains(rowID)
        case .unloaded:
            return unknown
        case .toOne(nil), .fault(nil), .toMany:
            return false
        }
    }

    /// Applies the delete rules to the objects this context holds — saved,
    /// inserted or changed — that the pending cascades take along, as
    /// loading the to-manys would have: the save deletes them as it deletes
    /// any object (checking their versions), and the store-side cascade
    /// deletes only rows no object here stands for. Repeats for the
    /// cascades these deletions add.
    func deleteHeldCascadeTargets() {
        var handled = 0
        while handled < pendingCascades.count {
            let groups = pendingCascadeGroups(pendingCascades[handled...])
            handled = pendingCascades.count
            for group in groups {
                guard let inverse = group.relationship.inverseIndex else { continue }
                let destination = ObjectIdentifier(group.relationship.destination)
                var candidates = identityMap.table(for: group.relationship.destination).objects
                for object in inserted + lists.updated where ObjectIdentifier(type(of: object)) == destination {
                    candidates.append(object)
                }
                guard !candidates.isEmpty else { continue }
                let owners = Set(group.owners.map { ObjectIdentifier($0) })
                let rowIDs = Set(group.rowIDs)
                for object in candidates where object.recordState.phase != .deleted {
                    if Self.pointsAtOwner(object, inverse, owners: owners, rowIDs: rowIDs, unknown: false) {
                        deleteApplyingRules(object)
                    }
                }
            }
        }
    }

    /// Reads the objects the pending cascades take along and deletes them in
    /// this context, applying their own delete rules, as a deletion with the
    /// to-manys loaded does: one statement per relationship, for all their
    /// owners. Called when something needs the objects themselves before the
    /// save (``deletedObjects``, a fetch of their entity). A read that fails
    /// is reported by the next save, as a to-many that cannot be loaded is.
    func loadPendingCascades() {
        while !pendingCascades.isEmpty {
            let groups = pendingCascadeGroups()
            pendingCascades.removeAll()
            for group in groups {
                guard case .inverseForeignKey(let column) = group.relationship.storage,
                    let inverse = group.relationship.inverseIndex
                else { continue }
                var query = SQLQuery()
                query.whereSQL = "\(Connection.quote(column)) IN (SELECT value FROM json_each(?))"
                query.arguments = [Self.jsonArray(group.rowIDs)]
                var doomed: [any Entity]
                do {
                    doomed = try fetchAny(group.relationship.destination, query)
                } catch {
                    let failure = LiteRecordError(
                        error.kind, "\(group.relationship.qualifiedName) could not be loaded: \(error.message)")
                    store.logger.error("a relationship could not be loaded", metadata: ["error": "\(failure)"])
                    pendingErrors.append(failure)
                    continue
                }
                let owners = Set(group.owners.map { ObjectIdentifier($0) })
                let rowIDs = Set(group.rowIDs)
                // As `overlay` does for a loaded to-many: stored objects pointed
                // elsewhere in memory stay, unsaved ones pointed here join.
                doomed.removeAll { !Self.pointsAtOwner($0, inverse, owners: owners, rowIDs: rowIDs, unknown: true) }
                let destination = ObjectIdentifier(group.relationship.destination)
                for object in inserted + lists.updated where ObjectIdentifier(type(of: object)) == destination {
                    if Self.pointsAtOwner(object, inverse, owners: owners, rowIDs: rowIDs, unknown: false) {
                        doomed.append(object)
                    }
                }
                for object in doomed where object.recordState.phase != .deleted { deleteApplyingRules(object) }
            }
        }
    }

    /// Reads the pending cascades first when one of them deletes objects of
    /// `type`: a fetch must leave out the objects a deletion took along.
    func loadPendingCascades(reaching type: any Entity.Type) {
        let id = ObjectIdentifier(type)
        let reaches = pendingCascades.contains { cascade in
            guard case .some(let found) = model.relationship(of: Swift.type(of: cascade.owner), at: cascade.index),
                let relationship = found
            else { return false }
            return ObjectIdentifier(relationship.destination) == id
        }
        if reaches { loadPendingCascades() }
    }

    /// After the commit: forgets the objects of the rows the store-side
    /// cascades deleted, moves those of the rows they cleared a to-one of to
    /// the new version, and empties what pointed at deleted rows.
    func applyCascades(_ outcome: CascadeOutcome) {
        for (name, rowIDs) in outcome.doomed {
            guard let type = model.entity(named: name)?.type else { continue }
            // Most doomed rows were never read into this context.
            guard identityMap.table(for: type).count > 0 else { continue }
            for rowID in rowIDs {
                if let object = registeredObject(type, rowID: rowID) { unregister(object) }
            }
        }
        recordNullified(outcome.nullified)
        forgetDeletedReferences(outcome.doomed)
    }
}

extension SaveTransaction {
    /// The store-side part of the plan's cascades, before the save's own
    /// deletions and updates (`sparingHeldRows`: rows of objects the plan
    /// deletes or updates itself are left to it, so a row this context moved
    /// to another owner stays) or after them:
    /// for each relationship, one `SELECT` of the row ids and one
    /// `DELETE … WHERE <foreign key> IN (…)` for all the owners, when the
    /// destination has no rule of its own to follow; otherwise the rows are
    /// found first and followed
    /// through their `.cascade` and `.deny` rules, as `deleteAll(matching:)`
    /// does. Owners whose deletion a conflict took back take nothing along.
    ///
    /// - Throws: `.validationFailed` for a `.deny` rule that still relates a
    ///   doomed row to one that stays; whatever a statement throws.
    func deleteCascades(sparingHeldRows: Bool) throws -> CascadeOutcome? {
        var groups = plan.cascades
        guard !groups.isEmpty else { return nil }
        var held: [String: [Int64]] = [:]
        if sparingHeldRows {
            let destinations = Set(groups.map { ObjectIdentifier($0.relationship.destination) })
            for row in plan.deletes + plan.updates where destinations.contains(row.entity) {
                held[type(of: row.object).entityName, default: []].append(row.rowID)
            }
        }
        if !resolved.isEmpty {
            for position in groups.indices {
                let group = groups[position]
                var rowIDs: [Int64] = []
                for (owner, rowID) in zip(group.owners, group.rowIDs) {
                    switch resolved[ObjectIdentifier(owner)]?.resolution {
                    case .keep?, .reread(wrote: false)?: continue
                    case .reread(wrote: true)?, .forget?, nil: rowIDs.append(rowID)
                    }
                }
                groups[position].rowIDs = rowIDs
            }
        }
        return try context.deleteCascades(groups, planned: plan.deletes, sparing: held, connection)
    }
}
