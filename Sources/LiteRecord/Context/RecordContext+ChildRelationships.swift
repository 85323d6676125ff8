/// How a child context reads relationships: the store's links with the
/// unsaved relationship changes of its ancestors laid over them, as
/// `overlayAncestors(_:rowID:)` lays their unsaved attribute values over an
/// object it reads.
///
/// The rule is the attributes' one: an object takes the to-ones of the
/// nearest ancestor holding its record; a to-many is what the store relates
/// to its owner, less the objects whose to-one (as the child sees it) names
/// another owner, plus the objects an ancestor pointed at the owner, and with
/// the many-to-many links every ancestor added or removed (the farthest
/// first, so a nearer ancestor's change wins). Records an ancestor deleted
/// are not there; records an ancestor inserted and has not saved are not
/// visible, so a to-one naming one reads `nil`. The child's own unsaved
/// changes are laid over all this as in any context.
///
/// Only child contexts run any of it: every entry point is behind a
/// `parent != nil` check.
extension RecordContext {
    /// The contexts above this one, the parent first.
    var ancestors: [RecordContext] {
        var chain: [RecordContext] = []
        var next = parent
        while let context = next {
            chain.append(context)
            next = context.parent
        }
        return chain
    }

    // MARK: To-ones

    /// For a child: the to-ones (one per entry of `entity.toOneIndexes`) of
    /// the nearest ancestor holding the object's record, as this context
    /// sees them; `nil` when no ancestor holds it, and a `nil` entry where
    /// the ancestor has not read that to-one (the stored value stands).
    func ancestorToOnes(of object: any Entity, _ entity: EntityDescription) -> [RelationValue?]? {
        guard let rowID = object.stateRowID, !entity.toOneIndexes.isEmpty,
            let (context, held) = nearestAncestorHolding(type(of: object), rowID: rowID),
            held.statePhase != .deleted, !held.recordState.relations.isEmpty
        else { return nil }
        return entity.toOneIndexes.map { inherited(RelationGraph.slot(held, $0), from: context) }
    }

    /// For a child: one to-one of the nearest ancestor holding `object`'s
    /// record, for a slot of this child not read yet; `nil` when no ancestor
    /// read it.
    func ancestorToOne(of object: any Entity, _ relationship: ResolvedRelationship) -> RelationValue? {
        guard let entity = model.entity(for: type(of: object)),
            let position = entity.toOneIndexes.firstIndex(of: relationship.index),
            let values = ancestorToOnes(of: object, entity)
        else { return nil }
        return values[position]
    }

    /// Whether the nearest ancestor holding the object names, in the to-one,
    /// a record this context cannot see (its unsaved insert, or a record it
    /// deleted): the to-one reads nil here, but is not nil there.
    func ancestorHidesTarget(of object: any Entity, _ relationship: ResolvedRelationship) -> Bool {
        guard parent != nil, let rowID = object.stateRowID,
            let (_, held) = nearestAncestorHolding(type(of: object), rowID: rowID)
        else { return false }
        switch RelationGraph.slot(held, relationship.index) {
        case .toOne(_?), .fault(_?): return true
        case .toOne(nil), .fault(nil), .unloaded, .toMany: return false
        }
    }

    /// An ancestor's to-one slot as this context sees it.
    private func inherited(_ slot: RelationValue, from ancestor: RecordContext) -> RelationValue? {
        switch slot {
        case .fault(let rowID):
            return .fault(rowID)
        case .toOne(nil):
            return .fault(nil)
        case .toOne(let value?):
            let state = value.recordState
            if state.phase == .deleted { return .fault(nil) }
            if let rowID = state.rowID { return .fault(rowID) }
            // New in the ancestor: invisible here, unless it is the parent's
            // copy of an object this context inserted and pushed.
            if ancestor === parent, let pair = pushed.values.first(where: { $0.parent === value }) {
                return .toOne(pair.child)
            }
            return .fault(nil)
        case .unloaded, .toMany:
            return nil
        }
    }

    /// Whether an ancestor deleted the record (and so this context does not
    /// see it), found without reading the store.
    func ancestorDeleted(_ type: any Entity.Type, rowID: Int64) -> Bool {
        nearestAncestorHolding(type, rowID: rowID)?.object.statePhase == .deleted
    }

