extension RecordContext {
    // MARK: What a push's deletions take in the parent

    /// What the parent's delete rules will do, once a child's push deletes
    /// its objects there, to the records the parent inserted and has not
    /// saved, which this child cannot see: the inserts a `.cascade` takes
    /// along (and those their own cascades take), and the counted lists of
    /// saved owners that lose them. A push counts a list as it leaves it in
    /// the parent (Docs/Relationships.md), so those lists are counted without
    /// the doomed inserts (model seed 231799 at length 80: a deletion here
    /// took the parent's new note, the last of another book's notes, by the
    /// book's one-to-one `.cascade`, and the push was accepted).
    struct PushCascade {
        /// The parent's unseen inserts the push's deletions take along.
        var doomed: Set<ObjectIdentifier> = []
        /// This child's objects for the saved owners whose counted list
        /// loses one of them, with the lists' relationship indexes.
        var owners: [ObjectIdentifier: (owner: any Entity, lists: Set<Int>)] = [:]
    }

    /// ``PushCascade`` of the push that deletes `deleted` (this child's
    /// objects); empty outside a child or when no ancestor inserted anything.
    func pushCascade(deleting deleted: [any Entity]) throws(LiteRecordError) -> PushCascade {
        var result = PushCascade()
        guard parent != nil, store.model.hasRelationships else { return result }
        var doomedObjects: [any Entity] = []
        var below: RecordContext = self
        // The deletions travel up with each push, and meet each ancestor's
        // delete rules there: every ancestor's unseen inserts count.
        for context in ancestors {
            let copies = Set(below.pushed.values.map { ObjectIdentifier($0.parent) })
            below = context
            guard !context.inserted.isEmpty else { continue }
            var queue: [any Entity] = deleted.compactMap { object in
                object.stateRowID.flatMap { context.registeredObject(type(of: object), rowID: $0) }
            }
            while let next = queue.popLast() {
                for taken in context.cascadedInMemory(from: next)
                where taken.statePhase == .inserted && taken.stateBelongs(to: context) && !copies.contains(ObjectIdentifier(taken)) {
                    guard result.doomed.insert(ObjectIdentifier(taken)).inserted else { continue }
                    doomedObjects.append(taken)
                    queue.append(taken)
                }
            }
        }
        for object in doomedObjects {
            guard let entity = model.entity(for: type(of: object)) else { continue }
            for index in entity.toOneIndexes where entity.relationships[index].inverseIsCounted {
                guard let list = entity.relationships[index].inverseIndex,
                    let owner = RelationGraph.toOneInMemory(object, index), let rowID = owner.stateRowID,
                    let mine = try objectForCount(type(of: owner), rowID: rowID)
                else { continue }
                result.owners[ObjectIdentifier(mine), default: (mine, [])].lists.insert(list)
            }
        }
        return result
    }

    /// The objects a `.cascade` of `object` reaches in this context's memory:
    /// the target of a to-one, and the inserts whose to-one names it (an
    /// insert is in no list read from the store).
    private func cascadedInMemory(from object: any Entity) -> [any Entity] {
        guard let entity = model.entity(for: type(of: object)) else { return [] }
        var taken: [any Entity] = []
        for relationship in entity.relationships where relationship.deleteRule == .cascade {
            if !relationship.isToMany {
                if let target = RelationGraph.toOneInMemory(object, relationship.index) { taken.append(target) }
                continue
            }
            guard case .inverseForeignKey = relationship.storage, let inverse = relationship.inverseIndex else { continue }
            let destination = ObjectIdentifier(relationship.destination)
            for candidate in inserted where ObjectIdentifier(type(of: candidate)) == destination {
                if case .toOne(let target?) = RelationGraph.slot(candidate, inverse), target === object { taken.append(candidate) }
            }
        }
        return taken
    }

    /// This context's object for a saved record whose list a push counts,
    /// read if it is not held; `nil` when it is deleted here or by an
    /// ancestor.
    private func objectForCount(_ type: any Entity.Type, rowID: Int64) throws(LiteRecordError) -> (any Entity)? {
        try objects(type, rowIDs: [rowID]).first
    }
}
