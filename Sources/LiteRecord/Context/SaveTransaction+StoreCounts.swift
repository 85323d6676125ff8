extension SaveTransaction {
    /// Inside the transaction, once every statement ran: the counted lists
    /// this save changed hold their bounds in the store as it leaves it.
    ///
    /// The context checked every count before the transaction, against its
    /// own graph. The store can differ from that graph: another writer may
    /// have moved members in or out of a list since it was read (two saves
    /// each adding a chapter to a book one below its maximum), and the merge
    /// policy's resolutions change what the store holds — a deletion
    /// `.storeTrumps` drops keeps an owner whose cascade took its members, a
    /// change to a record deleted in the store is forgotten with the list it
    /// joined, `.objectTrumps` deletes or moves a row that another writer had
    /// put on another owner's list. So the owners whose lists this save
    /// changed (the context's counted owners, with the owners of the rows it
    /// resolved, as this context names them and as the store named them) are
    /// counted again here, and a count out of bounds refuses the save with
    /// `.validationFailed` before anything is committed
    /// (Docs/Relationships.md: the bounds hold however a list changed).
    /// Without this a save left a kept book with no note against its
    /// minimum of one (model seed 42264), and two contexts each filling a
    /// list to its maximum left it past it.
    func checkCountsInStore() throws {
        let model = context.model
        guard model.hasRelationships, model.hasCountedToManys else { return }
        var owners = conflictOwners
        for (entity, rowID) in kept { owners[entity.name, default: []].insert(rowID) }
        for (owner, _) in context.countedOwners.values {
            guard let entity = model.entity(for: type(of: owner)),
                let rowID = owner.stateRowID ?? newRowIDs[ObjectIdentifier(owner)]
            else { continue }
            owners[entity.name, default: []].insert(rowID)
        }
        for (object, resolution) in resolved.values {
            guard let entity = model.entity(for: type(of: object)) else { continue }
            if case .keep = resolution, let rowID = object.stateRowID { owners[entity.name, default: []].insert(rowID) }
            // As a member: the lists it was counted in, as this context left it.
            // An owner this save inserts has its row id only here.
            for index in entity.toOneIndexes where entity.relationships[index].inverseIsCounted {
                var owner = RecordContext.namedRowID(object, index) ?? nil
                if owner == nil, case .toOne(let target?) = RelationGraph.slot(object, index) { owner = newRowIDs[ObjectIdentifier(target)] }
                if let owner { owners[entity.relationships[index].destinationName, default: []].insert(owner) }
            }
        }
        guard !owners.isEmpty else { return }
        for (name, ids) in owners.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: name), entity.relationships.contains(where: \.isCounted) else { continue }
            let present = try presentRowIDs(of: entity, ids.sorted())
            guard !present.isEmpty else { continue }
            for relationship in entity.relationships where relationship.isCounted {
                let members = Dictionary(
                    try context.relatedRowIDsByOwner(relationship, present, entity, connection).map { ($0.0, $0.1.count) },
                    uniquingKeysWith: { first, _ in first })
                for id in present {
                    let count = members[id] ?? 0
                    if let maximum = relationship.maximumCount, count > maximum {
                        throw LiteRecordError(
                            .validationFailed,
                            "\(relationship.qualifiedName) of \(entity.name) #\(id) would hold \(count) objects in the store once this save is written (with what other writers committed since it was read, and what the merge policy resolved); at most \(maximum) are allowed, so nothing was written"
                        )
                    }
                    if let minimum = relationship.minimumCount, count < minimum {
                        throw LiteRecordError(
                            .validationFailed,
                            "\(relationship.qualifiedName) of \(entity.name) #\(id) would hold \(count) objects in the store once this save is written (with what other writers committed since it was read, and what the merge policy resolved); at least \(minimum) are needed, so nothing was written"
                        )
                    }
                }
            }
        }
    }

    /// A conflicting row's owners in counted lists as the store names them
    /// at the conflict, which the resolution may take the row from.
    mutating func noteConflictOwners(_ entity: EntityDescription, _ stored: [SQLValue]) {
        guard context.model.hasCountedToManys else { return }
        for (position, index) in entity.toOneIndexes.enumerated() where entity.relationships[index].inverseIsCounted {
            let column = entity.attributes.count + position
            guard stored.indices.contains(column), let owner = stored[column].integerValue else { continue }
            conflictOwners[entity.relationships[index].destinationName, default: []].insert(owner)
        }
    }

    /// The rows of `ids` still in `entity`'s table.
    private func presentRowIDs(of entity: EntityDescription, _ ids: [Int64]) throws -> [Int64] {
        let select = SelectStatement([.rowID], from: entity.table, where: .column(inJSONArray: .rowID))
        return try connection.rows(select.sql, [RecordContext.jsonArray(ids)]).compactMap { $0.first?.integerValue }.sorted()
    }
}