    /// The nearest ancestor holding the record, and its object for it: whose
    /// unsaved state a child sees (attributes, to-ones, a deletion).
    func nearestAncestorHolding(_ type: any Entity.Type, rowID: Int64) -> (context: RecordContext, object: any Entity)? {
        var next = parent
        while let context = next {
            if let held = context.registeredObject(type, rowID: rowID) { return (context, held) }
            next = context.parent
        }
        return nil
    }

    // MARK: To-manys

    /// For a child: `lists` (one per owner, what the store relates to it)
    /// with the ancestors' unsaved changes applied. Objects to add that this
    /// context does not hold yet are read with one statement for all owners.
    func overlayAncestors(
        _ lists: [[any Entity]], of owners: [any Entity], _ relationship: ResolvedRelationship
    ) throws(LiteRecordError) -> [[any Entity]] {
        let chain = ancestors
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverseIndex else { return lists }
            return try overlayToOnes(lists, of: owners, relationship, inverse, chain)
        case .joinTable(let table):
            return try overlayLinks(lists, of: owners, relationship, table, chain)
        case .foreignKey:
            return lists
        }
    }

    /// Positions of the owners, by row id.
    private static func positions(of owners: [any Entity]) -> [Int64: Int] {
        var positions: [Int64: Int] = [:]
        for (position, owner) in owners.enumerated() {
            if let rowID = owner.stateRowID { positions[rowID] = position }
        }
        return positions
    }

    /// The row id of the owner a to-one slot names, if it names a saved one.
    private static func namedRowID(_ slot: RelationValue) -> Int64? {
        switch slot {
        case .fault(let rowID): rowID
        case .toOne(let value?): value.statePhase == .deleted ? nil : value.stateRowID
        case .toOne(nil), .unloaded, .toMany: nil
        }
    }

    /// A to-many read through the destination's to-one: objects leave when
    /// their to-one names another owner here, and join when an ancestor
    /// pointed them at an owner.
    private func overlayToOnes(
        _ lists: [[any Entity]], of owners: [any Entity], _ relationship: ResolvedRelationship, _ inverse: Int,
        _ chain: [RecordContext]
    ) throws(LiteRecordError) -> [[any Entity]] {
        let positions = Self.positions(of: owners)
        let destination = ObjectIdentifier(relationship.destination)
        // The saved objects an ancestor pointed at one of the owners.
        var candidates: [Int64] = []
        var seen = Set<Int64>()
        for context in chain {
            for object in context.lists.updated where ObjectIdentifier(type(of: object)) == destination {
                let state = object.recordState
                guard state.phase == .managed, state.belongs(to: context), let rowID = state.rowID,
                    let owner = Self.namedRowID(RelationGraph.slot(object, inverse)), positions[owner] != nil,
                    seen.insert(rowID).inserted
                else { continue }
                candidates.append(rowID)
            }
        }
        var result = lists
        for (position, owner) in owners.enumerated() {
            guard let rowID = owner.stateRowID else { continue }
            result[position].removeAll { related in
                switch RelationGraph.slot(related, inverse) {
                case .toOne(let value): return value !== owner
                case .fault(let id): return id != rowID
                case .unloaded, .toMany: return false
                }
            }
        }
        guard !candidates.isEmpty else { return result }
        for object in try objects(relationship.destination, rowIDs: candidates) {
            let slot = RelationGraph.slot(object, inverse)
            guard let owner = Self.namedRowID(slot), let position = positions[owner] else { continue }
            if case .toOne(let value?) = slot, value !== owners[position] { continue }
            if !result[position].contains(where: { $0 === object }) { result[position].append(object) }
        }
        return result
    }

    /// A many-to-many: the links every ancestor added or removed, the
    /// farthest ancestor first.
    private func overlayLinks(
        _ lists: [[any Entity]], of owners: [any Entity], _ relationship: ResolvedRelationship, _ table: JoinTable,
        _ chain: [RecordContext]
    ) throws(LiteRecordError) -> [[any Entity]] {
        guard chain.contains(where: { !$0.pendingJoins.isEmpty }) else { return lists }
        let positions = Self.positions(of: owners)
        // Per owner: the other side's row id, linked or unlinked.
        var changes: [Int: [Int64: Bool]] = [:]
        for context in chain.reversed() {
            for pending in context.pendingJoins.values where pending.table.name == table.name {
                let forward = pending.table.sourceColumn == table.sourceColumn && pending.table.sourceTable == table.sourceTable
                let (mine, other) = forward ? (pending.source, pending.destination) : (pending.destination, pending.source)
                guard let mineID = mine.stateRowID, let otherID = other.stateRowID,
                    let position = positions[mineID], type(of: mine).entityName == relationship.entityName
                else { continue }
                changes[position, default: [:]][otherID] = pending.linked
            }
        }
        guard !changes.isEmpty else { return lists }
        var result = lists
        var wanted: [Int64] = []
        for (position, linked) in changes {
            result[position].removeAll { related in
                guard let rowID = related.stateRowID else { return false }
                return linked[rowID] == false
            }
            let present = Set(result[position].compactMap(\.stateRowID))
            for (rowID, isLinked) in linked where isLinked && !present.contains(rowID) { wanted.append(rowID) }
        }
        guard !wanted.isEmpty else { return result }
        let found = try objects(relationship.destination, rowIDs: Self.distinct(wanted))
        var byRowID: [Int64: any Entity] = [:]
        for object in found {
            if let rowID = object.stateRowID { byRowID[rowID] = object }
        }
        for (position, linked) in changes.sorted(by: { $0.key < $1.key }) {
            let present = Set(result[position].compactMap(\.stateRowID))
            for rowID in linked.keys.sorted() where linked[rowID] == true && !present.contains(rowID) {
                if let object = byRowID[rowID] { result[position].append(object) }
            }
        }
        return result
    }

    /// This context's objects for `rowIDs` (those it does not hold read with
    /// one statement), without the ones deleted here or by an ancestor.
    func objects(_ type: any Entity.Type, rowIDs: [Int64]) throws(LiteRecordError) -> [any Entity] {
        let missing = rowIDs.filter { registeredObject(type, rowID: $0) == nil }
        if !missing.isEmpty {
            _ = try fetchAny(type, Self.rowIDQuery(SQLIdentifier.rowID.quoted, missing))
        }
        return rowIDs.compactMap { rowID in
            guard let object = registeredObject(type, rowID: rowID), object.statePhase != .deleted else { return nil }
            return object
        }
    }
}

