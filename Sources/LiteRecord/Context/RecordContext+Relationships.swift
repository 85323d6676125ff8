/// A pair of objects of one join table.
struct JoinKey: Hashable {
    let table: String
    let source: ObjectIdentifier
    let destination: ObjectIdentifier
}

/// A many-to-many link to write at the next save.
struct PendingJoin {
    let table: JoinTable
    let source: any Entity
    let destination: any Entity
    /// `true` to add the pair, `false` to remove it.
    let linked: Bool
}

extension RecordContext {
    // MARK: Loading

    /// The object a to-one's row id names: the registered one, or read with
    /// one statement; `.some(nil)` when the record is gone from the store.
    /// `nil` when there is nothing to keep: the record is deleted, unsaved,
    /// in this context or an ancestor (it reads as none, but a rollback
    /// brings it back, so the caller keeps the row id), or it cannot be read
    /// (the error is reported).
    func loadToOne(_ relationship: ResolvedRelationship, rowID: Int64) -> (any Entity)?? {
        if let registered = registeredObject(relationship.destination, rowID: rowID) {
            return registered.statePhase == .deleted ? nil : .some(registered)
        }
        // A child does not see what an ancestor deleted: no need to read it.
        if parent != nil, ancestorDeleted(relationship.destination, rowID: rowID) { return nil }
        do {
            return .some(try fetchOne(relationship.destination, rowID: rowID))
        } catch {
            reportLoadFailure(relationship, error)
            return nil
        }
    }

    private func fetchOne<D: Entity>(_ type: D.Type, rowID: Int64) throws(LiteRecordError) -> (any Entity)? {
        try existingObject(with: RecordID(entityName: D.entityName, rowID: rowID), as: D.self)
    }

    /// The stored row id of a to-one, for an object read without its columns;
    /// `nil` (with the error reported) when it cannot be read.
    func loadForeignKey(of object: any Entity, _ relationship: ResolvedRelationship) -> Int64?? {
        guard let rowID = object.stateRowID, case .foreignKey(let column) = relationship.storage else { return nil }
        let sql = SelectStatement([SQLIdentifier(column)], from: SQLIdentifier(relationship.entityName), where: .rowID).sql
        do {
            let value = try reading("loading \(relationship.qualifiedName)") { connection in
                try connection.scalar(sql, [.integer(rowID)])
            }
            if case .integer(let id)? = value { return .some(id) }
            return .some(nil)
        } catch {
            reportLoadFailure(relationship, error)
            return nil
        }
    }

    /// The objects of a saved object's to-many: one statement, then the
    /// unsaved changes of this context laid over it.
    func loadToMany(of object: any Entity, _ relationship: ResolvedRelationship) -> [any Entity]? {
        guard let rowID = object.stateRowID else { return [] }
        var query = SQLQuery()
        switch relationship.storage {
        case .inverseForeignKey(let column):
            query.whereSQL = WhereClause.equals(SQLIdentifier(column)).sql
        case .joinTable(let table):
            let linked = SelectStatement(
                [SQLIdentifier(table.destinationColumn)], from: SQLIdentifier(table.name), where: .equals(SQLIdentifier(table.sourceColumn)))
            query.whereSQL = WhereClause.column(.rowID, in: linked.sql).sql
        case .foreignKey:
            return []
        }
        query.arguments = [.integer(rowID)]
        var loaded: [any Entity]
        do {
            loaded = try fetchAny(relationship.destination, query)
            if parent != nil { loaded = try overlayAncestors([loaded], of: [object], relationship).first ?? loaded }
        } catch {
            reportLoadFailure(relationship, error)
            return nil
        }
        return overlay(loaded, of: object, relationship)
    }

    func fetchAny<D: Entity>(_ type: D.Type, _ query: SQLQuery) throws(LiteRecordError) -> [any Entity] {
        let objects = try fetch(D.self, query)
        // A plain loop: `map` here, unspecialized, costs several times more per object.
        var result: [any Entity] = []
        result.reserveCapacity(objects.count)
        for object in objects { result.append(object) }
        return result
    }

