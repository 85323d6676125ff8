/// # The store-side cascade
///
/// Deleting a saved object in a root context whose `.cascade` to-many (held
/// by the destination's foreign key) is not loaded does not make objects for
/// the rows the rule takes along: the deletion reads their row ids and
/// versions, and the save deletes them by row-id list, per entity and
/// version (``RowIDListDeletes``). It means exactly what loading every related object at the
/// deletion and applying the rules in memory means — the rows left, the
/// change set, the conflicts and the errors — under every merge policy, at
/// every depth, from a child context too (Docs/Internals/Invariants.md, "A
/// fast path means what the plain path means"). That holds by these invariants:
///
/// 1. **Decided at the deletion.** Before `delete(_:)` returns, every row
///    the deletion takes along is found, level by level, with one statement
///    per relationship (``RecordContext/expandPendingCascades()``). A row
///    of an object this context holds is that object's business, at every
///    level: it is deleted in memory, with its own rules, when its to-one
///    still names the doomed row as `overlay` would read it (a to-one this
///    context pointed elsewhere spares it; one never read is the stored
///    value). Every other row is kept with the version read then.
/// 2. **No object stands for a doomed row.** Whatever could make one — a
///    fetch or a to-one of the entity, ``RecordContext/deletedObjects``, a
///    child context's read — first loads that entity's doomed rows as
///    deleted objects at the version read at the deletion
///    (``RecordContext/loadStoreCascade(of:)``).
/// 3. **The rules of doomed rows are the loaded objects' rules.** `.cascade`
///    is followed by (1); `.nullify` where the other side holds the key
///    loads those objects and clears their to-one in memory, so the save
///    writes them with their versions; `.deny` is checked at the save with
///    this context's changes laid over the store's links, and names the
///    objects as the loaded check does
///    (``RecordContext/checkStoreCascadeDenyRules()``); `.noAction` does
///    nothing.
/// 4. **Versions checked.** Each row is deleted at the version read at the
///    deletion; a row changed since, by this context or another, is a
///    conflict that the merge policy resolves as it resolves a loaded
///    object's deletion (`.error` throws `.conflict`, `.objectTrumps`
///    deletes, `.storeTrumps` keeps the row). The fast path skips the check
///    when nothing changed the store since the reads (``StoreStamp``) and
///    deletes by the foreign keys that named exactly the doomed rows
///    (``DoomedRows/foreignKeyCovers``): then every row is at the version
///    read, and the check could only pass (Docs/Internals/Architecture.md,
///    "The store-side cascade's fast path").
/// 5. **Apart from the save's own writes.** The save's statements write only
///    rows of objects, and no object stands for a doomed row (2), so where
///    in the transaction the `DELETE`s run changes nothing but speed: they
///    run first, rows holding foreign keys before the rows they name, so
///    that SQLite counts no deferred foreign-key violation.
/// 6. **Once decided, it stays.** Taking the owner's deletion back (inserting
///    it again, a merge policy keeping it) leaves the rows doomed, as it
///    leaves loaded objects deleted; a failed save leaves it as it was;
///    `rollback()` and `reset()` forget it.
struct PendingCascade {
    /// The deleted object.
    let owner: any Entity
    /// The to-many's index among the owner entity's relationships.
    let index: Int
}

/// The pending cascades of one relationship: the deleted owners and their row ids.
struct CascadeGroup {
    let relationship: ResolvedRelationship
    var owners: [any Entity]
    var rowIDs: [Int64]
}

/// The rows that named `owners` in `column` when the deletion read them:
/// all of them, each doomed (``DoomedRows/foreignKeyCovers``).
struct ForeignKeyCover {
    let column: String
    let owners: [Int64]
}

/// The doomed rows of one entity, each with the version read at the deletion.
struct DoomedRows {
    let entity: EntityDescription
    private(set) var rowIDs: [Int64] = []
    private(set) var versions: [Int64] = []
    /// The row ids, once rows were added twice (to keep each once).
    private var members: Set<Int64>?
    /// The foreign keys whose rows, as read, are exactly these rows — each
    /// addition was every row a foreign key named — or nil once one was not
    /// (a row held here, spared or deleted as an object; another storage).
    private(set) var foreignKeyCovers: [ForeignKeyCover]? = []

    init(_ entity: EntityDescription) { self.entity = entity }

