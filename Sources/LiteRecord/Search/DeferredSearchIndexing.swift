/// A save's full-text indexing, done by the save rather than by the triggers
/// (why: `EntityDescription+SearchIndex.swift`): ``run(_:)`` sets the
/// deferral flag, lets the save write its rows, indexes them with one
/// statement per entity and clears the flag, all inside the save's
/// transaction, so the flag is never committed.
///
/// A save makes one for its updates, whose rows are known before they are
/// written (their stored words are removed first, as the update trigger
/// would), and one for its inserts, whose rows are known once written (the
/// write returns them). One that finds no searchable row only runs the write.
struct DeferredSearchIndexing {
    /// What the save writes that has a full-text index.
    private enum Rows {
        case none
        /// The rows whose searchable text the updates rewrite, by entity, in
        /// the order of the plan.
        case updated([(entity: EntityDescription, rowIDs: [Int64])])
        /// The entities with a full-text index among the inserted objects, by type.
        case inserted([ObjectIdentifier: EntityDescription])
    }

    private let connection: Connection
    private let rows: Rows

    /// For a save's updates: the ones that write a searchable attribute.
    ///
    /// A row whose `UPDATE` then finds another version (a conflict) keeps
    /// its values; it is indexed again all the same, so the index stays
    /// exact whichever rows the statements change.
    init(updates: [RecordContext.PlannedRow], in context: RecordContext, on connection: Connection) throws {
        self.connection = connection
        guard context.store.model.hasSearchableEntities else {
            rows = .none
            return
        }
        var lookup = SearchableEntities()
        var byEntity: [ObjectIdentifier: [Int64]] = [:]
        var order: [ObjectIdentifier] = []
        for update in updates {
            guard let entity = try lookup.entity(of: update.object, in: context),
                !entity.searchColumns.isDisjoint(with: update.changes)
            else { continue }
            if byEntity[update.entity] == nil { order.append(update.entity) }
            byEntity[update.entity, default: []].append(update.rowID)
        }
        var updated: [(entity: EntityDescription, rowIDs: [Int64])] = []
        for typeID in order {
            guard let entity = lookup.found[typeID], let ids = byEntity[typeID] else { continue }
            updated.append((entity, ids))
        }
        rows = updated.isEmpty ? .none : .updated(updated)
    }

    /// For a save's inserts: those of entities with a full-text index.
    init(inserts: [any Entity], in context: RecordContext, on connection: Connection) throws {
        self.connection = connection
        guard context.store.model.hasSearchableEntities else {
            rows = .none
            return
        }
        var lookup = SearchableEntities()
        for object in inserts { _ = try lookup.entity(of: object, in: context) }
        rows = lookup.found.isEmpty ? .none : .inserted(lookup.found)
    }

    /// Runs `write`, the save's statements that write the rows, with the
    /// triggers' indexing deferred: sets the flag, removes the stored words
    /// of the rows to update, runs `write`, indexes the rows as they are now
    /// and clears the flag. `write` returns the objects it inserted with
    /// their row ids (none for updates).
    ///
    /// For inserts, `write` must end with the save's last statement that
    /// writes rows (the deferred foreign keys and the links update the new
    /// rows' other columns, which the update trigger ignores), so that no
    /// later statement's savepoint makes FTS5 write the pending words
    /// before they are all in. For updates, the flag is cleared before
    /// anything else of the save writes (a conflict's resolution goes
    /// through the trigger again).
    func run(_ write: () throws -> [(object: any Entity, rowID: Int64)]) throws {
        switch rows {
        case .none:
            _ = try write()
        case .updated(let updated):
            try connection.cachedStatement(Self.setFlagSQL).run()
            for (entity, ids) in updated { try runIndexing(entity.deferredSearchDeleteSQL, ids) }
            _ = try write()
            for (entity, ids) in updated { try runIndexing(entity.deferredSearchInsertSQL(range: false), ids) }
            try connection.cachedStatement(Self.clearFlagSQL).run()
        case .inserted(let entities):
            try connection.cachedStatement(Self.setFlagSQL).run()
            try index(try write(), entities)
            try connection.cachedStatement(Self.clearFlagSQL).run()
        }
    }

    /// Indexes the rows of `inserted` whose entity is in `entities`, one
    /// `INSERT … SELECT` per entity. The new row ids of an entity are
    /// usually one unbroken range, named by its ends; any others are bound
    /// as one JSON array.
    private func index(
        _ inserted: [(object: any Entity, rowID: Int64)], _ entities: [ObjectIdentifier: EntityDescription]
    ) throws {
        var rowIDs: [ObjectIdentifier: [Int64]] = [:]
        for (object, rowID) in inserted {
            let typeID = ObjectIdentifier(type(of: object))
            guard entities[typeID] != nil else { continue }
            rowIDs[typeID, default: []].append(rowID)
        }
        for (typeID, ids) in rowIDs.sorted(by: { $0.key < $1.key }) {
            guard let entity = entities[typeID], let low = ids.min(), let high = ids.max() else { continue }
            // Row ids are unique, so `count` of them spanning `count` values
            // are exactly that range. (Row ids can be any Int64: the span
            // is computed without trapping on overflow.)
            let span = high.subtractingReportingOverflow(low)
            if !span.overflow, span.partialValue == Int64(ids.count) - 1 {
                let statement = try connection.cachedStatement(entity.deferredSearchInsertSQL(range: true))
                try statement.bind(.integer(low), at: 1)
                try statement.bind(.integer(high), at: 2)
                try statement.run()
            } else {
                try runIndexing(entity.deferredSearchInsertSQL(range: false), ids)
            }
        }
    }

    /// Runs `sql`, a statement of ``EntityDescription/deferredSearchDeleteSQL``'s
    /// or ``EntityDescription/deferredSearchInsertSQL(range:)``'s with
    /// `range` false, for the rows `ids`.
    private func runIndexing(_ sql: String, _ ids: [Int64]) throws {
        let statement = try connection.cachedStatement(sql)
        try statement.bind(RecordContext.jsonArray(ids), at: 1)
        try statement.run()
    }

    private static let setFlagSQL = "INSERT OR REPLACE INTO \(SQLIdentifier(Model.searchDeferralTable)) (flag) VALUES (1)"
    private static let clearFlagSQL = DeleteStatement(from: SQLIdentifier(Model.searchDeferralTable)).sql
}

/// The entities with a full-text index among a save's objects, each looked
/// up once: a plan lists its objects grouped by entity, so the previous
/// object's answer usually holds.
private struct SearchableEntities {
    /// The searchable entities met so far, by type.
    private(set) var found: [ObjectIdentifier: EntityDescription] = [:]
    private var last: (typeID: ObjectIdentifier, entity: EntityDescription?)?

    /// The entity of `object` when it has a full-text index.
    mutating func entity(of object: any Entity, in context: RecordContext) throws -> EntityDescription? {
        let typeID = ObjectIdentifier(type(of: object))
        if let last, last.typeID == typeID { return last.entity }
        let entity = try found[typeID] ?? context.entity(for: type(of: object))
        let searchable = entity.isSearchable ? entity : nil
        if let searchable { found[typeID] = searchable }
        last = (typeID, searchable)
        return searchable
    }
}
