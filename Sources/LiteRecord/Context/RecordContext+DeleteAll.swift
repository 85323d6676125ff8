extension RecordContext {
    /// `deleteAll(matching:)` for entities in relationships: finds every row a
    /// cascade takes with it, refuses a `.deny` violation, clears the foreign
    /// keys left pointing at deleted rows, then deletes — all in one
    /// transaction, so no foreign-key failure ever surfaces from the commit.
    func deleteAllApplyingRules(
        _ entity: EntityDescription, whereSQL: String?, arguments: [SQLValue]
    ) throws(LiteRecordError) -> Int {
        let (doomed, nullified, changes, strays) = try store.write("deleting \(entity.name) records") { connection in
            let select = SelectStatement([.rowID], from: entity.table, where: whereSQL.map(WhereClause.init(sql:)))
            let matching = try connection.rows(select.sql, arguments).compactMap(\.first?.integerValue)
            let (doomed, order) = try doomedRows(entity, matching, connection)
            try checkCountedLists(losing: doomed, connection)
            // This context's unsaved objects that name a deleted row meet the
            // rule the object path would apply: `.deny` refuses here, before
            // anything is written; `.cascade` deletes them below.
            let strays = unsavedReferences(to: doomed, emptied: whereSQL == nil ? entity.name : nil)
            try checkUnsavedDenyRules(strays)
            let nullified = try nullifyReferences(to: doomed, connection)
            let deleted = try deleteRows(order, connection)
            let changes = ChangeSet(updated: nullified.map(\.id), deleted: deleted)
            store.noteCommitted(changes, by: self) {
                var names = UpdatedNames()
                for (id, column) in nullified {
                    if let name = model.entity(named: id.entityName)?.columnName(column) { names.add([name], to: id) }
                }
                return names
            }
            return (doomed, nullified, changes, strays)
        }
        var unregistered = Set<ObjectIdentifier>()
        for id in changes.deleted {
            guard let type = model.entity(named: id.entityName)?.type, let object = registeredObject(type, rowID: id.rowID) else { continue }
            unregister(object)
            unregistered.insert(ObjectIdentifier(object))
        }
        recordNullified(nullified)
        forgetDeletedReferences(doomed, unregistered: unregistered, emptied: whereSQL == nil ? entity.name : nil)
        for (object, rule) in strays where rule == .cascade { delete(object) }
        if !changes.isEmpty { didSave?(changes) }
        return doomed[entity.name]?.count ?? 0
    }

    /// Records the to-ones a set-based delete cleared
    /// (``nullifyReferences(to:_:)``): this context's objects follow their
    /// rows to the new version, once per to-one cleared, so their next save
    /// meets no conflict; a `write` context counts each bump with the column
    /// it cleared, for the rows it holds and the ones it never fetched.
    func recordNullified(_ nullified: [(id: RecordID, column: Int)]) {
        for (id, column) in nullified {
            let columns = AttributeMask([column])
            guard let type = model.entity(named: id.entityName)?.type, let object = registeredObject(type, rowID: id.rowID),
                object.statePhase == .managed
            else {
                countWrite(of: id, columns: columns)
                continue
            }
            recordVersionBump(object, to: object.withState({ $0.version }) + 1, columns: columns)
        }
    }

    /// The rows deleting `ids` of `entity` takes with it through `.cascade`
    /// rules, by entity name, and the order to delete them in.
    ///
    /// - Throws: `.validationFailed` when a `.deny` rule still relates a
    ///   doomed row to one that stays.
    private func doomedRows(
        _ entity: EntityDescription, _ ids: [Int64], _ connection: Connection
    ) throws -> (doomed: [String: Set<Int64>], order: [(entity: String, ids: [Int64])]) {
        try doomedRows([(entity, ids)], besides: [:], connection)
    }

    /// ``doomedRows(_:_:_:)`` for several starting sets, next to rows already
    /// doomed (`known`, which the result includes but `order` leaves out).
    private func doomedRows(
        _ starts: [(EntityDescription, [Int64])], besides known: [String: Set<Int64>], _ connection: Connection
    ) throws -> (doomed: [String: Set<Int64>], order: [(entity: String, ids: [Int64])]) {
        var doomed = known
        var order: [(entity: String, ids: [Int64])] = []
        var queue: [(EntityDescription, [Int64])] = []
        func add(_ target: EntityDescription, _ ids: [Int64]) {
            let fresh = ids.filter { doomed[target.name, default: []].insert($0).inserted }
            guard !fresh.isEmpty else { return }
            order.append((target.name, fresh))
            queue.append((target, fresh))
        }
        for (entity, ids) in starts { add(entity, ids) }
        var denied: [(ResolvedRelationship, Int64, [Int64])] = []
        while let (current, ids) = queue.popLast() {
            for relationship in current.relationships where relationship.deleteRule == .cascade || relationship.deleteRule == .deny {
                guard let destination = model.entity(named: relationship.destinationName) else { continue }
                // One statement for all the ids, whatever their number.
                let related = try relatedRowIDsByOwner(relationship, ids, current, connection)
                if relationship.deleteRule == .deny {
                    for (id, others) in related { denied.append((relationship, id, others)) }
                } else {
                    add(destination, related.flatMap(\.1))
                }
            }
        }
        for (relationship, id, related) in denied {
            let remaining = related.filter { !(doomed[relationship.destinationName]?.contains($0) ?? false) }
            guard !remaining.isEmpty else { continue }
            let names = remaining.sorted().prefix(5).map { "\(relationship.destinationName) #\($0)" }.joined(separator: ", ")
            throw LiteRecordError(
                .validationFailed,
                "\(relationship.entityName) #\(id) cannot be deleted: \(relationship.qualifiedName) has the delete rule .deny and still relates it to \(remaining.count) \(relationship.destinationName) record\(remaining.count == 1 ? "" : "s") (\(names)\(remaining.count > 5 ? ", …" : ""))"
            )
        }
        return (doomed, order)
    }

    /// Refuses a set-based deletion that takes a record that stays below the
    /// minimum of its counted to-many (an owner's `boxes` losing its last
    /// box to a shelf's cascade), as deleting the loaded objects would.
    ///
    /// - Throws: `.validationFailed` naming the owner and the relationship.
    private func checkCountedLists(losing doomed: [String: Set<Int64>], _ connection: Connection) throws {
        guard model.hasCountedToManys else { return }
        for (name, ids) in doomed.sorted(by: { $0.key < $1.key }) {
            guard let entity = model.entity(named: name) else { continue }
            for relationship in entity.relationships where relationship.inverseIsCounted {
                guard let owner = model.entity(named: relationship.destinationName), let inverseIndex = relationship.inverseIndex,
                    let minimum = owner.relationships[inverseIndex].minimumCount
                else { continue }
                let inverse = owner.relationships[inverseIndex]
                let owners = Set(try relatedRowIDsByOwner(relationship, ids.sorted(), entity, connection).flatMap(\.1))
                    .subtracting(doomed[owner.name] ?? [])
                for (ownerID, members) in try relatedRowIDsByOwner(inverse, owners.sorted(), owner, connection) {
                    let remaining = members.count { !ids.contains($0) }
                    guard remaining < minimum else { continue }
                    throw LiteRecordError(
                        .validationFailed,
                        "\(owner.name) #\(ownerID) would be left with \(remaining) objects in \(inverse.qualifiedName); at least \(minimum) are needed, so the deletion was refused and nothing was deleted"
                    )
                }
            }
        }
    }

    /// This context's unsaved objects (inserted, or changed since read) whose
    /// to-one names a doomed row in memory, each with the delete rule of the
    /// doomed side's inverse (what deleting the loaded owner would apply to
    /// it; `.nullify` without an inverse).
    /// After `truncateAll` (`emptied`), a reference made here to a record of
    /// that entity forgotten here (a merged write deleted it) counts too: no
    /// record of the entity is left, so it meets the rule as a reference to
    /// a row the truncation deletes does.
    private func unsavedReferences(
        to doomed: [String: Set<Int64>], emptied: String?
    ) -> [(object: any Entity, rule: RelationshipDescription.DeleteRule)] {
        var found: [(object: any Entity, rule: RelationshipDescription.DeleteRule)] = []
        for object in inserted + lists.updated {
            let state = object.recordState
            guard state.belongs(to: self), state.phase == .inserted || state.phase == .managed,
                let entity = model.entity(for: type(of: object))
            else { continue }
            // A row deleted itself is no stray.
            if let rowID = state.rowID, doomed[entity.name]?.contains(rowID) == true { continue }
            for (position, index) in entity.toOneIndexes.enumerated() {
                let relationship = entity.relationships[index]
                guard let target = RelationGraph.toOneInMemory(object, index) else { continue }
                let named = target.stateRowID.map { doomed[relationship.destinationName]?.contains($0) == true } ?? false
                // A forgotten record counts only where the reference is this
                // context's: a to-one read from the store and left alone
                // reads nil once its record is forgotten (model seed 160060).
                let madeHere = state.phase == .inserted || state.changes.contains(entity.attributes.count + position)
                guard named || (madeHere && target.withState({ $0.isForgotten }) && relationship.destinationName == emptied) else { continue }
                found.append((object, model.inverse(of: relationship)?.deleteRule ?? .nullify))
            }
        }
        return found
    }

    /// Refuses a set-based deletion of a row that an unsaved object of this
    /// context still relates through a `.deny` rule, as deleting the loaded
    /// owner would.
    private func checkUnsavedDenyRules(_ references: [(object: any Entity, rule: RelationshipDescription.DeleteRule)]) throws {
        guard let (object, _) = references.first(where: { $0.rule == .deny }) else { return }
        throw LiteRecordError(
            .validationFailed,
            "the deletion was refused: \(Self.describe(object)), unsaved in this context, still names a record it deletes through a relationship whose inverse has the delete rule .deny; nothing was deleted"
        )
    }

    /// Sets to `NULL` the to-one columns pointing at doomed rows, in rows that
    /// stay; returns those rows, each with the column it cleared (a row that
    /// pointed at two doomed rows comes twice). Their version moves on, as
    /// for any save: another context holding one meets the conflict.
    func nullifyReferences(
        to doomed: [String: Set<Int64>], _ connection: Connection
    ) throws -> [(id: RecordID, column: Int)] {
        let model = store.model
        var nullified: [(id: RecordID, column: Int)] = []
        for source in model.entities {
            for (position, index) in source.toOneIndexes.enumerated() {
                let relationship = source.relationships[index]
                guard let ids = doomed[relationship.destinationName], !ids.isEmpty else { continue }
                if model.inverse(of: relationship)?.deleteRule == .noAction {
                    continue
                }
                let column = SQLIdentifier(relationship.name)
                let update = UpdateStatement(
                    source.table, set: [.null(column), .nextVersion], where: .column(inJSONArray: column), returning: [.rowID])
                for row in try connection.rows(update.sql, [Self.jsonArray(Array(ids))]) {
                    guard let id = row.first?.integerValue, !(doomed[source.name]?.contains(id) ?? false) else { continue }
                    nullified.append((RecordID(entityName: source.name, rowID: id), source.attributes.count + position))
                }
            }
        }
        return nullified
    }

    /// Deletes the doomed rows, entity by entity in `order`; returns them.
    private func deleteRows(_ order: [(entity: String, ids: [Int64])], _ connection: Connection) throws -> [RecordID] {
        var deleted: [RecordID] = []
        for (name, ids) in order {
            guard let target = store.model.entity(named: name) else { continue }
            let delete = DeleteStatement(from: target.table, where: .column(inJSONArray: .rowID))
            try connection.execute(delete.sql, [Self.jsonArray(ids)])
            deleted += ids.map { RecordID(entityName: name, rowID: $0) }
        }
        return deleted
    }

    /// The row ids related to each of `ids` through `relationship`, read in
    /// the store with one statement (the ids bound as one JSON array); owners
    /// with no related row are left out, the rest come in the order of `ids`.
    func relatedRowIDsByOwner(
        _ relationship: ResolvedRelationship, _ ids: [Int64], _ entity: EntityDescription, _ connection: Connection
    ) throws -> [(Int64, [Int64])] {
        let select: SelectStatement
        switch relationship.storage {
        case .foreignKey(let name):
            let column = SQLIdentifier(name)
            select = SelectStatement([.rowID, column], from: entity.table, where: .column(inJSONArray: .rowID) && .isNotNull(column))
        case .inverseForeignKey(let name):
            let column = SQLIdentifier(name)
            select = SelectStatement(
                [column, .rowID], from: SQLIdentifier(relationship.destinationName), where: .column(inJSONArray: column))
        case .joinTable(let table):
            let source = SQLIdentifier(table.sourceColumn)
            select = SelectStatement(
                [source, SQLIdentifier(table.destinationColumn)], from: SQLIdentifier(table.name), where: .column(inJSONArray: source))
        }
        var related: [Int64: [Int64]] = [:]
        for row in try connection.rows(select.sql, [Self.jsonArray(ids)]) {
            guard row.count == 2, let owner = row[0].integerValue, let other = row[1].integerValue else { continue }
            related[owner, default: []].append(other)
        }
        return ids.compactMap { id in related[id].map { (id, $0) } }
    }

    /// After rows were deleted outside the context's graph: loaded to-ones
    /// pointing at them become empty, and to-manys are read again.
    /// `unregistered` are the held objects of those rows, now detached; a
    /// to-one naming another detached object (a record forgotten because a
    /// merged write deleted it) keeps it, and its save refuses it — unless
    /// the deletion left no record of its entity (`emptied`, `truncateAll`):
    /// then nothing it could name is left, and it is cleared as well.
    func forgetDeletedReferences(_ doomed: [String: Set<Int64>], unregistered: Set<ObjectIdentifier>, emptied: String?) {
        forgetToManys(touching: Set(doomed.keys))
        for entity in model.entities where !entity.toOneIndexes.isEmpty {
            let relevant = entity.toOneIndexes.filter { index in
                let destination = entity.relationships[index].destinationName
                return doomed[destination] != nil || destination == emptied
            }
            guard !relevant.isEmpty else { continue }
            // New objects too: they are in no identity table until saved,
            // and a `.nullify` clears their to-ones as the object path would.
            let type = ObjectIdentifier(entity.type)
            let new = inserted.filter { ObjectIdentifier(Swift.type(of: $0)) == type }
            for object in identityMap.table(for: entity.type).objects + new {
                for index in relevant {
                    let ids = doomed[entity.relationships[index].destinationName] ?? []
                    switch RelationGraph.slot(object, index) {
                    case .fault(let id?) where ids.contains(id):
                        RelationGraph.storeChange(.fault(nil), in: object, index)
                    case .toOne(let value?)
                    where value.statePhase == .unmanaged
                        && (unregistered.contains(ObjectIdentifier(value))
                            || (value.withState({ $0.isForgotten }) && entity.relationships[index].destinationName == emptied)):
                        RelationGraph.storeChange(.fault(nil), in: object, index)
                    default:
                        break
                    }
                }
            }
        }
    }
}

extension SQLValue {
    /// The integer held, if any.
    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
