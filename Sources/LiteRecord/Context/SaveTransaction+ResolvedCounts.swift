extension SaveTransaction {
    /// After the merge policy resolved conflicts, inside the transaction:
    /// the counted lists its resolutions changed still hold their bounds.
    /// The context checked every count before the transaction, against its
    /// own graph; a resolution then changes what the store holds — a
    /// deletion `.storeTrumps` drops keeps an owner whose cascade took its
    /// members, a change to a record deleted in the store is forgotten with
    /// the list it joined — so those owners are counted again here, in the
    /// store as the transaction leaves it, and a count out of bounds refuses
    /// the save with `.validationFailed` before anything is committed
    /// (Docs/Relationships.md: the bounds hold however a list changed).
    /// Without this a save left a kept book with no note against its
    /// minimum of one, and the next save touching the book was refused for
    /// it (model seed 42264).
    func checkCountsAfterResolution() throws {
        let model = context.model
        guard model.hasRelationships, model.hasCountedToManys, !resolved.isEmpty || !kept.isEmpty else { return }
        var owners: [String: Set<Int64>] = [:]
        for (entity, rowID) in kept { owners[entity.name, default: []].insert(rowID) }
        for (object, resolution) in resolved.values {
            guard let entity = model.entity(for: type(of: object)) else { continue }
            if case .keep = resolution, let rowID = object.recordState.rowID { owners[entity.name, default: []].insert(rowID) }
            // As a member: the lists it was counted in, as this context left it.
            // An owner this save inserts has its row id only here.
            for index in entity.toOneIndexes where entity.relationships[index].inverseIsCounted {
                var owner = RecordContext.namedRowID(object, index) ?? nil
                if owner == nil, case .toOne(let target?) = RelationGraph.slot(object, index) { owner = newRowIDs[ObjectIdentifier(target)] }
                if let owner { owners[entity.relationships[index].destinationName, default: []].insert(owner) }
            }
        }
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
                            "\(relationship.qualifiedName) of \(entity.name) #\(id) would hold \(count) objects once the merge policy resolved the conflicts; at most \(maximum) are allowed, so nothing was written"
                        )
                    }
                    if let minimum = relationship.minimumCount, count < minimum {
                        throw LiteRecordError(
                            .validationFailed,
                            "\(relationship.qualifiedName) of \(entity.name) #\(id) would hold \(count) objects once the merge policy resolved the conflicts; at least \(minimum) are needed, so nothing was written"
                        )
                    }
                }
            }
        }
    }

    /// The rows of `ids` still in `entity`'s table.
    private func presentRowIDs(of entity: EntityDescription, _ ids: [Int64]) throws -> [Int64] {
        let select = SelectStatement([.rowID], from: entity.table, where: .column(inJSONArray: .rowID))
        return try connection.rows(select.sql, [RecordContext.jsonArray(ids)]).compactMap { $0.first?.integerValue }.sorted()
    }
}