    /// Adds the rows not there yet, which are every row `cover` names when
    /// it is given; returns their row ids.
    mutating func add(_ rows: [(rowID: Int64, version: Int64)], cover: ForeignKeyCover? = nil) -> [Int64] {
        if let cover { foreignKeyCovers?.append(cover) } else { foreignKeyCovers = nil }
        if rowIDs.isEmpty {
            // One statement's rows: each comes once.
            rowIDs = rows.map { $0.rowID }
            versions = rows.map { $0.version }
            return rowIDs
        }
        if members == nil { members = Set(rowIDs) }
        var fresh: [Int64] = []
        for row in rows where members?.insert(row.rowID).inserted == true {
            rowIDs.append(row.rowID)
            versions.append(row.version)
            fresh.append(row.rowID)
        }
        return fresh
    }

    /// The rows by version, the usual single version without grouping.
    var byVersion: [(version: Int64, rowIDs: [Int64])] {
        guard let first = versions.first else { return [] }
        if versions.allSatisfy({ $0 == first }) { return [(first, rowIDs)] }
        var groups: [Int64: [Int64]] = [:]
        for (rowID, version) in zip(rowIDs, versions) { groups[version, default: []].append(rowID) }
        return groups.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// A context's store-side cascade (see ``PendingCascade``): the doomed rows,
/// by entity type.
struct StoreCascade {
    /// Rows no object was asked for yet.
    private(set) var pending: [ObjectIdentifier: DoomedRows] = [:]
    /// Rows whose objects were asked for and were gone from the store: the
    /// save still counts them, as it counts a loaded object deleted elsewhere.
    private(set) var settled: [ObjectIdentifier: DoomedRows] = [:]
    /// The writer's stamp taken before each read of doomed rows, while every
    /// one was taken and all are equal; nil otherwise (``StoreStamp``).
    private(set) var readStamp: StoreStamp?
    private var reads = 0

    var isEmpty: Bool { pending.isEmpty && settled.isEmpty }

    /// Notes the stamp taken before a read of doomed rows.
    mutating func noteRead(_ stamp: StoreStamp?) {
        readStamp = reads == 0 || readStamp == stamp ? stamp : nil
        reads += 1
    }

    /// Adds rows of `entity`, which are every row `cover` names when it is
    /// given; returns the row ids new to the cascade.
    mutating func add(_ entity: EntityDescription, _ rows: [(rowID: Int64, version: Int64)], cover: ForeignKeyCover? = nil) -> [Int64] {
        guard !rows.isEmpty else { return [] }
        let key = ObjectIdentifier(entity.type)
        var rows = rows
        var cover = cover
        if let settled = settled[key] {
            let known = Set(settled.rowIDs)
            rows.removeAll { known.contains($0.rowID) }
            // A foreign key naming a settled row names a row the save deletes as an object.
            cover = nil
        }
        return pending[key, default: DoomedRows(entity)].add(rows, cover: cover)
    }

    mutating func takePending(_ key: ObjectIdentifier) -> DoomedRows? { pending.removeValue(forKey: key) }

    mutating func settle(_ entity: EntityDescription, _ rows: [(rowID: Int64, version: Int64)]) {
        guard !rows.isEmpty else { return }
        _ = settled[ObjectIdentifier(entity.type), default: DoomedRows(entity)].add(rows)
    }

    /// The doomed row ids of an entity.
    func rowIDs(_ key: ObjectIdentifier) -> Set<Int64> {
        Set((pending[key]?.rowIDs ?? []) + (settled[key]?.rowIDs ?? []))
    }

    /// Every entity's rows, rows holding foreign keys before the rows they name.
    func inDeletionOrder(_ ranks: [ObjectIdentifier: Int]) -> [DoomedRows] {
        let all = pending.map { ($0.key, $0.value) } + settled.map { ($0.key, $0.value) }
        return all.sorted { (ranks[$0.0] ?? Int.max, $0.1.entity.name) < (ranks[$1.0] ?? Int.max, $1.1.entity.name) }.map(\.1)
    }
}

// MARK: At the deletion

extension RecordContext {
    /// The pending cascades whose owner this context still deletes, by
    /// relationship, in the order they were first met.
    ///
    /// The groups are found by a linear search, not a dictionary: there are
    /// as many as relationships met (a handful), and a dictionary keyed by a
    /// type of this file cost the first deletion about half a million
    /// instructions in the Swift runtime's conformance search for its
    /// `Hashable` (Docs/Performance.md, rel-cascade).
    private func pendingCascadeGroups() -> [CascadeGroup] {
        var groups: [CascadeGroup] = []
        var keys: [(type: ObjectIdentifier, index: Int)] = []
        var last = -1
        for cascade in pendingCascades {
            let state = cascade.owner.recordState
            guard state.belongs(to: self), state.phase == .deleted, let rowID = state.rowID else { continue }
            let owner = ObjectIdentifier(type(of: cascade.owner))
            // Runs of one relationship are the rule: try the last group first.
            let position =
                last >= 0 && keys[last].type == owner && keys[last].index == cascade.index
                ? last : keys.firstIndex { $0.type == owner && $0.index == cascade.index }
            if let position {
                groups[position].owners.append(cascade.owner)
                groups[position].rowIDs.append(rowID)
                last = position
            } else {
                guard case .some(let found) = model.relationship(of: type(of: cascade.owner), at: cascade.index),
                    let relationship = found
                else { continue }
                last = groups.count
                keys.append((owner, cascade.index))
                groups.append(CascadeGroup(relationship: relationship, owners: [cascade.owner], rowIDs: [rowID]))
            }
        }
        return groups
    }

    /// Finds every row the cascades a deletion left to the store take along
    /// (invariant 1): for each relationship, the rows that name the deleted
    /// owners, then, level by level, the rows the doomed rows' own rules
    /// reach. Objects met on the way are deleted in memory, whose pending
    /// cascades are followed in turn. Called at the end of `delete(_:)`.
    func expandPendingCascades() {
        while !pendingCascades.isEmpty {
            let groups = pendingCascadeGroups()
            pendingCascades.removeAll()
            for group in groups {
                guard let inverse = group.relationship.inverseIndex,
                    let destination = model.entity(named: group.relationship.destinationName),
                    let found = readDoomedRows(group.relationship, of: group.rowIDs)
                else { continue }
                let owners = Set(group.owners.map { ObjectIdentifier($0) })
                let fresh = sortOut(
                    found, destination, inverse: inverse, owners: owners,
                    cover: Self.foreignKeyCover(group.relationship, owners: group.rowIDs))
                deleteObjectsPointedAt(owners, rows: Set(group.rowIDs), destination.type, inverse)
                followRules(of: destination, fresh)
            }
        }
    }

    /// The rows of `found` that no object here stands for join the doomed
    /// rows; returns those new to them. An object here is deleted with its
    /// rules unless its to-one (`inverse`, when the found rows hold the key)
    /// names another object in memory than one of `owners` — `overlay`'s
    /// rule for a loaded to-many.
    private func sortOut(
        _ found: [(rowID: Int64, version: Int64)], _ destination: EntityDescription, inverse: Int?,
        owners: Set<ObjectIdentifier>, cover: ForeignKeyCover?
    ) -> [Int64] {
        guard identityMap.table(for: destination.type).count > 0 else { return storeCascade.add(destination, found, cover: cover) }
        var unheld: [(rowID: Int64, version: Int64)] = []
        for row in found {
            guard let object = registeredObject(destination.type, rowID: row.rowID) else {
                unheld.append(row)
                continue
            }
            guard object.statePhase != .deleted else { continue }
            if let inverse, case .toOne(let value) = RelationGraph.slot(object, inverse),
                !(value.map { owners.contains(ObjectIdentifier($0)) } ?? false)
            {
                continue
            }
            deleteApplyingRules(object)
        }
        // A row held here is the object's to delete: the foreign key names more than the doomed rows.
        return storeCascade.add(destination, unheld, cover: unheld.count == found.count ? cover : nil)
    }

    /// The rows `relationship` relates to `owners` as every row naming one
    /// of them, when the destination holds the foreign key.
    private static func foreignKeyCover(_ relationship: ResolvedRelationship, owners: [Int64]) -> ForeignKeyCover? {
        guard case .inverseForeignKey(let column) = relationship.storage else { return nil }
        return ForeignKeyCover(column: column, owners: owners)
    }

    /// Deletes the new and changed objects of `type` whose to-one names one
    /// of the doomed owners in memory — one of the objects `owners`, or one
    /// of the rows `rows` — where the store read did not find them: a
    /// loaded to-many lists them (`overlay`), and so does one loaded before
    /// another writer moved or deleted their row.
    private func deleteObjectsPointedAt(_ owners: Set<ObjectIdentifier>, rows: Set<Int64>, _ type: any Entity.Type, _ inverse: Int) {
        guard !inserted.isEmpty || !lists.updated.isEmpty else { return }
        let destination = ObjectIdentifier(type)
        for object in inserted + lists.updated where ObjectIdentifier(Swift.type(of: object)) == destination {
            let state = object.recordState
            guard state.belongs(to: self), state.phase != .deleted else { continue }
            let pointsAtOwner: Bool
            switch RelationGraph.slot(object, inverse) {
            case .toOne(let value?): pointsAtOwner = owners.contains(ObjectIdentifier(value)) || value.stateRowID.map(rows.contains) == true
            case .fault(let rowID?): pointsAtOwner = rows.contains(rowID)
            default: pointsAtOwner = false
            }
            if pointsAtOwner { deleteApplyingRules(object) }
        }
    }

    /// Follows the rules of doomed rows of `entity` (invariant 3), and of the
    /// rows their cascades doom in turn.
    private func followRules(of entity: EntityDescription, _ rowIDs: [Int64]) {
        var queue = [(entity, rowIDs)]
        while let (entity, ids) = queue.popLast() {
            guard !ids.isEmpty else { continue }
            for relationship in entity.relationships {
                switch relationship.deleteRule {
                case .cascade:
                    guard let destination = model.entity(named: relationship.destinationName),
                        let found = readDoomedRows(relationship, of: ids)
                    else { continue }
                    var inverse: Int?
                    if case .inverseForeignKey = relationship.storage { inverse = relationship.inverseIndex }
                    let cover = Self.foreignKeyCover(relationship, owners: ids)
                    queue.append((destination, sortOut(found, destination, inverse: inverse, owners: [], cover: cover)))
                    if let inverse { deleteObjectsPointedAt([], rows: Set(ids), destination.type, inverse) }
                case .nullify:
                    nullifyHolders(relationship, of: ids)
                case .deny, .noAction:
                    continue
                }
            }
        }
    }

    /// For a `.nullify` rule whose other side holds the key: loads the
    /// objects whose to-one names one of `ids` and clears it in memory, as
    /// deleting a loaded object does; the save writes each at its version.
    private func nullifyHolders(_ relationship: ResolvedRelationship, of ids: [Int64]) {
        guard case .inverseForeignKey(let column) = relationship.storage, let inverse = relationship.inverseIndex else {
            return
        }
        var query = SQLQuery()
        query.whereSQL = WhereClause.column(inJSONArray: SQLIdentifier(column)).sql
        query.arguments = [Self.jsonArray(ids)]
        let holders: [any Entity]
        do {
            holders = try fetchAny(relationship.destination, query)
        } catch {
            reportLoadFailure(relationship, error)
            return
        }
        for holder in holders where holder.statePhase == .managed {
            // A to-one pointed elsewhere here stays; a fault is the stored value.
            if case .toOne = RelationGraph.slot(holder, inverse) { continue }
            RelationGraph.assignToOne(holder, RelationGraph.relationshipOrPlaceholder(holder, inverse), nil)
        }
    }

    /// The writer's stamp before a read of doomed rows, for a context whose
    /// reads see the latest commit: a pooled context (a reader starting its
    /// own transaction, or an in-memory store's writer). nil inside a `write`
    /// or `read` closure, whose connection holds a transaction of its own.
    private func readStamp() -> StoreStamp? {
        guard case .pooled = role else { return nil }
        return store.idleStamp()
    }

    /// The row id and version of each row `relationship` relates to `ids`,
    /// read with one statement; `nil` (the failure reported to the next
    /// save, as for a relationship that cannot be loaded) when it fails.
    private func readDoomedRows(
        _ relationship: ResolvedRelationship, of ids: [Int64]
    ) -> [(rowID: Int64, version: Int64)]? {
        guard let source = model.entity(named: relationship.entityName),
            let destination = model.entity(named: relationship.destinationName)
        else { return nil }
        let condition: WhereClause
        switch relationship.storage {
        case .inverseForeignKey(let column):
            condition = .column(inJSONArray: SQLIdentifier(column))
        case .foreignKey(let column):
            let related = SelectStatement([SQLIdentifier(column)], from: source.table, where: .column(inJSONArray: .rowID))
            condition = .column(.rowID, in: related.sql)
        case .joinTable(let table):
            let related = SelectStatement(
                [SQLIdentifier(table.destinationColumn)], from: SQLIdentifier(table.name),
                where: .column(inJSONArray: SQLIdentifier(table.sourceColumn)))
            condition = .column(.rowID, in: related.sql)
        }
        let sql = SelectStatement([.rowID, .version], from: destination.table, where: condition).sql
        // Taken before the read: a commit between the two moves the save's stamp.
        var stamp = readStamp()
        defer { storeCascade.noteRead(stamp) }
        do {
            return try reading("loading \(relationship.qualifiedName)") { connection in
                // A reader inside a transaction may read an older snapshot than the stamp's.
                if connection.isInTransaction { stamp = nil }
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                try statement.bind(Self.jsonArray(ids), at: 1)
                var rows: [(rowID: Int64, version: Int64)] = []
                while try statement.step() { rows.append((statement.int64(at: 0), statement.int64(at: 1))) }
                return rows
            }
        } catch {
            reportLoadFailure(relationship, error)
            return nil
        }
    }
}

// MARK: Before the save

extension RecordContext {
    /// Loads the doomed rows of `type` when there are any: a read of the
    /// entity must leave them out (invariant 2).
    func loadStoreCascade(reaching type: any Entity.Type) {
        if storeCascade.pending[ObjectIdentifier(type)] != nil { loadStoreCascade(of: type) }
    }

    /// Loads the doomed rows of `type` — of every entity when `nil` — as
    /// deleted objects at the version read at the deletion, so that their
    /// save checks it (invariant 2). Rows gone from the store since stay
    /// counted without an object. A read that fails is reported by the
    /// next save, as a to-many that cannot be loaded is.
    func loadStoreCascade(of type: (any Entity.Type)? = nil) {
        let keys = type.map { [ObjectIdentifier($0)] } ?? Array(storeCascade.pending.keys)
        for key in keys {
            // Taken out first: the fetch below must not load it again.
            guard let rows = storeCascade.takePending(key) else { continue }
            var query = SQLQuery()
            query.whereSQL = WhereClause.column(inJSONArray: .rowID).sql
            query.arguments = [Self.jsonArray(rows.rowIDs)]
            let objects: [any Entity]
            do {
                objects = try fetchAny(rows.entity.type, query)
            } catch {
                storeCascade.settle(rows.entity, zip(rows.rowIDs, rows.versions).map { (rowID: $0, version: $1) })
                pendingErrors.append(LiteRecordError(error.kind, "loading the \(rows.entity.name) objects a deletion took along failed: \(error.message)"))
                continue
            }
            var versions = Dictionary(zip(rows.rowIDs, rows.versions), uniquingKeysWith: { first, _ in first })
            var doomed = Set<ObjectIdentifier>()
            for object in objects {
                guard let rowID = object.stateRowID, let version = versions.removeValue(forKey: rowID) else { continue }
                guard object.statePhase == .managed else { continue }
                object.recordState.version = version
                markManagedDeleted(object)
                if !pendingJoins.isEmpty { doomed.insert(ObjectIdentifier(object)) }
            }
            dropPendingJoins(touching: doomed)
            storeCascade.settle(rows.entity, versions.map { (rowID: $0.key, version: $0.value) }.sorted { $0.rowID < $1.rowID })
        }
    }

    /// For a child: loads the store-side cascades of its ancestors, so that
    /// nothing it reads lists a row an ancestor's deletion took along.
    func loadAncestorsStoreCascades() {
        var next = parent
        while let context = next {
            if !context.storeCascade.pending.isEmpty { context.loadStoreCascade() }
            next = context.parent
        }
    }

    /// Notes, as counted owners, the records that stay and whose counted
    /// to-many holds a doomed row (a box of a shelf's cascade in another
    /// owner's `boxes`), so that the save checks their bounds as it checks
    /// those of a loaded object's deletion. Each such list is read here,
    /// which loads the doomed rows it holds as deleted objects (not
    /// counted); so this runs before the save collects its deletions.
    ///
    /// - Throws: whatever reading the store throws.
    func noteStoreCascadeCountedOwners() throws(LiteRecordError) {
        guard model.hasCountedToManys else { return }
        for rows in storeCascade.inDeletionOrder(model.deletionRanks) {
            for relationship in rows.entity.relationships where relationship.inverseIsCounted {
                guard let owner = model.entity(named: relationship.destinationName) else { continue }
                let related = try reading("checking \(relationship.qualifiedName)") { connection in
                    try relatedRowIDsByOwner(relationship, rows.rowIDs, rows.entity, connection)
                }
                let doomed = storeCascade.rowIDs(ObjectIdentifier(owner.type))
                for rowID in Set(related.flatMap(\.1)).subtracting(doomed).sorted() {
                    // An owner this save deletes keeps no list to count; reading
                    // it would register its doomed members as live objects,
                    // which the store-side cascade then leaves alone.
                    guard let object = try storedObject(owner.type, rowID: rowID), object.statePhase != .deleted,
                        let inverse = relationship.inverseIndex
                    else { continue }
                    noteCountedOwner(object, list: inverse)
                    // Read now, so the doomed members become deleted objects
                    // before the save collects its deletions.
                    _ = RelationGraph.toMany(object, inverse)
                }
            }
        }
    }

    private func storedObject<T: Entity>(_ type: T.Type, rowID: Int64) throws(LiteRecordError) -> T? {
        try existingObject(with: RecordID(entityName: T.entityName, rowID: rowID), as: T.self)
    }

    /// The `.deny` rules of the doomed rows, as ``checkRelationshipRules(inserts:updates:deletes:)``
    /// checks those of deleted objects: the store's links with this
    /// context's changes laid over them (invariant 3). Throws the message
    /// the loaded check throws.
    ///
    /// - Throws: `.validationFailed` naming the relationship and the objects
    ///   still related; whatever reading the store throws.
    func checkStoreCascadeDenyRules() throws(LiteRecordError) {
        for rows in storeCascade.inDeletionOrder(model.deletionRanks) {
            for relationship in rows.entity.relationships where relationship.deleteRule == .deny {
                guard let destination = model.entity(named: relationship.destinationName) else { continue }
                let related = try reading("checking \(relationship.qualifiedName)") { connection in
                    try relatedRowIDsByOwner(relationship, rows.rowIDs, rows.entity, connection)
                }
                let doomed = storeCascade.rowIDs(ObjectIdentifier(destination.type))
                var inverse: Int?
                if case .inverseForeignKey = relationship.storage { inverse = relationship.inverseIndex }
                for (rowID, others) in related.sorted(by: { $0.0 < $1.0 }) {
                    let remaining = others.sorted().filter { !doomed.contains($0) && stillRelated(destination.type, $0, inverse) }
                    guard !remaining.isEmpty else { continue }
                    let names = remaining.prefix(5).map { "\(destination.name) #\($0)" }.joined(separator: ", ")
                    throw LiteRecordError(
                        .validationFailed,
                        "\(rows.entity.name) #\(rowID) cannot be deleted: \(relationship.qualifiedName) has the delete rule .deny and still relates it to \(remaining.count) \(destination.name) object\(remaining.count == 1 ? "" : "s") (\(names)\(remaining.count > 5 ? ", …" : ""))"
                    )
                }
            }
        }
    }

    /// Whether the stored link to `rowID` still holds in this context: its
    /// object is not deleted here, nor pointed elsewhere through `inverse`.
    private func stillRelated(_ type: any Entity.Type, _ rowID: Int64, _ inverse: Int?) -> Bool {
        guard let object = registeredObject(type, rowID: rowID) else { return true }
        guard object.statePhase != .deleted else { return false }
        if let inverse, case .toOne = RelationGraph.slot(object, inverse) { return false }
        return true
    }
}

// MARK: In the save

/// What the store-side cascade of a save deleted.
struct CascadeOutcome {
    /// The rows deleted (or found deleted already), in the order deleted.
    var deleted: [RecordID] = []
    /// Rows kept under `.storeTrumps` whose to-one naming a deleted owner
    /// was cleared, each with the relationship's name: updates of the save.
    var detached: [(id: RecordID, relationship: String)] = []
}

/// A doomed row the save's `DELETE` left alone: changed in the store since
/// the deletion read it.
struct CascadeConflict {
    let entity: EntityDescription
    let rowID: Int64
    /// The version read at the deletion.
    let version: Int64
    /// The version the store holds now.
    let stored: Int64

    var id: RecordID { RecordID(entityName: entity.name, rowID: rowID) }
}

extension SaveTransaction {
    /// Deletes the doomed rows (invariants 4 and 5): by row-id list
    /// (``RowIDListDeletes``) per entity and version read, inside a
    /// savepoint (one by one, the plain path, under the store's
    /// `deletesRowByRow`). When fewer rows are deleted than named, that is
    /// undone and the rows are deleted one by one: a row still there is a
    /// conflict, one gone already was deleted by another writer
    /// (``goneBefore``).
    mutating func deleteStoreCascade() throws {
        guard !plan.storeCascade.isEmpty else { return }
        var outcome = CascadeOutcome()
        let unchanged = storeUnchangedSinceCascadeReads
        for rows in plan.storeCascade.inDeletionOrder(context.store.model.deletionRanks) {
            if unchanged, let covers = rows.foreignKeyCovers, !covers.isEmpty, try deleteByForeignKeys(rows, covers) {
                outcome.deleted += rows.rowIDs.map { RecordID(entityName: rows.entity.name, rowID: $0) }
                continue
            }
            for (version, ids) in rows.byVersion {
                if context.store.deletesRowByRow {
                    try deleteCascadeRowsOneByOne(rows.entity, ids, version)
                    continue
                }
                try connection.cachedStatement(Self.batchSavepointSQL).run()
                let deleted = try rowIDLists.delete(ids, at: version, of: rows.entity, on: connection)
                if deleted < ids.count {
                    try connection.cachedStatement(Self.batchRollbackSQL).run()
                    try deleteCascadeRowsOneByOne(rows.entity, ids, version)
                }
                try connection.cachedStatement(Self.batchReleaseSQL).run()
            }
            outcome.deleted += rows.rowIDs.map { RecordID(entityName: rows.entity.name, rowID: $0) }
        }
        cascaded = outcome
    }

    /// The fast path's condition (Docs/Internals/Architecture.md, "The
    /// store-side cascade's fast path"): nothing changed the store since
    /// every read of the doomed rows — no other connection committed, this
    /// stack wrote nothing — so each row is still at the version read, and
    /// the rows a foreign key names are the rows it named then. Taken in
    /// this transaction before its first statement (``run()`` deletes the
    /// cascade first), under the writer's lock, so nothing can commit
    /// between it and the `DELETE`s. Reading the versions again, row by row
    /// in the `DELETE`, could only confirm them.
    private var storeUnchangedSinceCascadeReads: Bool {
        guard context.store.trustsUnchangedCascadeReads, !context.store.deletesRowByRow,
            let read = plan.storeCascade.readStamp
        else { return false }
        return connection.stamp == read
    }

    /// The fast path: deletes the doomed rows of one entity by the foreign
    /// keys that named exactly them when read (``DoomedRows/foreignKeyCovers``),
    /// walking each key's index instead of looking every row up by id and
    /// checking its version. Returns false, with nothing deleted, when the
    /// count differs from the rows (which the stamp rules out); the plain
    /// path then runs.
    private mutating func deleteByForeignKeys(_ rows: DoomedRows, _ covers: [ForeignKeyCover]) throws -> Bool {
        try connection.cachedStatement(Self.batchSavepointSQL).run()
        var deleted = 0
        for cover in covers {
            deleted += try rowIDLists.delete(naming: cover.owners, in: cover.column, of: rows.entity, on: connection)
        }
        if deleted != rows.rowIDs.count { try connection.cachedStatement(Self.batchRollbackSQL).run() }
        try connection.cachedStatement(Self.batchReleaseSQL).run()
        return deleted == rows.rowIDs.count
    }

    /// Deletes `ids` one by one at `version`; notes each row left as a
    /// conflict with its version now, or as gone before when it is no longer there.
    private mutating func deleteCascadeRowsOneByOne(_ entity: EntityDescription, _ ids: [Int64], _ version: Int64) throws {
        let delete = try connection.cachedStatement(entity.deleteSQL)
        let read = try connection.cachedStatement(SelectStatement([.version], from: entity.table, where: .rowID).sql)
        for id in ids {
            delete.rewind()
            try delete.bind(.integer(id), at: 1)
            try delete.bind(.integer(version), at: 2)
            try delete.run()
            guard connection.changes == 0 else { continue }
            read.rewind()
            try read.bind(.integer(id), at: 1)
            if try read.step() {
                conflicts.cascade.append(CascadeConflict(entity: entity, rowID: id, version: version, stored: read.int64(at: 0)))
            } else {
                goneBefore.append(RecordID(entityName: entity.name, rowID: id))
            }
            read.reset()
        }
    }

    /// Resolves the doomed rows' conflicts under a merge policy other than
    /// `.error`, as a loaded object's deletion: `.objectTrumps` deletes the
    /// row at its version now, `.storeTrumps` keeps it.
    mutating func resolveCascadeConflicts(_ mergePolicy: MergePolicy) throws {
        var kept = Set<RecordID>()
        for conflict in conflicts.cascade {
            if mergePolicy == .objectTrumps {
                let statement = try connection.cachedStatement(conflict.entity.deleteSQL)
                try statement.bind(.integer(conflict.rowID), at: 1)
                try statement.bind(.integer(conflict.stored), at: 2)
                try statement.run()
            } else {
                kept.insert(conflict.id)
                try detachFromDeletedRows(conflict.entity, conflict.rowID)
                self.kept.append((conflict.entity, conflict.rowID))
            }
        }
        if !kept.isEmpty { cascaded?.deleted.removeAll { kept.contains($0) } }
    }

    /// A row the store changed since the deletion read it is kept under
    /// `.storeTrumps`, and the deletion of its owner still goes on: the
    /// row's to-ones naming rows this save deleted are cleared (its version
    /// moves on), so the kept row names no deleted one and the save commits.
    mutating func detachFromDeletedRows(_ entity: EntityDescription, _ rowID: Int64) throws {
        try detach(entity, rowID) { _ in "" }
    }

    /// A kept row (``kept``) whose one-to-one partner no longer names it
    /// once the save's statements ran — the partner's side was cleared by
    /// the `.nullify` of the deletion taken back, or given to another
    /// object — is detached from that partner too: its side is cleared (its
    /// version moves on), so that both sides of the one-to-one agree and a
    /// later deletion of either follows the same pair (Docs/Concurrency.md).
    mutating func detachKeptFromFormerPartners() throws {
        for (entity, rowID) in kept {
            try detach(entity, rowID, pairedColumn: oneToOnePartnerColumn)
        }
    }

    /// Clears each to-one of the row at `rowID` that names no row of its
    /// destination — or, when `pairedColumn` gives the destination's column
    /// of a one-to-one, no row naming this one back; a relationship for which
    /// it gives nil is left alone.
    mutating func detach(_ entity: EntityDescription, _ rowID: Int64, pairedColumn: (ResolvedRelationship) -> String?) throws {
        for index in entity.toOneIndexes {
            let relationship = entity.relationships[index]
            guard let destination = context.store.model.entity(named: relationship.destinationName)?.quotedTable else { continue }
            let column = SQLIdentifier(relationship.name)
            let named = "\(entity.quotedTable).\(column.quoted)"
            guard let paired = pairedColumn(relationship) else { continue }
            // The destination under an alias of its own: for a
            // self-referential to-one it is the same table, and unaliased
            // the subquery would compare each of its rows with itself (every
            // kept row taken for dangling, and detached from a live owner).
            let target = SQLIdentifier("literecord_target").quoted
            let namesBack = paired.isEmpty ? "" : " AND \(target).\(paired) = \(entity.quotedTable).\(SQLIdentifier.rowID.quoted)"
            let dangling = WhereClause(
                sql: "\(column.quoted) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(destination) AS \(target) WHERE \(target).\(SQLIdentifier.rowID.quoted) = \(named)\(namesBack))")
            let sql = UpdateStatement(entity.table, set: [.null(column), .nextVersion], where: .rowID && dangling).sql
            try connection.execute(sql, [.integer(rowID)])
            if connection.changes > 0 {
                if cascaded == nil { cascaded = CascadeOutcome() }
                cascaded?.detached.append((RecordID(entityName: entity.name, rowID: rowID), relationship.name))
            }
        }
    }
}
