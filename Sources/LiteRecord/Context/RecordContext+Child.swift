extension RecordContext {
    /// A scratchpad on top of this context: edit in it freely, then `save()` it
    /// to push the edits into this context only — nothing reaches the store until
    /// this context (or the root of the chain) saves. Drop it, or call
    /// `rollback()`, to discard the edits. Children can have children.
    ///
    /// ```swift
    /// let draft = context.makeChildContext()
    /// let note = try #require(note.inContext(draft))
    /// note.title = "Edited"
    /// try draft.save()        // context now holds the edit, unsaved
    /// try context.save()      // now it is in the store
    /// ```
    ///
    /// A child reads the store and sees the parent's unsaved edits and
    /// deletions of saved records, relationship changes included: a to-one
    /// the parent reassigned, the to-manys that follows from, many-to-many
    /// links it added or removed. Records the parent inserted and has not saved
    /// are not visible to it, so a to-one naming one reads `nil` in the child
    /// (and a to-many does not list it); the parent's link stays as it is when
    /// the child saves. See `Docs/Relationships.md`.
    public func makeChildContext() -> RecordContext {
        RecordContext(store: store, parent: self, role: role)
    }

    /// Whether this context saves into a parent context.
    public var isChild: Bool { parent != nil }

    /// What a push changes, worked out before anything changes.
    private struct PushPlan {
        /// Each changed saved object, its parent's object, the attributes to
        /// copy and the child's values of every attribute.
        var updates: [(child: any Entity, parent: any Entity, indexes: [Int], row: Row)] = []
        var relinked: [(child: any Entity, parent: any Entity, toOnes: [Int])] = []
        /// The child's deleted objects and the parent's object of each.
        var deleted: [(child: any Entity, parent: any Entity)] = []
        /// Each new object and its copy for the parent, with the child's values.
        var copies: [(child: any Entity, parent: any Entity, values: [SQLValue])] = []
    }

    /// Pushes this child's inserts, changes and deletions into its parent,
    /// all or nothing, as a root save writes them: every check a root save
    /// makes before its transaction (`willSave`, validation, the relationship
    /// rules, the encoding of every value) runs first, so a failure leaves
    /// both contexts as they were. Links go before deletions, so that the
    /// parent's delete rules meet the graph the child left.
    func pushToParent(_ parent: RecordContext) throws(LiteRecordError) {
        let plan = try planPush(into: parent)
        for (child, target, indexes, row) in plan.updates {
            try withErrorContext("pushing \(type(of: child).entityName) to the parent context") {
                try copyAttributes(indexes, from: row, to: target)
            }
            child.recordState.clearChanges()
            if !type(of: child).tracksChanges { child.recordState.snapshot = row.values }
        }
        let joins = pendingJoins
        pendingJoins.removeAll()
        countedOwners.removeAll()
        for (child, copy, values) in plan.copies {
            parent.insertCopy(copy)
            // The child's object now stands for the parent's copy: saved as far
            // as this child is concerned, though it has no row id yet.
            child.recordState.phase = .managed
            child.recordState.clearChanges()
            child.recordState.snapshot = values
            pushed[ObjectIdentifier(child)] = (child, copy)
            if !type(of: child).tracksChanges { untracked[ObjectIdentifier(child)] = child }
        }
        inserted.removeAll()
        if store.model.hasRelationships {
            pushRelationships(
                copies: plan.copies.map { ($0.child, $0.parent) }, relinked: plan.relinked, joins: joins, to: parent,
                counterparts: Dictionary(plan.copies.map { (ObjectIdentifier($0.child), $0.parent) }, uniquingKeysWith: { a, _ in a }))
        }
        for (_, target) in plan.deleted { parent.delete(target) }
        for (object, _) in plan.deleted {
            pushed.removeValue(forKey: ObjectIdentifier(object))
            unregister(object)
        }
        slotsChangedWhileDeleted.removeAll()
        clearChangeLists()
    }

    /// Resolves every parent object and runs every check of a push, changing
    /// nothing in either context.
    private func planPush(into parent: RecordContext) throws(LiteRecordError) -> PushPlan {
        let (changed, untrackedChanges) = try collectForPush()
        var plan = PushPlan()
        let (updates, relinked) = try parentUpdates(changed, untrackedChanges, in: parent)
        plan.relinked = relinked
        let deleted = collectDeleted()
        for object in deleted { plan.deleted.append((object, try parentObject(for: object, in: parent))) }
        if store.model.hasRelationships {
            try checkPushedRelationshipRules(changed: changed + untrackedChanges.map(\.object), deleted: deleted)
        }
        for (child, target, indexes) in updates {
            let entity = try entity(for: type(of: child))
            let row = Row(values: try storedValues(child), entity: entity)
            // Reading every value back into a new object proves that copying
            // them into the parent's object cannot fail halfway.
            _ = try copy(of: child, row: row)
            plan.updates.append((child, target, indexes, row))
        }
        for object in inserted {
            let values = try storedValues(object)
            plan.copies.append((object, try copy(of: object, row: Row(values: values, entity: try entity(for: type(of: object)))), values))
        }
        return plan
    }

    /// The relationship rules a root save checks (``checkRelationshipRules(inserts:updates:deletes:)``),
    /// on the graph this child pushes: `.deny` and the counts of to-manys.
    private func checkPushedRelationshipRules(changed: [any Entity], deleted: [any Entity]) throws(LiteRecordError) {
        // The check reads only each row's object and entity: an object pushed
        // from a grandchild has no row id yet.
        func rows(_ objects: [any Entity]) -> [PlannedRow] {
            objects.map { PlannedRow($0, $0.recordState, rowID: $0.stateRowID ?? 0) }
        }
        try checkRelationshipRules(inserts: inserted, updates: rows(changed), deletes: rows(deleted))
    }

    /// The parent's object for each changed object of this child, with the
    /// attributes to copy, and for those whose to-ones changed, the to-one
    /// columns to push as links (they follow the attributes).
    ///
    /// - Throws: `.invalidObject` when an object has no counterpart in the parent.
    private func parentUpdates(
        _ changed: [any Entity], _ untrackedChanges: [(object: any Entity, indexes: [Int])], in parent: RecordContext
    ) throws(LiteRecordError) -> (
        updates: [(child: any Entity, parent: any Entity, indexes: [Int])],
        relinked: [(child: any Entity, parent: any Entity, toOnes: [Int])]
    ) {
        var updates: [(child: any Entity, parent: any Entity, indexes: [Int])] = []
        var relinked: [(child: any Entity, parent: any Entity, toOnes: [Int])] = []
        let relationships = store.model.hasRelationships
        for object in changed {
            var indexes = object.withState({ $0.changes.indexes })
            if relationships {
                let attributeCount = type(of: object).attributes.count
                let toOnes = indexes.filter { $0 >= attributeCount }
                indexes.removeAll { $0 >= attributeCount }
                if !toOnes.isEmpty { relinked.append((object, try parentObject(for: object, in: parent), toOnes)) }
            }
            guard !indexes.isEmpty else { continue }
            updates.append((object, try parentObject(for: object, in: parent), indexes))
        }
        for (object, indexes) in untrackedChanges {
            updates.append((object, try parentObject(for: object, in: parent), indexes))
        }
        return (updates, relinked)
    }

    /// Runs `willSave` and validation as a root save runs them
    /// (``runWillSave()``), and returns the saved objects with listed
    /// changes and the untracked ones with changed attributes.
    ///
    /// - Throws: `.validationFailed` from a `validateForSave()` or from
    ///   ``runWillSave()``.
    private func collectForPush() throws(LiteRecordError) -> (
        changed: [any Entity], untracked: [(object: any Entity, indexes: [Int])]
    ) {
        let changed = try runWillSave()
        var untrackedChanges: [(object: any Entity, indexes: [Int])] = []
        for object in untracked.values where object.statePhase == .managed {
            let indexes = changedIndexesUntracked(object)
            if !indexes.isEmpty { untrackedChanges.append((object, indexes)) }
        }
        for object in inserted { try validate(object) }
        for object in changed { try validate(object) }
        // A listed untracked object was validated with `changed`.
        for change in untrackedChanges where !change.object.withState({ $0.listings.contains(.updated) }) {
            try validate(change.object)
        }
        return (changed, untrackedChanges)
    }

    /// Makes the parent's objects related as this child's are: the to-ones of
    /// new and re-linked objects, and the many-to-many links added or removed.
    /// The parent keeps its own inverses up to date as it takes them.
    private func pushRelationships(
        copies: [(child: any Entity, parent: any Entity)],
        relinked: [(child: any Entity, parent: any Entity, toOnes: [Int])],
        joins: [JoinKey: PendingJoin], to parent: RecordContext, counterparts: [ObjectIdentifier: any Entity]
    ) {
        func counterpart(_ object: any Entity) -> (any Entity)? {
            if let copy = counterparts[ObjectIdentifier(object)] { return copy }
            return try? parentObject(for: object, in: parent)
        }
        func pushToOne(_ child: any Entity, _ target: any Entity, _ index: Int) {
            guard case .toOne(let value) = RelationGraph.slot(child, index) else { return }
            RelationGraph.setToOne(target, index, value.flatMap(counterpart))
        }
        for (child, copy) in copies {
            guard let entity = model.entity(for: type(of: child)) else { continue }
            for index in entity.toOneIndexes { pushToOne(child, copy, index) }
        }
        for (child, target, columns) in relinked {
            guard let entity = model.entity(for: type(of: child)) else { continue }
            for column in columns { pushToOne(child, target, entity.toOne(atColumn: column).index) }
        }
        for join in joins.values {
            guard let source = counterpart(join.source), let destination = counterpart(join.destination),
                let entity = model.entity(for: type(of: source)),
                let relationship = entity.relationships.first(where: {
                    if case .joinTable(let table) = $0.storage { return table.name == join.table.name && $0.ownsJoinTable }
                    return false
                })
            else { continue }
            var current = RelationGraph.toMany(source, relationship.index)
            if join.linked {
                if !current.contains(where: { $0 === destination }) { current.append(destination) }
            } else {
                current.removeAll { $0 === destination }
            }
            RelationGraph.setToMany(source, relationship.index, current)
        }
    }

    /// The parent's object for one of this child's saved or pushed objects.
    private func parentObject(for object: any Entity, in parent: RecordContext) throws(LiteRecordError) -> any Entity {
        if let pair = pushed[ObjectIdentifier(object)] { return pair.parent }
        guard let id = object.recordID else {
            throw LiteRecordError(.invalidObject, "a \(type(of: object).entityName) in the child context has no counterpart in its parent")
        }
        guard let found = try parent.counterpart(of: object, id: id) else {
            throw LiteRecordError(.invalidObject, "\(id) no longer exists in the parent context")
        }
        return found
    }

    private func counterpart<T: Entity>(of object: T, id: RecordID) throws(LiteRecordError) -> (any Entity)? {
        try self.existingObject(with: id, as: T.self)
    }

    /// A new, unmanaged object of the same type holding `row`'s values.
    private func copy(of object: any Entity, row: Row) throws(LiteRecordError) -> any Entity {
        do {
            return try makeObject(like: object, row: row)
        } catch {
            throw LiteRecordError.wrap(error, "copying \(type(of: object).entityName) to the parent context")
        }
    }

    private func makeObject<T: Entity>(like object: T, row: Row) throws -> any Entity {
        try T(row: row)
    }

    private func insertCopy(_ object: any Entity) {
        insertOpened(object)
    }

    private func insertOpened<T: Entity>(_ object: T) {
        insert(object, awake: false)
    }

    private func copyAttributes(_ indexes: [Int], from row: Row, to target: any Entity) throws {
        let count = type(of: target).attributes.count
        for index in indexes where index < count {
            try target.decodeAttribute(at: index, from: row)
            target.didChangeAttributeOpened(index)
        }
    }

    /// Overlays the unsaved state of the ancestors onto an object this child
    /// just read from the store. Returns `false` when an ancestor deleted it.
    func overlayAncestors<T: Entity>(_ object: T, rowID: Int64) throws -> Bool {
        guard let held = nearestAncestorHolding(T.self, rowID: rowID)?.object else { return true }
        if held.statePhase == .deleted { return false }
        let entity = try entity(for: T.self)
        let values = try copiedValues(held)
        let row = Row(values: values, entity: entity)
        for index in entity.attributes.indices { try object.decodeAttribute(at: index, from: row) }
        if !T.tracksChanges { object.recordState.snapshot = values }
        return true
    }
}

