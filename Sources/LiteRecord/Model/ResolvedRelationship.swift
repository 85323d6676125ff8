/// A relationship as the model resolved it: where its inverse is and how it
/// is stored. Built once at setup from the entities' ``RelationshipDescription``s.
struct ResolvedRelationship: Sendable {
    /// How a relationship is kept in the store.
    enum Storage: Sendable, Equatable {
        /// A to-one: a column of the source table holding the destination's row id.
        case foreignKey(column: String)
        /// A to-many whose inverse is a to-one: the destination's column.
        case inverseForeignKey(column: String)
        /// A to-many stored in a join table, one row per related pair.
        case joinTable(JoinTable)
    }

    /// Position in the entity's ``Entity/relationships``.
    let index: Int
    let name: String
    let entityName: String
    /// The model's entity type at the other end (found by type, else by name).
    var destination: any Entity.Type
    let destinationName: String
    let isToMany: Bool
    let deleteRule: RelationshipDescription.DeleteRule
    let originalName: String?
    let minimumCount: Int?
    let maximumCount: Int?
    /// The index of the inverse in the destination's relationships.
    var inverseIndex: Int?
    var inverseIsToMany = false
    /// Whether the inverse is a to-many with a `minimumCount` or
    /// `maximumCount`: setting this to-one, or deleting its object, changes
    /// how many objects that list holds (see `RecordContext.countedOwners`).
    var inverseIsCounted = false
    /// Whether this is a to-many with a `minimumCount` or `maximumCount`.
    var isCounted: Bool { isToMany && (minimumCount != nil || maximumCount != nil) }
    /// A to-one whose inverse is a to-one: a column on each side.
    var isOneToOne: Bool { !isToMany && inverseIndex != nil && !inverseIsToMany }
    var storage: Storage = .foreignKey(column: "")
    /// For a to-one: the position of its column among the entity's stored
    /// columns (after the attributes), which is also its index in a change mask.
    var columnIndex: Int?

    init(_ description: RelationshipDescription, index: Int, entityName: String) {
        self.index = index
        self.name = description.name
        self.entityName = entityName
        self.destination = description.destination
        self.destinationName = description.destination.entityName
        self.isToMany = description.isToMany
        self.deleteRule = description.deleteRule
        self.originalName = description.originalName
        self.minimumCount = description.minimumCount
        self.maximumCount = description.maximumCount
    }

    var qualifiedName: String { "\(entityName).\(name)" }

    var schema: RelationshipSchema {
        var join: String?
        if case .joinTable(let table) = storage { join = table.name }
        return RelationshipSchema(
            name: name, destination: destinationName, isToMany: isToMany,
            inverse: inverseIndex.map { _ in inverseName ?? "" }, deleteRule: deleteRule,
            joinTable: join, originalName: originalName)
    }

    /// Set by the model with the inverse's name, for the stored description.
    var inverseName: String?
    /// For a join table: whether this side names it (and so creates it).
    var ownsJoinTable = false
}

/// A many-to-many relationship's table: one row per related pair, with a
/// composite primary key.
struct JoinTable: Sendable, Equatable {
    let name: String
    /// The column holding the row id of the relationship's own entity.
    let sourceColumn: String
    /// The column holding the destination's row id.
    let destinationColumn: String
    let sourceTable: String
    let destinationTable: String

    /// The same table seen from the other side.
    var flipped: JoinTable {
        JoinTable(
            name: name, sourceColumn: destinationColumn, destinationColumn: sourceColumn,
            sourceTable: destinationTable, destinationTable: sourceTable)
    }

    var createSQL: String {
        let key = SQLIdentifier.rowID.quoted
        let (a, b) = (SQLIdentifier.quote(sourceColumn), SQLIdentifier.quote(destinationColumn))
        return "CREATE TABLE \(SQLIdentifier(name)) ("
            + "\(a) INTEGER NOT NULL REFERENCES \(SQLIdentifier(sourceTable))(\(key)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "
            + "\(b) INTEGER NOT NULL REFERENCES \(SQLIdentifier(destinationTable))(\(key)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "
            + "PRIMARY KEY (\(a), \(b))) WITHOUT ROWID"
    }

    /// The primary key serves lookups by the first column; this index serves
    /// the second.
    var createIndexSQL: String {
        EntityDescription.createIndexSQL(table: name, column: destinationColumn, unique: false)
    }
}

/// The stored form of a relationship, compared by migrations.
struct RelationshipSchema: Codable, Equatable, Sendable {
    var name: String
    var destination: String
    var isToMany: Bool
    var inverse: String?
    var deleteRule: RelationshipDescription.DeleteRule
    var joinTable: String?
    var originalName: String?
}