    /// `stored` (what the store relates to `object`) with this context's
    /// unsaved changes applied: objects whose to-one was pointed elsewhere
    /// leave, objects pointed at `object` join, as do pending links.
    func overlay(_ stored: [any Entity], of object: any Entity, _ relationship: ResolvedRelationship) -> [any Entity] {
        var result = stored
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverseIndex else { return result }
            result.removeAll { related in
                if case .toOne(let value) = RelationGraph.slot(related, inverse) { return value !== object }
                return false
            }
            // Nothing unsaved can join: no set to build (a prefetch overlays
            // every fetched object).
            guard !inserted.isEmpty || !lists.updated.isEmpty else { return result }
            var present = Set(result.map { ObjectIdentifier($0) })
            let destination = ObjectIdentifier(relationship.destination)
            for candidate in inserted + lists.updated where ObjectIdentifier(type(of: candidate)) == destination {
                guard case .toOne(let value) = RelationGraph.slot(candidate, inverse), value === object,
                    candidate.statePhase != .deleted, present.insert(ObjectIdentifier(candidate)).inserted
                else { continue }
                result.append(candidate)
            }
        case .joinTable(let table):
            var present = Set(result.map { ObjectIdentifier($0) })
            for pending in pendingJoins.values where pending.table.name == table.name {
                let (mine, other) =
                    pending.table.sourceColumn == table.sourceColumn && pending.table.sourceTable == table.sourceTable
                    ? (pending.source, pending.destination) : (pending.destination, pending.source)
                guard mine === object else { continue }
                if pending.linked {
                    // No pending link names a deleted object (a deletion
                    // drops them, noteJoin ignores one made after it); a link
                    // to an object forgotten since (deleted elsewhere) or
                    // detached shows nothing: a forgotten one's save is refused.
                    guard other.stateBelongs(to: self) else { continue }
                    if present.insert(ObjectIdentifier(other)).inserted { result.append(other) }
                } else {
                    result.removeAll { $0 === other }
                    present.remove(ObjectIdentifier(other))
                }
            }
        case .foreignKey:
            break
        }
        return result
    }

    func reportLoadFailure(_ relationship: ResolvedRelationship, _ error: any Error) {
        let failure = LiteRecordError(
            (error as? LiteRecordError)?.kind ?? .sqlite,
            "\(relationship.qualifiedName) could not be loaded: \((error as? LiteRecordError)?.message ?? "\(error)")")
        store.logger.error("a relationship could not be loaded", metadata: ["error": "\(failure)"])
        pendingErrors.append(failure)
    }

    // MARK: Many-to-many links

    /// Records that `object` and `other` were linked or unlinked through a
    /// join-table relationship, for the next save.
    func noteJoin(_ object: any Entity, _ relationship: ResolvedRelationship, _ other: any Entity, linked: Bool) {
        guard case .joinTable(let table) = relationship.storage else { return }
        // A deleted record's links go with its row: a link changed after the
        // deletion (its own list, or another's naming it) is no change to
        // write, as one changed before it was dropped (dropPendingJoins).
        guard object.statePhase != .deleted, other.statePhase != .deleted else { return }
        // Either side's list gains or loses a member: a counted one is
        // checked at the save, read then if it is not loaded.
        if relationship.isCounted { noteCountedOwner(object, list: relationship.index) }
        if relationship.inverseIsCounted { noteCountedOwner(other, list: relationship.inverseIndex) }
        let owned = relationship.ownsJoinTable
        let (source, destination) = owned ? (object, other) : (other, object)
        let oriented = owned ? table : table.flipped
        let key = JoinKey(table: table.name, source: ObjectIdentifier(source), destination: ObjectIdentifier(destination))
        if let pending = pendingJoins[key], pending.linked != linked {
            // Undoes a change not yet saved: the store already is as wanted.
            pendingJoins[key] = nil
        } else {
            pendingJoins[key] = PendingJoin(table: oriented, source: source, destination: destination, linked: linked)
        }
    }

    // MARK: Inserting related objects

    /// Brings the objects a newly inserted object is related to (in memory)
    /// into this context, and records its many-to-many links.
    func adoptRelated(_ object: any Entity) {
        guard let entity = model.entity(for: type(of: object)), entity.hasRelationships else { return }
        for relationship in entity.relationships {
            switch RelationGraph.slot(object, relationship.index) {
            case .toOne(let value?):
                if value.statePhase == .unmanaged { insert(value) }
            case .toMany(let values):
                for value in values {
                    if value.statePhase == .unmanaged { insert(value) }
                    if value.stateContext === self { noteJoin(object, relationship, value, linked: true) }
                }
            default:
                break
            }
        }
    }
}

