extension Model {
    /// Whether `entity` has relationships or is the destination of one.
    func isRelated(_ entity: EntityDescription) -> Bool {
        entity.hasRelationships
            || entities.contains { $0.relationships.contains { $0.destinationName == entity.name } }
    }

    /// The order in which a save deletes rows of several entities, by entity
    /// type (lower first): an entity before the entities its to-ones point
    /// at, so that rows holding a foreign key go before the rows it names.
    /// Entities in a cycle of to-ones keep the model's order among them.
    var deletionRanks: [ObjectIdentifier: Int] {
        let count = entities.count
        var position: [String: Int] = [:]
        for (index, entity) in entities.enumerated() { position[entity.name] = index }
        var pointsAt = [[Int]](repeating: [], count: count)
        var incoming = [Int](repeating: 0, count: count)
        for (index, entity) in entities.enumerated() {
            for relationshipIndex in entity.toOneIndexes {
                guard let destination = position[entity.relationships[relationshipIndex].destinationName], destination != index
                else { continue }
                pointsAt[index].append(destination)
                incoming[destination] += 1
            }
        }
        var ranks: [ObjectIdentifier: Int] = [:]
        var placed = [Bool](repeating: false, count: count)
        var rank = 0
        while rank < count {
            // An entity nothing unplaced points at; in a cycle, the first unplaced one.
            guard
                let next = (0..<count).first(where: { !placed[$0] && incoming[$0] == 0 })
                    ?? (0..<count).first(where: { !placed[$0] })
            else { break }
            placed[next] = true
            ranks[ObjectIdentifier(entities[next].type)] = rank
            rank += 1
            for destination in pointsAt[next] { incoming[destination] -= 1 }
        }
        return ranks
    }

    /// Finds each relationship's destination, inverse and storage, or throws
    /// `.invalidModel` saying what is inconsistent.
    static func resolveRelationships(
        _ entities: inout [EntityDescription], byType: [ObjectIdentifier: Int]
    ) throws(LiteRecordError) {
        guard entities.contains(where: \.hasRelationships) else { return }
        // Destinations and inverses first, storage once every inverse is known.
        for entityIndex in entities.indices {
            for index in entities[entityIndex].relationships.indices {
                let relationship = entities[entityIndex].relationships[index]
                // By type, else by name: two versions of a class may share an entity name.
                guard
                    let destinationIndex = byType[ObjectIdentifier(relationship.destination)]
                        ?? entities.firstIndex(where: { $0.name == relationship.destinationName })
                else {
                    throw LiteRecordError(
                        .invalidModel,
                        "\(relationship.qualifiedName) points at \(relationship.destinationName), which is not an entity of the model; add \(relationship.destination).self to the entities given to setup"
                    )
                }
                let inverse = try inverseIndex(
                    of: entities[entityIndex].type, relationship: index,
                    in: entities[destinationIndex].type)
                entities[entityIndex].relationships[index].destination = entities[destinationIndex].type
                entities[entityIndex].relationships[index].inverseIndex = inverse
                if let inverse {
                    let other = entities[destinationIndex].relationships[inverse]
                    entities[entityIndex].relationships[index].inverseIsToMany = other.isToMany
                    entities[entityIndex].relationships[index].inverseIsCounted = other.isCounted
                    entities[entityIndex].relationships[index].inverseName = other.name
                }
            }
        }
        for entityIndex in entities.indices {
            for index in entities[entityIndex].relationships.indices {
                var relationship = entities[entityIndex].relationships[index]
                if let minimum = relationship.minimumCount, let maximum = relationship.maximumCount, minimum > maximum {
                    throw LiteRecordError(
                        .invalidModel, "\(relationship.qualifiedName): minimumCount \(minimum) is larger than maximumCount \(maximum)")
                }
                guard relationship.isToMany else { continue }
                if let inverse = relationship.inverseIndex, !relationship.inverseIsToMany {
                    guard let destination = byType[ObjectIdentifier(relationship.destination)] else { continue }
                    relationship.storage = .inverseForeignKey(
                        column: entities[destination].relationships[inverse].name)
                } else {
                    relationship.storage = .joinTable(joinTable(for: relationship, entities: entities, byType: byType))
                    relationship.ownsJoinTable = ownsJoinTable(relationship)
                }
                entities[entityIndex].relationships[index] = relationship
            }
        }
    }

