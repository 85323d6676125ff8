import Foundation

/// What of the history lives in the file beside its table: the attributes
/// whose values deletions keep, and the history's identity, which a copy
/// does not share.
extension HistoryLog {
    /// The view listing the preserved attributes of the file, as rows of
    /// `(entity, name)`: a view because making it anew changes the schema,
    /// and every writer of the file decides its recording again (its
    /// tombstone triggers above all) when the schema changed.
    static let preservedView = "literecord_history_preserved"

    /// The attributes whose values a deletion keeps, by entity: those the
    /// file lists and those `model` declares `.preserveValueOnDeletion`.
    ///
    /// The list is the file's, not the declaration's: a writer declared
    /// without the option (an older release, a widget, a tool) keeps the
    /// values too, so whether a deletion has its tombstone never depends on
    /// which process deleted.
    static func preservedAttributes(of model: Model, on connection: Connection) throws -> [String: Set<String>] {
        var preserved = try storedPreservedAttributes(on: connection)
        for (entity, names) in declaredPreservedAttributes(of: model) {
            preserved[entity, default: []].formUnion(names)
        }
        return preserved
    }

    /// Adds what `model` declares to the file's list, in a transaction of
    /// its own, when the list lacks some of it. Attributes are never taken
    /// off the list: a declaration without them may be an older writer's.
    /// Disabling history empties it with the history.
    static func recordPreservedAttributes(of model: Model, on connection: Connection) throws {
        let declared = declaredPreservedAttributes(of: model)
        // Read first: an open whose declaration the list holds already (every
        // open but the first) takes no write lock.
        let listed = try storedPreservedAttributes(on: connection)
        guard declared.contains(where: { !$0.value.isSubset(of: listed[$0.key] ?? []) }) else { return }
        try connection.transaction(.immediate) {
            var stored = try storedPreservedAttributes(on: connection)
            let before = stored
            for (entity, names) in declared { stored[entity, default: []].formUnion(names) }
            guard stored != before else { return }
            let rows = stored.keys.sorted().flatMap { entity in
                stored[entity, default: []].sorted().map { name in
                    "SELECT \(SQLValue.text(entity).sqlLiteral) AS entity, \(SQLValue.text(name).sqlLiteral) AS name"
                }
            }
            try connection.execute("DROP VIEW IF EXISTS \(SQLIdentifier(preservedView))")
            try connection.execute("CREATE VIEW \(SQLIdentifier(preservedView)) AS \(rows.joined(separator: " UNION ALL "))")
        }
    }

    private static func declaredPreservedAttributes(of model: Model) -> [String: Set<String>] {
        var declared: [String: Set<String>] = [:]
        for entity in model.entities {
            let names = entity.attributes.filter { $0.options.contains(.preserveValueOnDeletion) }.map(\.name)
            if !names.isEmpty { declared[entity.name] = Set(names) }
        }
        return declared
    }

    private static func storedPreservedAttributes(on connection: Connection) throws -> [String: Set<String>] {
        let exists =
            try connection.scalar(
                "SELECT 1 FROM sqlite_schema WHERE type = 'view' AND name = ?", [.text(preservedView)]) != nil
        guard exists else { return [:] }
        var stored: [String: Set<String>] = [:]
        let select = SelectStatement([SQLIdentifier(bare: "entity"), SQLIdentifier(bare: "name")], from: SQLIdentifier(preservedView))
        for row in try connection.rows(select.sql) {
            guard case .text(let entity) = row[0], case .text(let name) = row[1] else { continue }
            stored[entity, default: []].insert(name)
        }
        return stored
    }

    /// Gives a copy of a store (a backup, the copy kept before a migration)
    /// a history identifier of its own, when it keeps history: the copy's
    /// next commits take transaction numbers the original gave out already,
    /// so a token of the original must not read the copy (it is
    /// `.historyExpired` there, and the reader reads the store again).
    static func giveCopyItsOwnIdentity(on connection: Connection) throws {
        try renewStoreID(on: connection)
    }

    /// Gives the store's history a new identifier when it keeps history, so
    /// that every token given out before is `.historyExpired`; whether it did.
    @discardableResult
    static func renewStoreID(on connection: Connection) throws -> Bool {
        guard try connection.tableNames().contains(table), try connection.metadata(storeIDKey) != nil else { return false }
        try connection.setMetadata(storeIDKey, newStoreID())
        return true
    }
}
