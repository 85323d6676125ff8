/// The in-memory side of relationships: reading a relationship (loading it
/// through the object's context when needed), and keeping inverses
/// consistent when one side is assigned.
///
/// Every object's relationship values live in its ``RecordState`` (the
/// `relations` slots), so the context reaches them without knowing the
/// object's Swift type.
@usableFromInline
enum RelationGraph {
    /// The relationship at `index` of the object's entity: the model's, when
    /// the object is in a context; worked out from the types otherwise.
    static func relationship(of object: any Entity, at index: Int) -> ResolvedRelationship? {
        let type = type(of: object)
        if let context = object.stateContext, case .some(let relationship) = context.model.relationship(of: type, at: index) {
            return relationship
        }
        let descriptions = type.relationships
        guard descriptions.indices.contains(index) else { return nil }
        var relationship = ResolvedRelationship(descriptions[index], index: index, entityName: type.entityName)
        if let inverse = try? Model.inverseIndex(of: type, relationship: index, in: descriptions[index].destination) {
            relationship.inverseIndex = inverse
            let other = descriptions[index].destination.relationships[inverse]
            relationship.inverseIsToMany = other.isToMany
            relationship.inverseIsCounted = other.isToMany && (other.minimumCount != nil || other.maximumCount != nil)
        }
        return relationship
    }

    // MARK: Slots

    /// `count` unloaded slots.
    ///
    /// Array literals for the usual small counts: `Array(repeating:count:)`
    /// (and `init(unsafeUninitializedCapacity:)`) allocate through an
    /// unspecialized standard-library function that looks the storage type
    /// up in the runtime's metadata cache at each call, some 600
    /// instructions, more than the rest of what a fetch does for a to-one.
    /// A literal's allocation is specialized here and uses a cached type.
    static func unloadedSlots(_ count: Int) -> [RelationValue] {
        filled(count, with: .unloaded)
    }

    /// Not inlined, so that `value` is not a constant where the literals
    /// are: a literal of constants is a static array, which the first write
    /// copies (an allocation and a copy more than building it).
    @inline(never)
    private static func filled(_ count: Int, with value: RelationValue) -> [RelationValue] {
        switch count {
        case 1: [value]
        case 2: [value, value]
        case 3: [value, value, value]
        case 4: [value, value, value, value]
        default: [RelationValue](repeating: value, count: count)
        }
    }

    /// The slot of relationship `index`, creating the slots on first use.
    @inline(__always)
    static func slot(_ object: any Entity, _ index: Int) -> RelationValue {
        object.withState { state in
            if state.relations.isEmpty { state.relations = unloadedSlots(type(of: object).relationships.count) }
            return state.relations.indices.contains(index) ? state.relations[index] : .unloaded
        }
    }

    static func store(_ value: RelationValue, in object: any Entity, _ index: Int) {
        // One access to the state, and no copy of the slot being replaced.
        object.withState { state in
            if state.relations.isEmpty { state.relations = unloadedSlots(type(of: object).relationships.count) }
            if state.relations.indices.contains(index) { state.relations[index] = value }
        }
    }

    /// Stores a value that changes what the object is related to (not a load
    /// of what it already was), telling Observation observers of the property.
    static func storeChange(_ value: RelationValue, in object: any Entity, _ index: Int) {
        object.withRelationshipMutation(at: index) { store(value, in: object, index) }
    }

    /// Marks a loaded to-many for reading again (its content may have
    /// changed in the store), telling observers when it was loaded.
    static func forget(_ index: Int, of object: any Entity) {
        guard case .toMany = slot(object, index) else { return }
        storeChange(.unloaded, in: object, index)
    }

    /// Whether the object's relationships live only in memory: a new object
    /// (or one without a context) has nothing in the store to load.
    static func isNew(_ object: any Entity) -> Bool {
        object.withState { state in state.phase == .inserted || state.phase == .unmanaged || state.context == nil }
    }

    // MARK: Reading