extension RecordContext {
    // MARK: Counting what a push leaves

    /// For a child: how many members of the saved `owner`'s to-many the
    /// ancestors inserted and have not saved. This context cannot see them,
    /// so its list lacks them, but the parent's list holds them, and a push
    /// leaves them there: the bounds of a counted list hold for the list the
    /// push leaves (Docs/Relationships.md), so its check counts them too. A
    /// copy an ancestor holds of an object this context (or the ancestor
    /// below it) pushed is no such insert: it is seen here already.
    func unseenAncestorInserts(in owner: any Entity, _ relationship: ResolvedRelationship, excluding doomed: Set<ObjectIdentifier> = []) -> Int {
        guard parent != nil, let ownerRowID = owner.stateRowID else { return 0 }
        let ownerType = ObjectIdentifier(type(of: owner))
        func names(_ target: any Entity) -> Bool {
            ObjectIdentifier(type(of: target)) == ownerType && target.stateRowID == ownerRowID
        }
        var count = 0
        var below: RecordContext = self
        for context in ancestors {
            let copies = Set(below.pushed.values.map { ObjectIdentifier($0.parent) })
            below = context
            func unseen(_ object: any Entity) -> Bool {
                object.statePhase == .inserted && object.stateBelongs(to: context) && !copies.contains(ObjectIdentifier(object))
                    && !doomed.contains(ObjectIdentifier(object))
            }
            switch relationship.storage {
            case .inverseForeignKey:
                guard let inverse = relationship.inverseIndex else { return count }
                let destination = ObjectIdentifier(relationship.destination)
                for object in context.inserted where ObjectIdentifier(type(of: object)) == destination && unseen(object) {
                    if case .toOne(let target?) = RelationGraph.slot(object, inverse), names(target) { count += 1 }
                }
            case .joinTable(let table):
                for pending in context.pendingJoins.values where pending.linked && pending.table.name == table.name {
                    let forward = pending.table.sourceColumn == table.sourceColumn && pending.table.sourceTable == table.sourceTable
                    let (mine, other) = forward ? (pending.source, pending.destination) : (pending.destination, pending.source)
                    if names(mine), unseen(other) { count += 1 }
                }
            case .foreignKey:
                return count
            }
        }
        return count
    }
}
