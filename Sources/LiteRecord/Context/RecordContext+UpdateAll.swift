import Foundation

/// Set-based updates (Docs/Queries.md, "Set-based updates"): one
/// `UPDATE … WHERE … RETURNING` that changes the rows a predicate selects
/// without loading their objects, and means what loading them, setting the
/// attributes and saving would mean (Docs/Internals/Invariants.md, "A fast
/// path means what the plain path means"):
///
/// - the rows are those `findAll(matching:)` returns: the predicate is
///   translated as any query's, and rows this context is deleting are left
///   out, as a fetch leaves their objects out;
/// - a row already holding the values is left alone, as a save leaves an
///   object whose setters changed nothing (``ChangeTest``): no write, no
///   new version, not counted;
/// - each value is stored as a save stores it (``AttributeAssignment``),
///   text of unique, indexed and searchable attributes in NFC; each written
///   row's version moves on by one in the same statement (the row-version
///   rule at ``RecordContext/recordVersionBump(_:to:columns:)``);
/// - the commit is reported like a save's, to subscribers, observers and the
///   store's history, and the context's objects follow their rows.
///
/// What the library cannot do without loading objects it refuses: an entity
/// whose saves run Swift hooks (``Entity/saveHooks``), and a child context,
/// whose writes go to its parent rather than to the store.
extension RecordContext {
    /// One assignment, checked and encoded for the statement.
    struct ResolvedAssignment {
        let index: Int
        let name: String
        /// What the column is set to: canonical text where the attribute keeps it.
        let stored: SQLValue
        /// What the column is compared with: the value as encoded, which a
        /// setter compares with (``ChangeTest``).
        let compared: SQLValue
        let test: ChangeTest
    }

