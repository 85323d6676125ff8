/// The SQL pieces of a fetch below the `SELECT … FROM <table>` the entity
/// provides. Identifiers in it are quoted and values are always bound.
struct SQLQuery {
    /// A `JOIN` clause right after `FROM <table>` (a search's FTS5 query).
    var join: String?
    var whereSQL: String?
    var arguments: [SQLValue] = []
    var orderBy: String?
    var limit: Int?
    var offset: Int?

    var clauses: String {
        var sql = ""
        if let join { sql += " \(join)" }
        if let whereSQL { sql += " WHERE \(whereSQL)" }
        sql += " ORDER BY \(orderBy ?? SQLIdentifier.rowID.quoted)"
        if let limit {
            sql += " LIMIT \(limit)"
            if let offset { sql += " OFFSET \(offset)" }
        } else if let offset {
            sql += " LIMIT -1 OFFSET \(offset)"
        }
        return sql
    }
}

extension RecordContext {
    /// The model's description of `type`.
    ///
    /// - Throws: `.invalidObject` when the type is not part of the store's model.
    func entity(for type: any Entity.Type) throws(LiteRecordError) -> EntityDescription {
        guard let entity = store.model.entity(for: type) else {
            throw LiteRecordError(
                .invalidObject,
                "\(type.entityName) is not an entity of \(store.url.map { "the store at \($0.path)" } ?? "the in-memory store"); add \(type).self to the entities given to setup")
        }
        return entity
    }

