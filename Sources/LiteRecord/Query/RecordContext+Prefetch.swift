extension RecordContext {
    /// Loads the relationships `keyPaths` name for all `objects` at once.
    ///
    /// Row ids are bound as one JSON array and read back with `json_each`, so
    /// one statement serves any number of objects without meeting SQLite's
    /// limit on bound parameters (https://sqlite.org/json1.html#jeach).
    ///
    /// `wholeTable` says that `objects` are every stored record of `T` (a
    /// fetch without predicate, limit or offset): the related rows are then
    /// most of their table, read best in one pass over it.
    func prefetch<T: Entity>(
        _ keyPaths: [any PartialKeyPath<T> & Sendable], of objects: [T], wholeTable: Bool = false
    ) throws(LiteRecordError) {
        let entity = try entity(for: T.self)
        for keyPath in keyPaths {
            guard let index = T.relationshipIndex(for: keyPath), entity.relationships.indices.contains(index) else {
                throw LiteRecordError(
                    .unknownAttribute, "a key path to prefetch is not a relationship of \(T.entityName); list relationship properties only")
            }
            let relationship = entity.relationships[index]
            // A plain loop into `[any Entity]`: `filter` over `[T]` and a cast
            // of its result cost more than the prefetch itself.
            var pending: [any Entity] = []
            pending.reserveCapacity(objects.count)
            for object in objects {
                guard object.withState({ $0.phase == .managed && $0.rowID != nil }) else { continue }
                switch RelationGraph.slot(object, index) {
                case .unloaded, .fault: pending.append(object)
                case .toOne, .toMany: continue
                }
            }
            guard !pending.isEmpty else { continue }
            try prefetch(relationship, of: pending, allStored: wholeTable && pending.count == objects.count)
        }
    }

    /// Loads one relationship of `objects` (none of which has it loaded) in
    /// the way its storage calls for.
    private func prefetch(_ relationship: ResolvedRelationship, of objects: [any Entity], allStored: Bool) throws(LiteRecordError) {
        switch relationship.storage {
        case .foreignKey:
            try prefetchToOne(relationship, of: objects)
        case .inverseForeignKey(let column):
            try prefetchToMany(relationship, column: column, of: objects, allStored: allStored)
        case .joinTable(let table):
            try prefetchManyToMany(relationship, table: table, of: objects)
        }
    }

    /// A to-one: fetches the destinations not yet registered, in one
    /// statement, then resolves each object's fault from the identity map.
    private func prefetchToOne(_ relationship: ResolvedRelationship, of objects: [any Entity]) throws(LiteRecordError) {
        let key = SQLIdentifier.rowID.quoted
        // The destination's objects by row id, looked up once (the same
        // table the fetch below registers into).
        let registered = identityMap.table(for: relationship.destination)
        var wanted: [Int64] = []
        wanted.reserveCapacity(objects.count)
        for object in objects {
            if case .fault(let id?) = RelationGraph.slot(object, relationship.index), registered[id] == nil {
                wanted.append(id)
            }
        }
        if !wanted.isEmpty {
            _ = try fetchAny(relationship.destination, Self.rowIDQuery(key, Self.distinct(wanted)))
        }
        // Every destination is registered now: resolving costs no statement.
        for object in objects {
            switch RelationGraph.slot(object, relationship.index) {
            case .fault(nil):
                RelationGraph.store(.toOne(nil), in: object, relationship.index)
            case .fault(let id?):
                if let found = registered.entity(id) {
                    // A target deleted here reads nil and the fault keeps its
                    // row, as on an ordinary access: a rollback brings it back.
                    if found.statePhase != .deleted { RelationGraph.store(.toOne(found), in: object, relationship.index) }
                } else {
                    // Gone from the store since the object was read: the
                    // ordinary path reports or resolves it.
                    _ = RelationGraph.toOne(object, relationship.index)
                }
            case .unloaded, .toOne, .toMany:
                break
            }
        }
    }

    /// A to-many whose inverse is a to-one in `column`: fetches the related
    /// rows in one statement and groups them by the owner they name.
    private func prefetchToMany(
        _ relationship: ResolvedRelationship, column: String, of objects: [any Entity], allStored: Bool
    ) throws(LiteRecordError) {
        guard let inverse = relationship.inverseIndex else { return }
        let key = SQLIdentifier.rowID.quoted
        let quoted = SQLIdentifier.quote(column)
        var query: SQLQuery
        if allStored {
            // The owners are every stored record, so every row whose
            // foreign key is set names one of them (the store enforces
            // its foreign keys; a row naming an owner stored since the
            // owners were read is left out by the grouping below). One
            // pass over the table in row-id order costs less than finding
            // each owner's rows in the index and then each row in the
            // table, and testing each row against the owners' ids costs a
            // lookup per row: `+` keeps SQLite off the index.
            query = SQLQuery()
            query.whereSQL = "+\(quoted) IS NOT NULL"
        } else {
            query = Self.rowIDQuery(quoted, objects.compactMap(\.stateRowID))
            // Owner by owner, each one's objects in row-id order: the
            // order in which SQLite reads the index on the foreign key, so
            // it sorts nothing (ordering by row id alone sorted every row).
            query.orderBy = "\(quoted), \(key)"
        }
        let related = try fetchAny(relationship.destination, query)
        var lists = Self.groupByOwner(related, inverse, of: objects, inRowIDOrder: allStored)
        if parent != nil { lists = try overlayAncestors(lists, of: objects, relationship) }
        // With no unsaved insert or change, nothing can join or leave a
        // list (objects are grouped by the owner they have in memory).
        let overlays = !inserted.isEmpty || !self.lists.updated.isEmpty
        for (object, stored) in zip(objects, lists) {
            guard object.stateRowID != nil else { continue }
            RelationGraph.store(.toMany(overlays ? overlay(stored, of: object, relationship) : stored), in: object, relationship.index)
        }
    }

    /// A many-to-many: reads the join table's pairs, fetches the related
    /// objects in one statement, and builds each object's list.
    private func prefetchManyToMany(_ relationship: ResolvedRelationship, table: JoinTable, of objects: [any Entity]) throws(LiteRecordError) {
        let key = SQLIdentifier.rowID.quoted
        let source = SQLIdentifier(table.sourceColumn)
        let pairsSQL = SelectStatement(
            [source, SQLIdentifier(table.destinationColumn)], from: SQLIdentifier(table.name), where: .column(inJSONArray: source)
        ).sql
        let ids = objects.compactMap(\.stateRowID)
        let pairs = try reading("prefetching \(relationship.qualifiedName)") { connection in
            try connection.rows(pairsSQL, [Self.jsonArray(ids)])
        }
        var links: [Int64: [Int64]] = [:]
        for pair in pairs {
            guard pair.count == 2, let from = pair[0].integerValue, let to = pair[1].integerValue else { continue }
            links[from, default: []].append(to)
        }
        let targets = Set(links.values.joined())
        if !targets.isEmpty {
            _ = try fetchAny(relationship.destination, Self.rowIDQuery(key, Array(targets)))
        }
        var lists = objects.map { object -> [any Entity] in
            guard let rowID = object.stateRowID else { return [] }
            return (links[rowID] ?? []).compactMap { id -> (any Entity)? in
                guard let found = registeredObject(relationship.destination, rowID: id),
                    found.statePhase != .deleted
                else { return nil }
                return found
            }
        }
        if parent != nil { lists = try overlayAncestors(lists, of: objects, relationship) }
        for (object, related) in zip(objects, lists) where object.stateRowID != nil {
            RelationGraph.store(.toMany(overlay(related, of: object, relationship)), in: object, relationship.index)
        }
    }

    /// `related` under the object of `owners` their to-one `inverse` names in
    /// memory (one list per owner, in the order of `owners`), each list in
    /// row-id order. `related` comes either in row-id order, or owner by
    /// owner: then an owner is looked up once per run of its objects.
    private static func groupByOwner(
        _ related: [any Entity], _ inverse: Int, of owners: [any Entity], inRowIDOrder: Bool
    ) -> [[any Entity]] {
        let find = OwnerPositions(owners)
        var lists = [[any Entity]](repeating: [], count: owners.count)
        // Room for an average list at an owner's first object, rather than
        // growing each list step by step.
        let expected = owners.isEmpty ? 0 : related.count / owners.count + 1
        var reordered: [Int] = []
        var run: (owner: Int64, position: Int?)?
        for object in related {
            let owner: Int64?
            switch RelationGraph.slot(object, inverse) {
            case .fault(let id?): owner = id
            case .toOne(let value?): owner = value.stateRowID
            default: owner = nil
            }
            guard let owner else { continue }
            let target: Int?
            if let run, run.owner == owner {
                target = run.position
            } else {
                target = find[owner]
                // Owner by owner, an owner met again had an object moved to
                // it in memory: its list is put back in row-id order below.
                if !inRowIDOrder, let target, !lists[target].isEmpty { reordered.append(target) }
                run = (owner, target)
            }
            guard let target else { continue }
            if lists[target].isEmpty { lists[target].reserveCapacity(expected) }
            lists[target].append(object)
        }
        for index in Set(reordered) {
            lists[index].sort { ($0.stateRowID ?? 0) < ($1.stateRowID ?? 0) }
        }
        return lists
    }

    /// `ids` without repeats, in the order of their first appearance: marked
    /// in a table indexed by id when the ids are dense (many objects naming
    /// a few thousand others), in a set otherwise.
    static func distinct(_ ids: [Int64]) -> [Int64] {
        guard let low = ids.min(), let high = ids.max() else { return [] }
        var result: [Int64] = []
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, span < Int64(ids.count) * 4 + 64 {
            var seen = [Bool](repeating: false, count: Int(span) + 1)
            for id in ids where !seen[Int(id - low)] {
                seen[Int(id - low)] = true
                result.append(id)
            }
        } else {
            var seen = Set<Int64>()
            for id in ids where seen.insert(id).inserted { result.append(id) }
        }
        return result
    }

    /// The position of each owner in a list of owners, by row id: a table
    /// indexed by row id when the ids are dense (as a whole table's are),
    /// a dictionary otherwise.
    private struct OwnerPositions {
        private var table: [Int32] = []
        private var base: Int64 = 0
        private var dictionary: [Int64: Int] = [:]

        init(_ owners: [any Entity]) {
            var ids: [Int64?] = []
            ids.reserveCapacity(owners.count)
            var (low, high) = (Int64.max, Int64.min)
            for owner in owners {
                let id = owner.stateRowID
                ids.append(id)
                if let id { (low, high) = (Swift.min(low, id), Swift.max(high, id)) }
            }
            guard low <= high else { return }
            let (span, overflow) = high.subtractingReportingOverflow(low)
            if !overflow, span < Int64(owners.count) * 4 + 64, owners.count < Int(Int32.max) {
                base = low
                table = [Int32](repeating: -1, count: Int(span) + 1)
                for (position, id) in ids.enumerated() {
                    if let id { table[Int(id - low)] = Int32(position) }
                }
            } else {
                dictionary.reserveCapacity(owners.count)
                for (position, id) in ids.enumerated() {
                    if let id { dictionary[id] = position }
                }
            }
        }

        subscript(_ rowID: Int64) -> Int? {
            guard !table.isEmpty else { return dictionary[rowID] }
            let (offset, overflow) = rowID.subtractingReportingOverflow(base)
            guard !overflow, offset >= 0, offset < Int64(table.count) else { return nil }
            let position = table[Int(offset)]
            return position < 0 ? nil : Int(position)
        }
    }

    /// `<column> IN (the row ids)`, the ids bound as one JSON array.
    static func rowIDQuery(_ column: String, _ ids: [Int64]) -> SQLQuery {
        var query = SQLQuery()
        query.whereSQL = "\(column) IN (SELECT value FROM json_each(?))"
        query.arguments = [jsonArray(ids)]
        return query
    }

    /// Row ids as one JSON array, for `IN (SELECT value FROM json_each(?))`.
    /// The digits are written straight into the text's storage: a `String`
    /// per id and a join cost more than the statement that reads them.
    static func jsonArray(_ ids: [Int64]) -> SQLValue {
        // "-9223372036854775808," is 21 bytes; brackets make 2 more.
        let capacity = ids.count * 21 + 2
        let text = String(unsafeUninitializedCapacity: capacity) { buffer in
            var end = 0
            buffer[end] = UInt8(ascii: "[")
            end += 1
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
            for (position, id) in ids.enumerated() {
                if position > 0 {
                    buffer[end] = UInt8(ascii: ",")
                    end += 1
                }
                if id < 0 {
                    buffer[end] = UInt8(ascii: "-")
                    end += 1
                }
                var magnitude = id.magnitude
                let count = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
                    var count = 0
                    repeat {
                        scratch[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                        magnitude /= 10
                        count += 1
                    } while magnitude > 0
                    for offset in 0..<count { buffer[end + offset] = scratch[count - 1 - offset] }
                    return count
                }
                end += count
            }
            buffer[end] = UInt8(ascii: "]")
            return end + 1
        }
        return .text(text)
    }
}