    /// Sets the attributes `assignments` name in every stored row of `T`
    /// that `predicate` accepts and that does not hold the values already;
    /// returns the number of rows written.
    func updateAll<T: Entity>(
        _ type: T.Type, matching predicate: Predicate<T>, _ assignments: [AttributeAssignment<T>]
    ) throws(LiteRecordError) -> Int {
        let entity = try entity(for: T.self)
        try checkSetBasedUpdate(entity)
        let resolved = try resolve(assignments, entity)
        let condition = try PredicateTranslator.condition(predicate, model: store.model)
        let (sql, arguments) = updateSQL(entity, resolved, condition: condition, excluding: rowsBeingDeleted(T.self))
        let rowIDs = try store.write("updating \(T.entityName) records") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            var rowIDs: [Int64] = []
            // With RETURNING, the first step runs the whole UPDATE: a
            // constraint fails it before any row is returned.
            while try statement.step() { rowIDs.append(statement.int64(at: 0)) }
            let ids = rowIDs.map { RecordID(entityName: entity.name, rowID: $0) }
            store.noteCommitted(ChangeSet(updated: ids), by: self) {
                UpdatedNames(everyRecordWrote: resolved.map(\.name))
            }
            return rowIDs
        }
        guard !rowIDs.isEmpty else { return 0 }
        followUpdatedRows(T.self, rowIDs, columns: AttributeMask(resolved.map(\.index)))
        didSave?(ChangeSet(updated: rowIDs.map { RecordID(entityName: entity.name, rowID: $0) }))
        return rowIDs.count
    }

    /// Refuses what a set-based update cannot do as a save would.
    ///
    /// - Throws: `.validationFailed` for an entity with save hooks,
    ///   `.invalidObject` in a child context.
    private func checkSetBasedUpdate(_ entity: EntityDescription) throws(LiteRecordError) {
        let hooks = entity.type.saveHooks
        if !hooks.isEmpty {
            throw LiteRecordError(
                .validationFailed,
                "\(entity.name).updateAll cannot run: \(entity.name) implements \(hooks) (its saveHooks), which every save runs on each object it writes, and a set-based update loads no objects to run it on; fetch the objects, change them and save instead"
            )
        }
        try requireRoot(for: "\(entity.name).updateAll")
    }

    /// The assignments checked, encoded, and each attribute kept once (the
    /// last assignment to it wins, as the last of several assignments in Swift).
    ///
    /// - Throws: `.unknownAttribute` for a key path that is not a stored
    ///   attribute, the encoding error a save would throw for a value it
    ///   cannot store (`.validationFailed`).
    private func resolve<T: Entity>(
        _ assignments: [AttributeAssignment<T>], _ entity: EntityDescription
    ) throws(LiteRecordError) -> [ResolvedAssignment] {
        var resolved: [ResolvedAssignment] = []
        for assignment in assignments {
            let index = try assignment.target.get()
            let value = try assignment.value.get()
            let stored = entity.canonicalTextAttributes.contains(index) ? value.canonicalText : value
            resolved.removeAll { $0.index == index }
            resolved.append(
                ResolvedAssignment(
                    index: index, name: entity.attributes[index].name, stored: stored, compared: value, test: assignment.test))
        }
        return resolved
    }

    /// `UPDATE <table> SET <columns>, "Z_OPT" = "Z_OPT" + 1 WHERE
    /// (<predicate>) AND (<a value differs>) AND "Z_PK" NOT IN (<rows being
    /// deleted>) RETURNING "Z_PK"`, with its arguments in the order of their
    /// placeholders.
    ///
    /// A row is written when any assignment changes it. Where several
    /// attributes are set and a test calls values equal that differ in
    /// their bytes (text by canonical equivalence, `Decimal`, JSON), the
    /// column keeps its bytes unless the test says it changes, as a save
    /// writes only the attributes that changed.
    func updateSQL(
        _ entity: EntityDescription, _ assignments: [ResolvedAssignment],
        condition: (sql: String?, arguments: [SQLValue]), excluding excluded: [Int64]
    ) -> (sql: String, arguments: [SQLValue]) {
        var sets: [Assignment] = []
        var arguments: [SQLValue] = []
        for assignment in assignments {
            let column = SQLIdentifier(assignment.name)
            if assignments.count > 1, !assignment.test.isByteExact, let differs = assignment.test.differs(column.quoted) {
                sets.append(.expression(column, "CASE WHEN \(differs) THEN ? ELSE \(column) END"))
                arguments += [assignment.compared, assignment.stored]
            } else {
                sets.append(.parameter(column))
                arguments.append(assignment.stored)
            }
        }
        sets.append(.nextVersion)
        var conditions: [WhereClause] = []
        if let predicate = condition.sql {
            conditions.append(WhereClause(sql: predicate).parenthesized)
            arguments += condition.arguments
        }
        // A value that is never equal (not Equatable) changes every row.
        let tests = assignments.compactMap { $0.test.differs(SQLIdentifier($0.name).quoted) }
        if tests.count == assignments.count {
            conditions.append(WhereClause(sql: tests.joined(separator: " OR ")).parenthesized)
            arguments += assignments.map(\.compared)
        }
        if !excluded.isEmpty {
            conditions.append(.column(.rowID, notIn: WhereClause.jsonArrayValues))
            arguments.append(Self.jsonArray(excluded))
        }
        let update = UpdateStatement(entity.table, set: sets, where: .all(conditions), returning: [.rowID])
        return (update.sql, arguments)
    }

    /// The rows of `T` this context is deleting at its next save — objects
    /// marked deleted, and rows their deletions take along in the store —
    /// which a fetch leaves out, and so a set-based update too.
    private func rowsBeingDeleted<T: Entity>(_ type: T.Type) -> [Int64] {
        var rows = storeCascade.rowIDs(ObjectIdentifier(T.self))
        for object in lists.deleted where Swift.type(of: object) == T.self {
            let state = object.recordState
            guard state.phase == .deleted, state.belongs(to: self), let rowID = state.rowID else { continue }
            rows.insert(rowID)
        }
        return rows.sorted()
    }

    /// After the commit: this context's objects of the written rows take the
    /// stored values and the new version, keeping their unsaved edits — an
    /// object whose edits are of other attributes takes the version too (no
    /// false conflict at its next save), one with an edit of an attribute
    /// set here keeps the version its edit is based on and meets the
    /// conflict (``reload(_:written:)``). A `write` context counts each
    /// row's bump for the main context's merge.
    private func followUpdatedRows<T: Entity>(_ type: T.Type, _ rowIDs: [Int64], columns: AttributeMask) {
        let written = WrittenColumns(columns: columns, versions: 1)
        let holdsObjects = identityMap.table(for: T.self).count > 0
        for rowID in rowIDs {
            countWrite(of: RecordID(entityName: T.entityName, rowID: rowID), columns: columns)
            guard holdsObjects, let object = registeredObject(T.self, rowID: rowID), object.statePhase == .managed
            else { continue }
            do {
                try reload(object, written: written)
            } catch {
                // Read again at the next fetch instead.
                object.recordState.isStale = true
                store.logger.warning(
                    "re-reading an object after updateAll failed", metadata: ["record": "\(T.entityName) #\(rowID)", "error": "\(error)"])
            }
        }
    }
}