    static func toOne(_ object: any Entity, _ index: Int) -> (any Entity)? {
        switch slot(object, index) {
        case .toOne(let value):
            return value
        case .toMany:
            return nil
        case .fault(let rowID):
            guard let rowID else {
                store(.toOne(nil), in: object, index)
                return nil
            }
            guard let context = object.stateContext, let relationship = relationship(of: object, at: index) else { return nil }
            // Nothing stored for a target deleted here (the fault keeps its
            // row, which a rollback brings back) or one that cannot be read.
            guard case .some(let loaded) = context.loadToOne(relationship, rowID: rowID) else { return nil }
            store(.toOne(loaded), in: object, index)
            return loaded
        case .unloaded:
            if isNew(object) {
                store(.toOne(nil), in: object, index)
                return nil
            }
            guard let loaded = readForeignKey(object, index) else { return nil }
            store(loaded, in: object, index)
            return toOne(object, index)
        }
    }

    /// The slot of a saved object's to-one never read yet, as a first read
    /// finds it: the row's foreign key as a fault (in a child, its
    /// ancestors' unsaved to-one); `nil` when it cannot be read.
    static func readForeignKey(_ object: any Entity, _ index: Int) -> RelationValue? {
        guard let context = object.stateContext, let relationship = relationship(of: object, at: index) else { return nil }
        // A child reads its ancestors' unsaved to-one, not the stored one.
        if context.parent != nil, let inherited = context.ancestorToOne(of: object, relationship) { return inherited }
        return context.loadForeignKey(of: object, relationship).map { .fault($0) }
    }

    /// The to-one's slot, read first when it never was (see
    /// ``readForeignKey(_:_:)``), without reading the object it names: what
    /// the object holds, to compare or keep as the value it was read with.
    static func readSlot(_ object: any Entity, _ index: Int) -> RelationValue {
        let value = slot(object, index)
        guard case .unloaded = value, !isNew(object), let loaded = readForeignKey(object, index) else { return value }
        store(loaded, in: object, index)
        return loaded
    }

    @usableFromInline
    static func toMany(_ object: any Entity, _ index: Int) -> [any Entity] {
        switch slot(object, index) {
        case .toMany(let values):
            // Objects deleted (or gone) since the list was loaded leave it now.
            guard let owner = object.stateOwner,
                values.contains(where: { value in
                    // One access to the state: each is a protocol call.
                    value.withState { state in state.phase == .deleted || state.owner != owner }
                })
            else { return values }
            let kept = values.filter { $0.statePhase != .deleted && $0.stateOwner == owner }
            store(.toMany(kept), in: object, index)
            return kept
        case .toOne, .fault:
            return []
        case .unloaded:
            if isNew(object) {
                store(.toMany([]), in: object, index)
                return []
            }
            guard let context = object.stateContext, let relationship = relationship(of: object, at: index),
                let loaded = context.loadToMany(of: object, relationship)
            else { return [] }
            store(.toMany(loaded), in: object, index)
            return loaded
        }
    }

    /// The to-one's object when it is at hand without reading the store: the
    /// loaded value, or the registered object a fault names.
    static func toOneInMemory(_ object: any Entity, _ index: Int) -> (any Entity)? {
        switch slot(object, index) {
        case .toOne(let value):
            return value
        case .fault(let rowID?):
            guard let context = object.stateContext, let relationship = relationship(of: object, at: index) else { return nil }
            return context.registeredObject(relationship.destination, rowID: rowID)
        case .fault(nil), .unloaded, .toMany:
            return nil
        }
    }

    // MARK: Writing

    /// Whether `value` may be related to `object`; when one of them is in a
    /// context and the other in none, the other joins it. Misuse is reported
    /// by the context's next save.
    static func admit(_ value: any Entity, to object: any Entity, _ index: Int) -> Bool {
        let (state, other) = (object.recordState, value.recordState)
        var name: String { "\(type(of: object).entityName).\(relationship(of: object, at: index)?.name ?? "relationship \(index)")" }
        if other.phase == .deleted || (other.phase == .managed && other.context == nil) {
            report("\(name) was given a \(type(of: value).entityName) object that is deleted", to: state.context ?? other.context)
            return false
        }
        switch (state.context, other.context) {
        case (let mine?, let theirs?):
            if mine !== theirs {
                report(
                    "\(name) was given a \(type(of: value).entityName) object of another context; use `object.inContext(context)` to get it in this one",
                    to: mine)
                return false
            }
        case (let mine?, nil):
            mine.insert(value)
        case (nil, let theirs?):
            theirs.insert(object)
        case (nil, nil):
            break
        }
        return true
    }