extension RecordContext {
    /// Marks the loaded to-manys whose destination is one of `entityNames`
    /// for reading again: another context committed changes to them.
    func forgetToManys(touching entityNames: Set<String>) {
        for entity in model.entities where entity.hasRelationships {
            let stale = entity.relationships.filter { $0.isToMany && entityNames.contains($0.destinationName) }
            guard !stale.isEmpty else { continue }
            for object in identityMap.table(for: entity.type).objects where object.statePhase == .managed {
                for relationship in stale { RelationGraph.forget(relationship.index, of: object) }
            }
        }
    }

    /// Notes an object whose counted to-many at `list` (a relationship
    /// index) may hold another number of objects (see ``countedOwners``).
    func noteCountedOwner(_ owner: (any Entity)?, list: Int?) {
        guard let owner, let list, owner.stateBelongs(to: self) else { return }
        countedOwners[ObjectIdentifier(owner), default: (owner, [])].lists.insert(list)
    }

    /// The owners whose counted to-many a pending deletion takes its object
    /// from in the store, as `row` (its stored row) names them: a merge may
    /// have moved it since the deletion noted the owners it had then, while
    /// its to-ones in memory keep what its delete rules left (model seed
    /// 121382). Read by ``noteCountedOwners(_:)`` outside the row's statement.
    func storedCountedOwners(_ row: Row, _ entity: EntityDescription) -> [(relationship: ResolvedRelationship, rowID: Int64)] {
        guard model.hasCountedToManys else { return [] }
        var owners: [(relationship: ResolvedRelationship, rowID: Int64)] = []
        for (position, index) in entity.toOneIndexes.enumerated() where entity.relationships[index].inverseIsCounted {
            if case .integer(let rowID) = row.value(at: entity.attributes.count + position) { owners.append((entity.relationships[index], rowID)) }
        }
        return owners
    }

    /// Notes the owners of ``storedCountedOwners(_:_:)``, reading those not
    /// held (see ``countedOwners``); one deleted here has no list to count.
    func noteCountedOwners(_ owners: [(relationship: ResolvedRelationship, rowID: Int64)]) {
        for (relationship, rowID) in owners {
            if case .some(let owner?) = loadToOne(relationship, rowID: rowID) { noteCountedOwner(owner, list: relationship.inverseIndex) }
        }
    }

    /// Notes the owners whose counted to-many loses `object` as it is
    /// deleted: the targets of its to-ones, and the members of its
    /// many-to-manys (read if not loaded), whose inverse has a count.
    func noteCountedOwners(losing object: any Entity) {
        guard model.hasCountedToManys, let entity = model.entity(for: type(of: object)) else { return }
        for relationship in entity.relationships where relationship.inverseIsCounted {
            if relationship.isToMany {
                for member in RelationGraph.toMany(object, relationship.index) { noteCountedOwner(member, list: relationship.inverseIndex) }
            } else {
                noteCountedOwner(RelationGraph.toOne(object, relationship.index), list: relationship.inverseIndex)
            }
        }
    }
}