extension Entity {
    /// Marks an attribute changed in the object's context, whatever its value.
    func didChangeAttributeOpened(_ index: Int) {
        if Self.tracksChanges { didChangeAttribute(at: index) }
    }
}

extension RecordContext {
    /// Refuses an operation that writes to the store at once (`updateAll`,
    /// `deleteAll`, `truncateAll`, `findFirstOrCreate`) in a child context,
    /// whose changes must reach nothing but its parent until the root saves,
    /// and which `rollback()` must be able to discard.
    ///
    /// - Throws: `.invalidObject` in a child context.
    func requireRoot(for operation: @autoclosure () -> String) throws(LiteRecordError) {
        guard parent != nil else { return }
        throw LiteRecordError(
            .invalidObject,
            "\(operation()) cannot run in a child context: it writes to the store at once, and a child's changes go to its parent only; run it on the root context (or in RecordStack.write), or change the objects here and save"
        )
    }
}

/// A child context, held weakly by its parent: children come and go with
/// their owners, and a parent must not keep them alive.
final class WeakContext {
    weak var context: RecordContext?
    init(_ context: RecordContext) { self.context = context }
}

extension RecordContext {
    /// Gives each object this child inserted and pushed the record id its
    /// parent's copy now has, once a save stored that copy: the object is
    /// then this context's object for the record (registered, with the row id
    /// and version), so the child keeps one object per record, as Core Data's
    /// child contexts do once their parent saves. Then tells this context's
    /// own children, whose pushed objects may stand for objects adopted here.
    func adoptSavedPushes() {
        for (key, pair) in pushed {
            let copy = pair.parent.recordState
            guard let parent, copy.belongs(to: parent), copy.phase == .managed, let rowID = copy.rowID else { continue }
            pushed.removeValue(forKey: key)
            guard pair.child.stateBelongs(to: self), pair.child.statePhase == .managed || pair.child.statePhase == .deleted else { continue }
            pair.child.recordState.rowID = rowID
            pair.child.recordState.version = copy.version
            let table = identityMap.table(for: type(of: pair.child))
            if let replaced = table.insert(pair.child, rowID: rowID), replaced !== pair.child {
                replaced.recordState.detach(forgotten: true)
            }
        }
        tellChildrenOfSavedPushes()
    }

    /// ``adoptSavedPushes()`` in every live child.
    func tellChildrenOfSavedPushes() {
        children.removeAll { $0.context == nil }
        for child in children { child.context?.adoptSavedPushes() }
    }
}