    /// Fetches the objects of `type` that `query` selects, reusing objects the
    /// context already holds (refreshed with the stored values, except for
    /// attributes changed in memory). Objects marked for deletion are skipped;
    /// unsaved inserts are not in the store and so are not returned.
    func fetch<T: Entity>(_ type: T.Type, _ query: SQLQuery) throws(LiteRecordError) -> [T] {
        let entity = try entity(for: T.self)
        if !storeCascade.pending.isEmpty { loadStoreCascade(reaching: T.self) }
        // Without a limit or offset, the row loop skips pending deletions;
        // with one, they must not take a place in the slice.
        let sliced = query.limit != nil || query.offset != nil
        let query = sliced ? excludingPendingDeletions(T.self, entity, query) : query
        let sql = entity.selectSQL + query.clauses
        return try reading("fetching \(T.entityName)") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(query.arguments)
            // Collected as AnyObject and typed once at the end: appending to a
            // [T] in this unspecialized code looks up [T]'s metadata per row.
            var objects: [AnyObject] = []
            try forEachObject(T.self, in: statement, entity) { objects.append($0) }
            return Self.typed(objects, as: T.self)
        }
    }

    /// Steps `statement`, a `SELECT` of `entity`'s columns (with more after
    /// them, for a search), and calls `body` with each row's object: the one
    /// the context holds, refreshed, or a new one registered now
    /// (``materialize(_:statement:attributeCount:columns:table:lookUp:)``),
    /// its to-ones set from the row. Rows of objects the context is deleting
    /// are skipped. `body` may read the current row's other columns. The row
    /// loop of a fetch and of a search.
    @inline(__always)
    func forEachObject<T: Entity>(
        _ type: T.Type, in statement: Statement, _ entity: EntityDescription, _ body: (T) throws -> Void
    ) throws {
        let table = identityMap.table(for: T.self)
        // A statement returns each row once: when the context held none of
        // these objects before, no row can be one it holds.
        let mayHoldRows = table.count > 0
        let attributeCount = entity.attributes.count
        let columns = (version: entity.versionColumn, kept: mergePolicy == .storeTrumps ? entity.columnCount : 0)
        let foreignKeys = entity.toOneIndexes.isEmpty ? nil : entity
        while try statement.step() {
            guard
                let object = try materialize(
                    T.self, statement: statement, attributeCount: attributeCount, columns: columns, table: table,
                    lookUp: mayHoldRows)
            else { continue }
            if let foreignKeys {
                applyForeignKeys(object, Row(statement: statement, offset: 1, entityName: T.entityName), foreignKeys)
            }
            try body(object)
        }
    }

    /// Calls `body` for each object `query` selects, reading `batchSize` rows at
    /// a time so that memory stays bounded. Objects are not kept by the context
    /// unless they already were.
    func enumerate<T: Entity>(
        _ type: T.Type, _ query: SQLQuery, batchSize: Int, _ body: (T) throws -> Void
    ) throws(LiteRecordError) {
        let entity = try entity(for: T.self)
        if !storeCascade.pending.isEmpty { loadStoreCascade(reaching: T.self) }
        // A page made only of pending deletions must not end the enumeration.
        let query = excludingPendingDeletions(T.self, entity, query)
        let size = max(1, batchSize)
        let key = SQLIdentifier.rowID.quoted
        var lastRowID = Int64.min
        var offset = 0
        while true {
            let page = Self.page(of: query, key: key, after: lastRowID, offset: offset, size: size)
            let batch = try readBatch(T.self, entity, entity.selectSQL + page.clauses, page.arguments, size: size)
            if batch.isEmpty { return }
            for (rowID, object) in batch {
                lastRowID = rowID
                try withErrorContext("enumerating \(T.entityName)") { try body(object) }
            }
            offset += size
        }
    }

    /// The page of `query` that ``enumerate(_:_:batchSize:_:)`` reads next:
    /// keyset pagination by primary key when no order is given (cheap and
    /// stable), on `key` past `lastRowID`; offset pagination otherwise.
    private static func page(of query: SQLQuery, key: String, after lastRowID: Int64, offset: Int, size: Int) -> SQLQuery {
        var page = query
        if query.orderBy == nil {
            page.whereSQL = [query.whereSQL.map { "(\($0))" }, "\(key) > ?"].compactMap { $0 }.joined(separator: " AND ")
            page.arguments.append(.integer(lastRowID))
            page.limit = size
            page.offset = nil
        } else {
            page.limit = size
            page.offset = offset
        }
        return page
    }

    /// One page's objects with their row ids: the registered object when the
    /// context holds the record (skipped when it is being deleted), refreshed
    /// as a fetch refreshes it (``materialize(_:statement:attributeCount:columns:table:lookUp:)``),
    /// else a new one that knows its record but is not registered, so that
    /// memory stays bounded — in a child, with the values an ancestor holds
    /// for it. Streaming changes what the context keeps, never what an object
    /// says (`EnumerateAsFetchTests`).
    private func readBatch<T: Entity>(
        _ type: T.Type, _ entity: EntityDescription, _ sql: String, _ arguments: [SQLValue], size: Int
    ) throws(LiteRecordError) -> [(Int64, T)] {
        let attributeCount = entity.attributes.count
        let kept = mergePolicy == .storeTrumps ? entity.columnCount : 0
        let foreignKeys = entity.toOneIndexes.isEmpty ? nil : entity
        return try reading("enumerating \(T.entityName)") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            var batch: [(Int64, T)] = []
            batch.reserveCapacity(size)
            while try statement.step() {
                let rowID = statement.int64(at: 0)
                let version = statement.int64(at: entity.versionColumn)
                let row = Row(statement: statement, offset: 1, entityName: T.entityName)
                if let existing = registeredObject(T.self, rowID: rowID) {
                    guard existing.statePhase != .deleted else { continue }
                    // unsafe(keyed-by-type): registered under T, so a T.
                    let object = unsafeDowncast(existing as AnyObject, to: T.self)
                    try refreshIfNewer(object, from: row, version: version, attributeCount: attributeCount, keeping: kept)
                    if let foreignKeys { applyForeignKeys(object, row, foreignKeys) }
                    batch.append((rowID, object))
                } else {
                    let object = try T(row: row)
                    // Streamed objects are not registered (that is what keeps memory
                    // bounded), but they know which record they are.
                    object.withState { state in
                        state.rowID = rowID
                        state.version = version
                        state.phase = .managed
                    }
                    if parent != nil, try !overlayAncestors(object, rowID: rowID) { continue }
                    batch.append((rowID, object))
                }
            }
            return batch
        }
    }

    /// `objects`, every one a `T`, as a `[T]`.
    static func typed<T: AnyObject>(_ objects: [AnyObject], as type: T.Type) -> [T] {
        // An empty result is the shared empty array, which the initializer
        // below would write its count into: a data race between two fetches
        // of nothing (ThreadSanitizer found it).
        guard !objects.isEmpty else { return [] }
        return Array(unsafeUninitializedCapacity: objects.count) { buffer, count in
            for (index, object) in objects.enumerated() {
                // unsafe(keyed-by-type): callers pass objects of T's table.
                buffer.initializeElement(at: index, to: unsafeDowncast(object, to: T.self))
            }
            count = objects.count
        }
    }

    /// The object for the statement's current row: the registered one
    /// (refreshed) or a new one registered now; `nil` for a pending deletion.
    /// `columns` gives the position of the row's version and how many stored
    /// values to keep (0 unless the merge policy is `.storeTrumps`).
    @inline(__always)
    func materialize<T: Entity>(
        _ type: T.Type, statement: Statement, attributeCount: Int, columns: (version: Int32, kept: Int),
        table: ObjectTable, lookUp: Bool
    ) throws -> T? {
        let rowID = statement.int64(at: 0)
        let version = statement.int64(at: columns.version)
        let row = Row(statement: statement, offset: 1, entityName: T.entityName)
        if lookUp, let existing = table[rowID] {
            // unsafe(keyed-by-type): the identity map is keyed by entity
            // type, so the object is a T.
            let object = unsafeDowncast(existing, to: T.self)
            guard object.statePhase != .deleted else { return nil }
            try refreshIfNewer(object, from: row, version: version, attributeCount: attributeCount, keeping: columns.kept)
            return object
        }
        let object = try T(row: row)
        let snapshot = T.tracksChanges ? nil : (0..<attributeCount).map { row.value(at: $0) }
        register(object, rowID: rowID, version: version, snapshot: snapshot, in: table)
        if columns.kept > 0 { object.recordState.storedValues = (0..<columns.kept).map { row.value(at: $0) } }
        if parent != nil, try !overlayAncestors(object, rowID: rowID) {
            unregister(object)
            return nil
        }
        return object
    }

    /// Refreshes a registered object from its row when the row is newer than
    /// what the object was read or saved at, or the object is stale: the one
    /// rule a fetch and an enumeration share. Every write of LiteRecord's
    /// moves a row to a new version (the rule at
    /// `recordVersionBump(_:to:columns:)`), so a row still at the object's
    /// version holds the values it started from: nothing to refresh.
    @inline(__always)
    func refreshIfNewer<T: Entity>(_ object: T, from row: Row, version: Int64, attributeCount: Int, keeping kept: Int) throws {
        let current = object.withState { state in
            version == state.version && !state.isStale && (kept == 0 || state.storedValues != nil)
        }
        guard !current else { return }
        try mergeStoredRow(row, into: object, attributeCount: attributeCount, version: version, keeping: kept)
    }

    /// Updates a registered object with newer stored values, keeping the
    /// attributes changed in memory ("in-memory edit wins").
    ///
    /// An object without unsaved changes takes the row's `version`; one with
    /// changes keeps the version its changes are based on, so that its next
    /// save meets the conflict and the merge policy decides — a refresh never
    /// lets an edit silently overwrite a newer stored value. `keeping` is the
    /// number of stored values to keep (``RecordState/storedValues``).
    func mergeStoredRow<T: Entity>(_ row: Row, into object: T, attributeCount: Int, version: Int64, keeping: Int = 0) throws {
        var edited = object.withState { state in
            state.isStale = false
            return !state.changes.isEmpty || state.phase == .deleted
        }
        if T.tracksChanges {
            let changes = object.withState { $0.changes }
            for index in 0..<attributeCount where !changes.contains(index) {
                try object.decodeAttribute(at: index, from: row)
            }
        } else {
            let snapshot = object.withState({ $0.snapshot })
            for index in 0..<attributeCount {
                let unchanged = snapshot.map { (try? object.encodeAttribute(at: index)) == $0[index] } ?? true
                if unchanged { try object.decodeAttribute(at: index, from: row) } else { edited = true }
            }
            object.recordState.snapshot = (0..<attributeCount).map { row.value(at: $0) }
        }
        guard !edited else { return }
        object.recordState.version = version
        if keeping > 0 { object.recordState.storedValues = (0..<keeping).map { row.value(at: $0) } }
    }

    /// The version of a row read with the entity's `selectSQL`.
    func storedVersion(_ row: Row, _ entity: EntityDescription) -> Int64 {
        if case .integer(let version) = row.value(at: entity.columnCount) { return version }
        return 0
    }

    /// Re-reads an object from the store, dropping its in-memory changes; an
    /// object whose row is gone is forgotten.
    func refetch(_ object: any Entity) throws {
        try refetchOpened(object)
    }

    private func refetchOpened<T: Entity>(_ object: T) throws {
        try withStoredRow(of: object, "re-reading \(T.entityName)") { row, entity in
            let moved = entity.hasRelationships ? changedToOnes(of: object, entity) : []
            for index in entity.attributes.indices { try object.decodeAttribute(at: index, from: row) }
            object.recordState.clearChanges()
            object.recordState.isStale = false
            object.recordState.version = storedVersion(row, entity)
            if mergePolicy == .storeTrumps {
                object.recordState.storedValues = (0..<entity.columnCount).map { row.value(at: $0) }
            }
            if !T.tracksChanges {
                object.recordState.snapshot = entity.attributes.indices.map { row.value(at: $0) }
            }
            if entity.hasRelationships {
                applyForeignKeys(object, row, entity, resettingToMany: true)
                moveInverses(of: object, moved)
                // Its to-ones are the stored ones now, not those a rollback gives back.
                if !slotsChangedWhileDeleted.isEmpty { slotsChangedWhileDeleted[ObjectIdentifier(object)] = nil }
            }
        }
    }

    /// The to-ones changed in memory whose inverse is a to-many, with the
    /// object each names now (before a re-read sets them back).
    private func changedToOnes(of object: any Entity, _ entity: EntityDescription) -> [(Int, (any Entity)?)] {
        let changes = object.withState({ $0.changes })
        var moved: [(Int, (any Entity)?)] = []
        for (position, index) in entity.toOneIndexes.enumerated() where changes.contains(entity.attributes.count + position) {
            guard let relationship = RelationGraph.relationship(of: object, at: index), relationship.inverseIndex != nil, relationship.inverseIsToMany else { continue }
            moved.append((index, RelationGraph.toOneInMemory(object, index)))
        }
        return moved
    }

    /// After a re-read set changed to-ones back to their stored targets: the
    /// object leaves the loaded to-many of the target it was moved to and
    /// joins that of the stored one, as if it had never moved.
    private func moveInverses(of object: any Entity, _ moved: [(Int, (any Entity)?)]) {
        for (index, old) in moved {
            guard let inverse = RelationGraph.relationship(of: object, at: index)?.inverseIndex else { continue }
            let stored = RelationGraph.toOneInMemory(object, index)
            if let old, old !== stored { RelationGraph.removeLoaded(old, inverse, object) }
            if let stored, stored !== old { RelationGraph.appendLoaded(stored, inverse, object) }
        }
    }

    /// Records the to-one row ids of a row just read, except for to-ones
    /// changed in memory; a loaded to-one that still names the same row stays
    /// loaded. `resettingToMany` also forgets loaded to-manys, so that they
    /// are read again (after a rollback or a merge). In a child context, the
    /// to-ones of the nearest ancestor holding the record stand for the row's
    /// (see `ancestorToOnes(of:_:)`).
    func applyForeignKeys(_ object: any Entity, _ row: Row, _ entity: EntityDescription, resettingToMany: Bool = false) {
        let inherited = parent == nil ? nil : ancestorToOnes(of: object, entity)
        if object.withState({ $0.relations.isEmpty }) {
            // No relationship of the object was read yet (a newly fetched
            // object, the common case): nothing is loaded, nobody observes a
            // relationship, so the slots are written in one go.
            var relations = RelationGraph.unloadedSlots(entity.relationships.count)
            for (position, index) in entity.toOneIndexes.enumerated() {
                if let inherited, let value = inherited[position] {
                    relations[index] = value
                } else if case .integer(let value) = row.value(at: entity.attributes.count + position) {
                    relations[index] = .fault(value)
                } else {
                    relations[index] = .fault(nil)
                }
            }
            object.recordState.relations = relations
            return
        }
        for (position, index) in entity.toOneIndexes.enumerated() {
            let column = entity.attributes.count + position
            if object.withState({ $0.changes.contains(column) }) { continue }
            let slot = RelationGraph.slot(object, index)
            if let inherited, case .toOne(let value?) = inherited[position] {
                // The parent's copy of an object this child pushed.
                if case .toOne(let loaded?) = slot, loaded === value { continue }
                RelationGraph.storeChange(.toOne(value), in: object, index)
                continue
            }
            var rowID: Int64?
            if let inherited, case .fault(let value) = inherited[position] {
                rowID = value
            } else if case .integer(let value) = row.value(at: column) {
                rowID = value
            }
            if case .toOne(let current) = slot, current?.stateRowID == rowID,
                (current == nil) == (rowID == nil)
            {
                continue
            }
            RelationGraph.storeChange(.fault(rowID), in: object, index)
        }
        guard resettingToMany else { return }
        for relationship in entity.relationships where relationship.isToMany {
            RelationGraph.forget(relationship.index, of: object)
        }
    }

    /// Reads the stored row of a saved object and hands it to `body`; an object
    /// whose row is gone is forgotten instead. The one place a context reads
    /// a single record by primary key outside a save, for re-reading,
    /// refreshing and merging; inside a save's transaction, conflict
    /// resolution reads the row with the same statement text on the
    /// writer's connection (`SaveTransaction.storedRow`).
    func withStoredRow<T: Entity>(
        of object: T, _ operation: @autoclosure () -> String, _ body: (Row, EntityDescription) throws -> Void
    ) throws {
        guard let rowID = object.stateRowID else { return }
        let entity = try entity(for: T.self)
        let sql = SelectStatement(select: entity.selectSQL, where: .rowID).sql
        let found = try reading(operation()) { connection -> Bool in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(.integer(rowID), at: 1)
            guard try statement.step() else { return false }
            try body(Row(statement: statement, offset: 1, entityName: entity.name), entity)
            return true
        }
        if !found { unregister(object, forgotten: true) }
    }

    /// Discards the in-memory changes of one object and reloads it from the store.
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read.
    public func refresh<T: Entity>(_ object: T) throws {
        guard object.stateBelongs(to: self), object.statePhase == .managed else { return }
        try withErrorContext("refreshing \(T.entityName)") { try refetchDiscardingChanges(object) }
    }

    /// The number of stored records of `type` that match `whereSQL`.
    func count<T: Entity>(_ type: T.Type, whereSQL: String?, arguments: [SQLValue]) throws(LiteRecordError) -> Int {
        let entity = try entity(for: T.self)
        let condition = excludingPendingDeletions(T.self, entity, where: whereSQL, arguments)
        let sql = SelectStatement(["COUNT(*)"], from: entity.quotedTable, where: condition.sql.map(WhereClause.init(sql:))).sql
        return try reading("counting \(T.entityName)") { connection in
            guard case .integer(let count)? = try connection.scalar(sql, condition.arguments) else { return 0 }
            return Int(count)
        }
    }

    /// The object for `id` in this context: the registered one, or read from
    /// the store; `nil` when the record does not exist (or is being deleted).
    ///
    /// ```swift
    /// let person = try context.object(with: id, as: Person.self)
    /// ```
    ///
    /// - Throws: ``LiteRecordError`` when the store cannot be read or `T` is not
    ///   the record's entity.
    public func object<T: Entity>(with id: RecordID, as type: T.Type = T.self) throws -> T? {
        try existingObject(with: id, as: T.self)
    }

    /// ``object(with:as:)`` with its error typed, for the library's own callers.
    func existingObject<T: Entity>(with id: RecordID, as type: T.Type) throws(LiteRecordError) -> T? {
        guard id.entityName == T.entityName else {
            throw LiteRecordError(.invalidObject, "\(id) is a record of \(id.entityName), not of \(T.entityName)")
        }
        if let existing = registeredObject(T.self, rowID: id.rowID) {
            let object = unsafeDowncast(existing as AnyObject, to: T.self)  // unsafe(keyed-by-type)
            return object.statePhase == .deleted ? nil : object
        }
        var query = SQLQuery()
        query.whereSQL = WhereClause.rowID.sql
        query.arguments = [.integer(id.rowID)]
        return try fetch(T.self, query).first
    }

    /// Deletes the stored rows `whereSQL` selects with one statement, and marks
    /// the matching objects this context holds as deleted. Returns the number of
    /// rows deleted.
    func deleteAll<T: Entity>(_ type: T.Type, whereSQL: String?, arguments: [SQLValue]) throws(LiteRecordError) -> Int {
        try requireRoot(for: "\(T.entityName).\(whereSQL == nil ? "truncateAll" : "deleteAll")")
        let entity = try entity(for: T.self)
        if store.model.hasRelationships, store.model.isRelated(entity) {
            return try deleteAllApplyingRules(entity, whereSQL: whereSQL, arguments: arguments)
        }
        let sql = DeleteStatement(from: entity.table, where: whereSQL.map(WhereClause.init(sql:)), returning: [.rowID]).sql
        let rowIDs = try store.write("deleting \(T.entityName) records") { connection in
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(arguments)
            var rowIDs: [Int64] = []
            while try statement.step() { rowIDs.append(statement.int64(at: 0)) }
            store.noteCommitted(ChangeSet(deleted: rowIDs.map { RecordID(entityName: T.entityName, rowID: $0) }), by: self)
            return rowIDs
        }
        let changes = ChangeSet(deleted: rowIDs.map { RecordID(entityName: T.entityName, rowID: $0) })
        for rowID in rowIDs {
            if let object = registeredObject(T.self, rowID: rowID) { unregister(object) }
        }
        if !changes.isEmpty { didSave?(changes) }
        return rowIDs.count
    }
}