    /// The inverse of `type.relationships[index]` among `destination`'s
    /// relationships: the one named by either side, else the only one
    /// pointing back. Both sides must agree.
    static func inverseIndex(
        of type: any Entity.Type, relationship index: Int, in destination: any Entity.Type
    ) throws(LiteRecordError) -> Int? {
        let description = type.relationships[index]
        let candidates = destination.relationships
        let qualified = "\(type.entityName).\(description.name)"
        func pointsBack(_ other: RelationshipDescription) -> Bool {
            ObjectIdentifier(other.destination) == ObjectIdentifier(type) || other.destination.entityName == type.entityName
        }
        if let name = description.inverse {
            guard let found = candidates.firstIndex(where: { $0.name == name }) else {
                throw LiteRecordError(
                    .invalidModel, "\(qualified) names the inverse '\(name)', but \(destination.entityName) has no relationship of that name")
            }
            let other = candidates[found]
            guard pointsBack(other) else {
                throw LiteRecordError(
                    .invalidModel,
                    "\(qualified) names the inverse \(destination.entityName).\(name), which points at \(other.destination.entityName), not at \(type.entityName)")
            }
            if let back = other.inverse, back != description.name {
                throw LiteRecordError(
                    .invalidModel,
                    "\(qualified) and \(destination.entityName).\(name) disagree: the inverse of \(destination.entityName).\(name) is '\(back)'")
            }
            return found
        }
        // Named from the other side?
        let naming = candidates.indices.filter { candidates[$0].inverse == description.name && pointsBack(candidates[$0]) }
        if naming.count > 1 {
            throw LiteRecordError(
                .invalidModel,
                "\(qualified): several relationships of \(destination.entityName) name it as their inverse (\(naming.map { candidates[$0].name }.joined(separator: ", ")))")
        }
        if let found = naming.first { return found }
        let isSelf = ObjectIdentifier(type) == ObjectIdentifier(destination)
        let unnamed = candidates.indices.filter { position in
            pointsBack(candidates[position]) && candidates[position].inverse == nil && !(isSelf && position == index)
        }
        // Relationships of this entity to the destination that also lack a
        // named inverse: inferring is only safe when each side has one.
        let ownUnnamed = type.relationships.indices.filter { position in
            (ObjectIdentifier(type.relationships[position].destination) == ObjectIdentifier(destination)
                || type.relationships[position].destination.entityName == destination.entityName)
                && type.relationships[position].inverse == nil
                && !candidates.contains { $0.inverse == type.relationships[position].name && pointsBack($0) }
        }
        if unnamed.count == 1, ownUnnamed.count == 1 || (isSelf && ownUnnamed.count == 2) { return unnamed.first }
        if unnamed.count > 1 || (unnamed.count == 1 && ownUnnamed.count > 1) {
            throw LiteRecordError(
                .invalidModel,
                "\(qualified): the inverse is ambiguous (relationships between \(type.entityName) and \(destination.entityName): \(ownUnnamed.map { type.relationships[$0].name }.joined(separator: ", ")) and \(unnamed.map { candidates[$0].name }.joined(separator: ", "))); name it with `@Relationship(inverse:)`"
            )
        }
        return nil
    }

    /// A join table's name and columns: named after the side whose
    /// `Entity_relationship` sorts first, with one column per entity named like
    /// the entity (like the relationships when both sides are one entity).
    private static func joinTable(
        for relationship: ResolvedRelationship, entities: [EntityDescription], byType: [ObjectIdentifier: Int]
    ) -> JoinTable {
        let own = "\(relationship.entityName)_\(relationship.name)"
        var other: String?
        var otherName: String?
        if let inverse = relationship.inverseIndex, let destination = byType[ObjectIdentifier(relationship.destination)] {
            otherName = entities[destination].relationships[inverse].name
            other = "\(relationship.destinationName)_\(otherName ?? "")"
        }
        let sameEntity = relationship.entityName == relationship.destinationName
        let sourceColumn = sameEntity ? relationship.name : relationship.entityName
        let destinationColumn = sameEntity ? (otherName ?? "\(relationship.name)_of") : relationship.destinationName
        let table = JoinTable(
            name: min(own, other ?? own), sourceColumn: sourceColumn, destinationColumn: destinationColumn,
            sourceTable: relationship.entityName, destinationTable: relationship.destinationName)
        return table
    }

    private static func ownsJoinTable(_ relationship: ResolvedRelationship) -> Bool {
        guard case .joinTable(let table) = relationship.storage else { return false }
        return table.name == "\(relationship.entityName)_\(relationship.name)"
    }
}

extension Model {
    /// The name of the many-to-many relationship of `entityName` stored in
    /// `table` (seen from that entity's side), for the store's history.
    func relationshipName(joining table: JoinTable, from entityName: String) -> String? {
        entity(named: entityName)?.relationships.first { $0.storage == .joinTable(table) }?.name
    }
}