    private static func report(_ message: String, to context: RecordContext?) {
        context?.pendingErrors.append(LiteRecordError(.invalidObject, message))
    }

    static func setToOne(_ object: any Entity, _ index: Int, _ value: (any Entity)?) {
        guard let relationship = relationship(of: object, at: index), !relationship.isToMany else { return }
        if let value, !admit(value, to: object, index) { return }
        if relationship.inverseIsCounted, let context = object.stateContext {
            // The list the object leaves, read if it is not at hand, and the
            // one it joins: their counts are checked at the next save.
            context.noteCountedOwner(toOne(object, index), list: relationship.inverseIndex)
            context.noteCountedOwner(value, list: relationship.inverseIndex)
        }
        // A one-to-one keeps a column on each side: the partner the object
        // leaves is read if it is not at hand, so that its side is cleared
        // too (Docs/Relationships.md: either side updates the other).
        let isOneToOne = relationship.isOneToOne
        let old = isOneToOne ? toOne(object, index) : toOneInMemory(object, index)
        let unchanged: Bool
        switch slot(object, index) {
        case .toOne(let current): unchanged = current === value
        case .fault(let rowID):
            // The object the fault names is no change either, whether or not
            // it was read (a push setting the parent's to-one it already has).
            unchanged = value.map { rowID != nil && $0.stateRowID == rowID } ?? (rowID == nil)
        case .unloaded, .toMany: unchanged = false
        }
        // In a child, a to-one naming what an ancestor inserted (or deleted)
        // reads nil; setting it to nil is still a change the push carries.
        if unchanged, value != nil || object.stateContext?.ancestorHidesTarget(of: object, relationship) != true { return }
        assignToOne(object, relationship, value)
        guard let inverse = relationship.inverseIndex else { return }
        if let old, old !== value { detachInverse(old, inverse, relationship.inverseIsToMany, from: object) }
        guard let value else { return }
        if relationship.inverseIsToMany {
            appendLoaded(value, inverse, object)
        } else {
            // One-to-one: the object `value` pointed at loses it, read if
            // it is not at hand (its column names `value` in the store).
            if let previous = toOne(value, inverse), previous !== object {
                assignToOne(previous, relationshipOrPlaceholder(previous, index), nil)
            }
            assignToOne(value, relationshipOrPlaceholder(value, inverse), object)
        }
    }

    static func setToMany(_ object: any Entity, _ index: Int, _ values: [any Entity]) {
        guard let relationship = relationship(of: object, at: index), relationship.isToMany else { return }
        let current = toMany(object, index)
        var kept: [any Entity] = []
        var seen = Set<ObjectIdentifier>()
        for value in values where seen.insert(ObjectIdentifier(value)).inserted {
            if admit(value, to: object, index) { kept.append(value) }
        }
        let currentIDs = Set(current.map { ObjectIdentifier($0) })
        let removed = current.filter { !seen.contains(ObjectIdentifier($0)) }
        let added = kept.filter { !currentIDs.contains(ObjectIdentifier($0)) }
        let context = object.stateContext
        if relationship.isCounted { context?.noteCountedOwner(object, list: index) }
        if relationship.isCounted, !relationship.inverseIsToMany, let inverse = relationship.inverseIndex {
            // The lists the added objects leave, read if not at hand.
            for value in added { context?.noteCountedOwner(toOne(value, inverse), list: index) }
        }
        storeChange(.toMany(kept), in: object, index)
        for value in removed {
            if let inverse = relationship.inverseIndex {
                detachInverse(value, inverse, relationship.inverseIsToMany, from: object)
            }
            context?.noteJoin(object, relationship, value, linked: false)
        }
        for value in added {
            if let inverse = relationship.inverseIndex {
                if relationship.inverseIsToMany {
                    appendLoaded(value, inverse, object)
                } else {
                    // The object's previous owner loses it.
                    if let previous = toOneInMemory(value, inverse), previous !== object {
                        removeLoaded(previous, index, value)
                    }
                    assignToOne(value, relationshipOrPlaceholder(value, inverse), object)
                }
            }
            context?.noteJoin(object, relationship, value, linked: true)
        }
    }

