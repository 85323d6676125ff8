extension RecordContext {
    // MARK: Checks before a save

    /// `.deny` rules of deleted objects and the counts of to-manys: a save
    /// that breaks one throws `.validationFailed` before anything is written.
    func checkRelationshipRules(
        inserts: [any Entity], updates: [PlannedRow], deletes: [PlannedRow]
    ) throws(LiteRecordError) {
        // Most deleted objects have no `.deny` rule: known without copying
        // the entity's description, once per run of one entity's objects
        // (deletions come in table order).
        var denies: (entity: ObjectIdentifier, any: Bool)?
        for deletion in deletes {
            let object = deletion.object
            if denies?.entity != deletion.entity {
                denies = (deletion.entity, deleteSteps(type(of: object)).contains { $0.rule == .deny })
            }
            guard denies?.any == true else { continue }
            guard let entity = model.entity(for: type(of: object)), entity.hasRelationships else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                var related = relatedObjects(object, relationship).filter { $0.statePhase != .deleted }
                guard !related.isEmpty else { continue }
                related = try remainingRelated(related, of: object, relationship, updates: updates)
                guard !related.isEmpty else { continue }
                let names = related.prefix(5).map { Self.describe($0) }.joined(separator: ", ")
                throw LiteRecordError(
                    .validationFailed,
                    "\(Self.describe(object)) cannot be deleted: \(relationship.qualifiedName) has the delete rule .deny and still relates it to \(related.count) \(relationship.destinationName) object\(related.count == 1 ? "" : "s") (\(names)\(related.count > 5 ? ", …" : ""))"
                )
            }
        }
        // A child's push also leaves the parent's delete rules to take
        // inserts it cannot see: the lists that lose them are counted too.
        let cascade = parent == nil || deletes.isEmpty ? PushCascade() : try pushCascade(deleting: deletes.map(\.object))
        var candidates = inserts + updates.map(\.object)
        for pending in pendingJoins.values { candidates += [pending.source, pending.destination] }
        candidates += countedOwners.values.map(\.owner) + cascade.owners.values.map(\.owner)
        for object in inserts + updates.map(\.object) {
            guard let entity = model.entity(for: type(of: object)) else { continue }
            for relationship in entity.relationships where !relationship.isToMany {
                if let related = RelationGraph.toOneInMemory(object, relationship.index) { candidates.append(related) }
            }
        }
        try checkCounts(of: candidates, cascade)
    }

    /// The counted lists of `candidates`: those that changed, read if they
    /// are not loaded, and the others that are loaded.
    private func checkCounts(of candidates: [any Entity], _ cascade: PushCascade) throws(LiteRecordError) {
        var checked = Set<ObjectIdentifier>()
        for object in candidates where checked.insert(ObjectIdentifier(object)).inserted {
            // An insert deleted again is no longer this context's (nor is
            // anything else detached): the save writes nothing of it, so no
            // count of it is checked, though a rule noted it as an owner.
            guard object.statePhase != .deleted, object.stateBelongs(to: self),
                let entity = model.entity(for: type(of: object))
            else { continue }
            let id = ObjectIdentifier(object)
            for relationship in entity.relationships where relationship.isCounted {
                let values: [any Entity]
                if countedOwners[id]?.lists.contains(relationship.index) == true || cascade.owners[id]?.lists.contains(relationship.index) == true {
                    // A list whose count changed is read if it is not loaded:
                    // the rule holds whether or not it was. Only that list:
                    // a child's push counts none it did not change, where
                    // its parent's unsaved changes show (model seed 234235).
                    values = RelationGraph.toMany(object, relationship.index)
                } else if case .toMany(let loaded) = RelationGraph.slot(object, relationship.index) {
                    values = loaded
                } else {
                    continue
                }
                // A child counts the list its push leaves in the parent: the
                // ancestors' unsaved inserts it cannot see included, those
                // the push's deletions take along left out.
                let count =
                    values.count(where: { $0.statePhase != .deleted })
                    + unseenAncestorInserts(in: object, relationship, excluding: cascade.doomed)
                let outOfRange =
                    relationship.maximumCount.map { count > $0 } == true || relationship.minimumCount.map { count < $0 } == true
                // A saved owner whose row another writer deleted has no list
                // left to count: its save meets that conflict, and the merge
                // policy decides (read only on the way to refusing).
                if outOfRange, object.statePhase == .managed, rowIsGone(object, entity) { break }
                if let maximum = relationship.maximumCount, count > maximum {
                    // Nor is a member whose row another writer deleted: the
                    // save meets its conflict, and a policy that resolves it
                    // forgets it, so the list the save leaves lacks it; the
                    // count in the store inside the save's transaction holds
                    // the final word (model seed 415048 at length 80: a
                    // chapter moved here that a merged write deleted; read
                    // only on the way to refusing).
                    if count - goneMembers(values, relationship) <= maximum { continue }
                    throw LiteRecordError(
                        .validationFailed,
                        "\(relationship.qualifiedName) of \(Self.describe(object)) holds \(count) objects; at most \(maximum) are allowed")
                }
                if let minimum = relationship.minimumCount, count < minimum {
                    throw LiteRecordError(
                        .validationFailed,
                        "\(relationship.qualifiedName) of \(Self.describe(object)) holds \(count) objects; at least \(minimum) are needed")
                }
            }
        }
    }

    /// Refuses a save whose changes still name a record this context forgot
    /// because it was deleted elsewhere (a merge of another write, a conflict,
    /// a refresh that found it gone): a to-one this save writes, or a
    /// many-to-many link it adds. Written, it would be `NULL` or no link at
    /// all, silently; the record is gone, so the change must be made again.
    ///
    /// - Throws: `.conflict` naming the object, the relationship and the record.
    func checkForgottenReferences(inserts: [any Entity], updates: [PlannedRow]) throws(LiteRecordError) {
        func check(_ object: any Entity, _ entity: EntityDescription, columns: AttributeMask?) throws(LiteRecordError) {
            for (position, index) in entity.toOneIndexes.enumerated() {
                if let columns, !columns.contains(entity.attributes.count + position) { continue }
                guard case .toOne(let target?) = RelationGraph.slot(object, index) else { continue }
                let forgotten = target.withState { $0.isForgotten }
                let dropped = target.statePhase == .unmanaged && !forgotten
                guard dropped || forgotten else { continue }
                // An object whose own row is gone writes nothing: its save
                // meets that conflict, and a policy that resolves it forgets
                // the object with its reference ("changed here, deleted in the
                // store", Docs/Concurrency.md), whether the reference names a
                // record forgotten or one never saved (model seed 233095 at
                // length 80).
                if columns != nil {
                    switch storedColumn(of: object, entity, entity.attributes.count + position) {
                    case .gone: return
                    // Under `.storeTrumps` the store's newer value of the
                    // column wins the conflict: the reference is never
                    // written (model seeds 52408, 59678).
                    case .overruled: continue
                    case .written: break
                    }
                }
                if dropped { throw droppedReference(object, entity.relationships[index], target) }
                throw forgottenReference(object, entity.relationships[index].qualifiedName, target)
            }
        }
        for object in inserts {
            guard let entity = model.entity(for: type(of: object)), !entity.toOneIndexes.isEmpty else { continue }
            try check(object, entity, columns: nil)
        }
        for update in updates {
            guard let entity = model.entity(for: type(of: update.object)), !entity.toOneIndexes.isEmpty else { continue }
            try check(update.object, entity, columns: update.changes)
        }
        for pending in pendingJoins.values where pending.linked {
            for (object, other) in [(pending.source, pending.destination), (pending.destination, pending.source)]
            where other.withState({ $0.isForgotten }) {
                throw forgottenReference(object, pending.table.name, other)
            }
        }
    }

    /// What the save will do with a changed column of a saved object, read
    /// only on the way to refusing the save: nothing when its row is gone
    /// (a row once gone does not come back); nothing either under
    /// `.storeTrumps` when another writer changed the row and the column
    /// since the object read it — the save meets the conflict and the
    /// store's newer value wins, as ``SaveTransaction`` resolves it; else it
    /// writes the object's value.
    private func storedColumn(of object: any Entity, _ entity: EntityDescription, _ column: Int) -> StoredColumn {
        guard let rowID = object.stateRowID else { return .written }
        let row: (values: [SQLValue], version: Int64)?
        do {
            row = try reading("reading \(entity.name) #\(rowID)") { connection in try Self.storedRow(rowID, entity, on: connection) }
        } catch {
            // Unread, the reference is refused as written.
            return .written
        }
        guard let row else { return .gone }
        guard mergePolicy == .storeTrumps, row.version != object.withState({ $0.version }) else { return .written }
        guard let read = object.withState({ $0.valueAsRead(column) }), row.values.indices.contains(column), row.values[column] != read else { return .written }
        return .overruled
    }

    enum StoredColumn { case gone, overruled, written }

    /// The row as the store holds it now, read on `connection` (a save's own
    /// inside its transaction, or a reader): its column values (attributes,
    /// then to-ones) and version; `nil` when it was deleted.
    static func storedRow(
        _ rowID: Int64, _ entity: EntityDescription, on connection: Connection
    ) throws -> (values: [SQLValue], version: Int64)? {
        let sql = SelectStatement(select: entity.selectSQL, where: .rowID).sql
        guard let row = try connection.rows(sql, [.integer(rowID)]).first, row.count == entity.columnCount + 2 else { return nil }
        guard case .integer(let version) = row[entity.columnCount + 1] else { return nil }
        return (Array(row[1...entity.columnCount]), version)
    }

    /// How many saved members of a to-many's list no longer have a row.
    private func goneMembers(_ values: [any Entity], _ relationship: ResolvedRelationship) -> Int {
        guard let entity = model.entity(for: relationship.destination) else { return 0 }
        return values.count { $0.statePhase == .managed && rowIsGone($0, entity) }
    }

    /// Whether the saved object's row is no longer in the store (read only
    /// on the way to refusing a save: a row once gone does not come back).
    private func rowIsGone(_ object: any Entity, _ entity: EntityDescription) -> Bool {
        guard let rowID = object.stateRowID else { return false }
        let sql = SelectStatement([.rowID], from: entity.table, where: .rowID).sql
        let found = try? reading("reading \(entity.name) #\(rowID)") { connection in
            try !connection.rows(sql, [.integer(rowID)]).isEmpty
        }
        return found == false
    }

    /// A to-one naming an object deleted before it was ever saved (an insert
    /// dropped by `delete`, directly or by a cascade): the rule of the
    /// deleted side decides, as for a saved object. `.deny` refuses the
    /// deletion; `.nullify` and `.cascade` took the reference away when it
    /// was made, so what is left is a `.noAction` reference to a record that
    /// never existed. Written, either would be `NULL`, silently.
    private func droppedReference(_ object: any Entity, _ relationship: ResolvedRelationship, _ target: any Entity) -> LiteRecordError {
        if let inverse = model.inverse(of: relationship), inverse.deleteRule == .deny {
            return LiteRecordError(
                .validationFailed,
                "\(Self.describe(target)) cannot be deleted: \(inverse.qualifiedName) has the delete rule .deny and still relates it to \(Self.describe(object)); nothing was written"
            )
        }
        return LiteRecordError(
            .constraintViolation,
            "\(Self.describe(object)): \(relationship.qualifiedName) names a \(type(of: target).entityName) that was deleted before it was saved; relate another object (or none) and save"
        )
    }

    private func forgottenReference(_ object: any Entity, _ relationship: String, _ target: any Entity) -> LiteRecordError {
        LiteRecordError(
            .conflict,
            "\(Self.describe(object)): \(relationship) names a \(type(of: target).entityName) that was deleted elsewhere after this change was made; set the relationship again (or delete the object) and save"
        )
    }

    /// `Author #3` for a saved object, `a new Author` otherwise.
    static func describe(_ object: any Entity) -> String {
        let name = type(of: object).entityName
        return object.stateRowID.map { "\(name) #\($0)" } ?? "a new \(name)"
    }

    /// The objects of a deleted object's `.deny` relationship that still
    /// relate it. A list read before another writer deleted a record, or
    /// moved it to another owner, in a commit this context did not merge
    /// (an earlier check or a fetch loaded it) still names the record; an
    /// object this save does not change then relates nothing in the store,
    /// and `.deny` refuses only "while any remain" (Docs/Relationships.md):
    /// the check of a cascade that is not loaded reads the store and lets
    /// the deletion through, and so must this one. Read only when the
    /// check would refuse, and only in a root context (a child judges the
    /// graph of its parent, not the store).
    private func remainingRelated(
        _ related: [any Entity], of owner: any Entity, _ relationship: ResolvedRelationship, updates: [PlannedRow]
    ) throws(LiteRecordError) -> [any Entity] {
        guard parent == nil, let ownerRowID = owner.stateRowID else { return related }
        let changed = Set(updates.map { ObjectIdentifier($0.object) })
        func unchanged(_ object: any Entity) -> Bool {
            let state = object.recordState
            guard state.phase == .managed, state.rowID != nil, !changed.contains(ObjectIdentifier(object)) else { return false }
            return !pendingJoins.values.contains { $0.source === object || $0.destination === object }
        }
        let candidates = related.filter(unchanged).compactMap { $0.stateRowID }
        guard !candidates.isEmpty,
            let owners = try storedOwners(ofRows: candidates, relationship, "checking \(relationship.qualifiedName)")
        else { return related }
        let stored = Set(candidates.filter { owners[$0]?.contains(ownerRowID) == true })
        return related.filter { object in
            guard unchanged(object), let rowID = object.stateRowID else { return true }
            return stored.contains(rowID)
        }
    }

    /// The objects related through `relationship`, loading them if needed.
    func relatedObjects(_ object: any Entity, _ relationship: ResolvedRelationship) -> [any Entity] {
        if relationship.isToMany { return RelationGraph.toMany(object, relationship.index) }
        return RelationGraph.toOne(object, relationship.index).map { [$0] } ?? []
    }

    /// The inserts, each after the new objects its to-ones point at, so that
    /// the foreign keys can be written with the row; a cycle is cut where it
    /// closes, and that column is written after every insert.
    func insertionOrder(_ inserts: [any Entity]) -> [any Entity] {
        let pending = Set(inserts.map { ObjectIdentifier($0) })
        var placed = Set<ObjectIdentifier>()
        var visiting = Set<ObjectIdentifier>()
        var order: [any Entity] = []
        order.reserveCapacity(inserts.count)
        func visit(_ root: any Entity) {
            // Iterative depth-first walk: chains of new objects can be long.
            var stack: [(object: any Entity, expanded: Bool)] = [(root, false)]
            while let (object, expanded) = stack.popLast() {
                let id = ObjectIdentifier(object)
                if placed.contains(id) { continue }
                if expanded {
                    placed.insert(id)
                    visiting.remove(id)
                    order.append(object)
                    continue
                }
                if visiting.contains(id) { continue }
                visiting.insert(id)
                stack.append((object, true))
                guard let entity = model.entity(for: type(of: object)) else { continue }
                for index in entity.toOneIndexes {
                    guard case .toOne(let target?) = RelationGraph.slot(object, index) else { continue }
                    let targetID = ObjectIdentifier(target)
                    if pending.contains(targetID), !placed.contains(targetID), !visiting.contains(targetID) {
                        stack.append((target, false))
                    }
                }
            }
        }
        for object in inserts { visit(object) }
        return order
    }

    // MARK: Delete rules

    /// What a delete rule needs to know of one relationship: plain values,
    /// so that walking a large cascade copies no relationship description
    /// (with its strings) per object.
    struct DeleteStep {
        let index: Int
        let rule: RelationshipDescription.DeleteRule
        let isToMany: Bool
        let inverse: Int?
        let inverseIsToMany: Bool
        let destination: any Entity.Type
        /// Every related object is visited, loaded if needed: for a cascade,
        /// and for a nullify whose other side holds the foreign key.
        /// Otherwise only those in memory, since the store needs nothing
        /// (join rows go with the record) and a to-many drops deleted
        /// objects when read.
        let visitsAll: Bool
        /// A cascade whose destination holds the foreign key: when the
        /// to-many is not loaded, a root context leaves it to the store
        /// (``PendingCascade``) instead of reading the objects.
        let leavesToStore: Bool

        init(_ relationship: ResolvedRelationship) {
            index = relationship.index
            rule = relationship.deleteRule
            isToMany = relationship.isToMany
            inverse = relationship.inverseIndex
            inverseIsToMany = relationship.inverseIsToMany
            destination = relationship.destination
            let holdsKey: Bool
            switch relationship.storage {
            case .inverseForeignKey: holdsKey = true
            case .foreignKey: holdsKey = relationship.isOneToOne
            case .joinTable: holdsKey = false
            }
            visitsAll = rule == .cascade || (rule == .nullify && holdsKey)
            if case .inverseForeignKey = relationship.storage {
                leavesToStore = rule == .cascade && relationship.isToMany && relationship.inverseIndex != nil
            } else {
                leavesToStore = false
            }
        }
    }

    /// The delete steps of the objects of `type`, worked out once per type
    /// and context; empty for a type without relationships.
    func deleteSteps(_ type: any Entity.Type) -> [DeleteStep] {
        let id = ObjectIdentifier(type)
        if let steps = deleteStepsByType[id] { return steps }
        let steps = model.entity(for: type).map { $0.relationships.map(DeleteStep.init) } ?? []
        deleteStepsByType[id] = steps
        return steps
    }

    /// Calls `body` with each object a delete step visits (see
    /// ``DeleteStep/visitsAll``).
    private func forEachTouched(by object: any Entity, _ step: DeleteStep, _ body: (any Entity) -> Void) {
        if step.isToMany {
            if step.visitsAll {
                for other in RelationGraph.toMany(object, step.index) { body(other) }
            } else if case .toMany(let values) = RelationGraph.slot(object, step.index) {
                for other in values { body(other) }
            }
            return
        }
        if step.visitsAll {
            if let other = RelationGraph.toOne(object, step.index) { body(other) }
            return
        }
        switch RelationGraph.slot(object, step.index) {
        case .toOne(let other?):
            body(other)
        case .fault(let rowID?):
            // The registered object, as `RelationGraph.toOneInMemory` finds it.
            if let other = registeredObject(step.destination, rowID: rowID) { body(other) }
        case .toOne(nil), .fault(nil), .unloaded, .toMany:
            break
        }
    }

    /// Deletes `root` and applies the delete rules of it and of every object a
    /// cascade deletes in turn; each object is visited once, so cycles of
    /// cascades end. New objects are dropped once the rules ran, while they
    /// still know their related objects. A `.cascade` to-many that is not
    /// loaded is noted in `pendingCascades` instead, for the store
    /// (``PendingCascade``).
    func deleteApplyingRules(_ root: any Entity) {
        var walk = DeletionWalk()
        walk.collectsDoomed = !pendingJoins.isEmpty
        guard walk.doom(root, in: self) else { return }
        var work = [root]
        var last: (type: ObjectIdentifier, steps: [DeleteStep])?
        while let next = work.popLast() {
            // Objects come in runs of one entity (an owner's list): the steps
            // of the previous object's entity are usually the ones needed.
            let type = ObjectIdentifier(Swift.type(of: next))
            let steps: [DeleteStep]
            if let last, last.type == type {
                steps = last.steps
            } else {
                steps = deleteSteps(Swift.type(of: next))
                last = (type, steps)
            }
            for step in steps {
                if leavesToStore(next, step) {
                    pendingCascades.append(PendingCascade(owner: next, index: step.index))
                    continue
                }
                forEachTouched(by: next, step) { other in
                    if step.rule != .cascade {
                        walk.applyInverseRule(step, of: next, to: other)
                    } else if walk.doom(other, in: self) {
                        work.append(other)
                    }
                }
            }
        }
        Self.removeLeaving(walk.detached, walk.leaving)
        for object in walk.droppedInserts { forgetInserted(object) }
        if !walk.doomed.isEmpty { dropPendingJoins(touching: walk.doomed) }
    }

    /// Applies again the rules of `owners`, objects this context is
    /// deleting, whose relationship passes `reaching`, to the records of
    /// `written` they relate to now: a `.cascade` deletes one (not twice)
    /// unless its to-one is pointed elsewhere here, a `.nullify` clears its
    /// to-one where it still names the owner. No list is read: reading one
    /// would refresh the records the write did not change.
    func reapplyDeleteRules(of owners: [any Entity], where reaching: (ResolvedRelationship) -> Bool, written: Set<RecordID>) {
        let writtenRows = Dictionary(grouping: written, by: \.entityName).mapValues { $0.map(\.rowID) }
        var walk = DeletionWalk()
        for owner in owners {
            let type = Swift.type(of: owner)
            for step in deleteSteps(type) where step.rule == .cascade || step.rule == .nullify {
                guard case .some(let found) = model.relationship(of: type, at: step.index), let relationship = found, reaching(relationship) else { continue }
                var related: [any Entity] = []
                if step.isToMany, let inverse = step.inverse, case .inverseForeignKey(let column) = relationship.storage {
                    let rows = writtenRows[relationship.destinationName] ?? []
                    related = writtenObjects(naming: owner, step.destination, inverse, column, rows)
                } else if !step.isToMany {
                    forEachTouched(by: owner, step) { other in if other.recordID.map(written.contains) == true { related.append(other) } }
                }
                for other in related {
                    if step.rule == .nullify {
                        walk.applyInverseRule(step, of: owner, to: other)
                    } else if other.statePhase != .deleted, !Self.pointsElsewhere(other, step.inverse, than: owner) {
                        deleteApplyingRules(other)
                    }
                }
            }
        }
        Self.removeLeaving(walk.detached, walk.leaving)
        if !pendingCascades.isEmpty { expandPendingCascades() }
    }

    /// The records among `rows` (of `type`) whose to-one `inverse` names
    /// `owner` in memory. Of those not held, only the rows whose foreign key
    /// `column` names the owner are read: no other object is made.
    private func writtenObjects(naming owner: any Entity, _ type: any Entity.Type, _ inverse: Int, _ column: String, _ rows: [Int64]) -> [any Entity] {
        guard let rowID = owner.stateRowID, !rows.isEmpty else { return [] }
        var objects: [any Entity] = []
        var unheld: [Int64] = []
        for row in rows {
            if let object = registeredObject(type, rowID: row) { objects.append(object) } else { unheld.append(row) }
        }
        if !unheld.isEmpty, let entity = model.entity(for: type) {
            // The row ids first: a fetch loads the entity's doomed rows
            // (a store-side cascade's) before anything, which a write that
            // related nothing to the owner must not cost.
            let condition = WhereClause.column(inJSONArray: .rowID) && .equals(SQLIdentifier(column))
            let sql = SelectStatement([.rowID], from: entity.table, where: condition).sql
            do {
                let named = try reading("merging \(entity.name)") { connection in
                    try connection.rows(sql, [Self.jsonArray(unheld.sorted()), .integer(rowID)]).compactMap { row -> Int64? in
                        if case .integer(let id)? = row.first { id } else { nil }
                    }
                }
                if !named.isEmpty {
                    var query = SQLQuery()
                    query.whereSQL = WhereClause.column(inJSONArray: .rowID).sql
                    query.arguments = [Self.jsonArray(named)]
                    objects += try fetchAny(type, query)
                }
            } catch {
                store.logger.warning("merging a deletion's rules failed", metadata: ["entity": "\(entity.name)", "error": "\(error)"])
            }
        }
        return objects.filter { object in
            switch RelationGraph.slot(object, inverse) {
            case .fault(let named?): named == rowID
            case .toOne(let named?): named === owner
            default: false
            }
        }
    }

    /// Whether `other`'s to-one `inverse` names another object in memory
    /// than `owner`: a one-to-one paired elsewhere here, which the merge
    /// kept over the write's pairing (`overlay`'s rule for a loaded list).
    private static func pointsElsewhere(_ other: any Entity, _ inverse: Int?, than owner: any Entity) -> Bool {
        guard let inverse, case .toOne(let value) = RelationGraph.slot(other, inverse) else { return false }
        return value !== owner
    }

    /// Drops the pending many-to-many changes, links and unlinks, of
    /// objects just deleted (or inserts dropped): a deleted record's links
    /// go with its row (the join table's `ON DELETE CASCADE`), so no save,
    /// read or rule has a pending link of one to skip: with `noteJoin`, which
    /// ignores a link changed after the deletion, no pending link names a
    /// deleted object. A deletion taken back (`rollback()`, a refresh, a
    /// merge policy) leaves the links as stored.
    func dropPendingJoins(touching doomed: Set<ObjectIdentifier>) {
        guard !pendingJoins.isEmpty else { return }
        pendingJoins = pendingJoins.filter { _, pending in
            !doomed.contains(ObjectIdentifier(pending.source)) && !doomed.contains(ObjectIdentifier(pending.destination))
        }
    }

    /// Whether `step` of a deleted saved object is a `.cascade` to-many left
    /// to the store: not loaded, in a root context.
    private func leavesToStore(_ object: any Entity, _ step: DeleteStep) -> Bool {
        guard step.leavesToStore, parent == nil, case .unloaded = RelationGraph.slot(object, step.index) else { return false }
        let state = object.recordState
        return state.phase == .deleted && state.rowID != nil
    }

    /// The state of one ``deleteApplyingRules(_:)``.
    private struct DeletionWalk {
        /// New objects stay inserted until the end, so a set says which were
        /// visited; a saved object is visited once by construction, since its
        /// phase turns to `.deleted` when it is.
        var seenInserts = Set<ObjectIdentifier>()
        var droppedInserts: [any Entity] = []
        /// Every object it deleted, when the context holds pending links
        /// (``dropPendingJoins(touching:)``).
        var collectsDoomed = false
        var doomed = Set<ObjectIdentifier>()
        /// See `removeLeaving(_:_:)`.
        var detached: [(owner: any Entity, index: Int, objects: Range<Int>)] = []
        var leaving: [ObjectIdentifier] = []

        /// Marks `object` deleted; whether it was not visited yet.
        mutating func doom(_ object: any Entity, in context: RecordContext) -> Bool {
            let state = object.recordState
            guard state.belongs(to: context) else { return false }
            switch state.phase {
            case .inserted:
                guard seenInserts.insert(ObjectIdentifier(object)).inserted else { return false }
                context.noteCountedOwners(losing: object)
                droppedInserts.append(object)
                if collectsDoomed { doomed.insert(ObjectIdentifier(object)) }
                return true
            case .managed:
                context.noteCountedOwners(losing: object)
                context.markManagedDeleted(object)
                if collectsDoomed { doomed.insert(ObjectIdentifier(object)) }
                return true
            case .deleted, .unmanaged:
                return false
            }
        }

        /// A `.nullify`, `.deny` or `.noAction` step from the deleted
        /// `object` to `other`: `other` forgets it.
        mutating func applyInverseRule(_ step: DeleteStep, of object: any Entity, to other: any Entity) {
            guard let inverse = step.inverse else { return }
            if step.inverseIsToMany {
                if other.statePhase == .deleted {
                    RecordContext.noteLeaving(object, other, inverse, &detached, &leaving)
                } else {
                    RelationGraph.removeLoaded(other, inverse, object)
                }
            } else if step.rule == .nullify, RelationGraph.toOneInMemory(other, inverse) === object {
                RelationGraph.assignToOne(other, RelationGraph.relationshipOrPlaceholder(other, inverse), nil)
            }
        }
    }

    /// Notes that `object` leaves the loaded to-many `index` of `owner`, an
    /// object deleted too, for ``removeLeaving(_:_:)``: an entry of
    /// `detached` names its objects as a range of `leaving`, and entries for
    /// one list follow each other.
    fileprivate static func noteLeaving(
        _ object: any Entity, _ owner: any Entity, _ index: Int,
        _ detached: inout [(owner: any Entity, index: Int, objects: Range<Int>)], _ leaving: inout [ObjectIdentifier]
    ) {
        leaving.append(ObjectIdentifier(object))
        if let last = detached.last, last.owner === owner, last.index == index, last.objects.upperBound == leaving.count - 1 {
            detached[detached.count - 1].objects = last.objects.lowerBound..<leaving.count
        } else {
            detached.append((owner, index, leaving.count - 1..<leaving.count))
        }
    }

    /// Takes the objects noted by ``noteLeaving(_:_:_:_:_:)`` out of the
    /// loaded to-manys of objects deleted too (a cascade's owner, from each
    /// object it took along): together at the end of a deletion, one change
    /// per list rather than one per object.
    private static func removeLeaving(
        _ detached: [(owner: any Entity, index: Int, objects: Range<Int>)], _ leaving: [ObjectIdentifier]
    ) {
        for (owner, index, range) in detached {
            guard case .toMany(let values) = RelationGraph.slot(owner, index) else { continue }
            let objects = leaving[range]
            let gone = objects.count > 16 ? Set(objects) : nil
            let kept = values.filter { value in
                let id = ObjectIdentifier(value)
                return !(gone?.contains(id) ?? objects.contains(id))
            }
            RelationGraph.storeChange(.toMany(kept), in: owner, index)
        }
    }
}