    /// Removes `object` from `related`'s side of the inverse relationship.
    static func detachInverse(_ related: any Entity, _ inverse: Int, _ inverseIsToMany: Bool, from object: any Entity) {
        if inverseIsToMany {
            removeLoaded(related, inverse, object)
        } else if toOneInMemory(related, inverse) === object {
            assignToOne(related, relationshipOrPlaceholder(related, inverse), nil)
        }
    }

    static func relationshipOrPlaceholder(_ object: any Entity, _ index: Int) -> ResolvedRelationship {
        relationship(of: object, at: index) ?? ResolvedRelationship.placeholder(index)
    }

    /// Sets a to-one's slot and records the change of its column for the next save.
    static func assignToOne(_ object: any Entity, _ relationship: ResolvedRelationship, _ value: (any Entity)?) {
        if object.statePhase == .managed, object.withState({ $0.storedValues == nil }), let column = relationship.columnIndex, !object.withState({ $0.changes.contains(column) }) {
            // The value as read, for a merge policy set to `.storeTrumps`
            // after this change (RecordState.readToOnes).
            let read: SQLValue?
            // Never read yet (an object a list or a prefetch brought in):
            // read now, as a first read of the to-one would (model seed
            // 265456 at length 60).
            switch readSlot(object, relationship.index) {
            case .fault(let rowID): read = rowID.map { .integer($0) } ?? .null
            case .toOne(let target): read = target.map { $0.stateRowID.map { .integer($0) } } ?? .null
            case .unloaded, .toMany: read = nil
            }
            var kept = object.withState({ $0.readToOnes }) ?? [:]
            kept[column] = read
            object.recordState.readToOnes = kept
        }
        if object.statePhase == .deleted, let context = object.stateContext {
            context.noteSlotChangedWhileDeleted(object, relationship.index, slot(object, relationship.index))
        }
        storeChange(.toOne(value), in: object, relationship.index)
        guard object.statePhase == .managed, let context = object.stateContext, let column = relationship.columnIndex else { return }
        object.recordState.changes.insert(column)
        if !object.withState({ $0.listings.contains(.updated) }) { context.objectDidChange(object) }
    }

    /// Appends to a to-many that is in memory (a new object's, or a loaded one).
    static func appendLoaded(_ object: any Entity, _ index: Int, _ value: any Entity) {
        var values: [any Entity]
        switch slot(object, index) {
        case .toMany(let loaded): values = loaded
        case .unloaded where isNew(object): values = []
        default: return
        }
        guard !values.contains(where: { $0 === value }) else { return }
        values.append(value)
        storeChange(.toMany(values), in: object, index)
    }

    static func removeLoaded(_ object: any Entity, _ index: Int, _ value: any Entity) {
        guard case .toMany(var values) = slot(object, index) else { return }
        values.removeAll { $0 === value }
        storeChange(.toMany(values), in: object, index)
    }
}

extension ResolvedRelationship {
    /// A stand-in used when an object's model is unknown: it records no change.
    static func placeholder(_ index: Int) -> ResolvedRelationship {
        ResolvedRelationship(
            RelationshipDescription("", toOne: PlaceholderEntity.self), index: index, entityName: "")
    }
}

/// The destination of ``Relationship/placeholder(_:)``; never stored.
private final class PlaceholderEntity: Entity {
    var recordState = RecordState()
    static let attributes: [AttributeDescription] = []
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}
