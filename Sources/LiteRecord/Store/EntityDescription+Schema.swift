extension EntityDescription {
    var quotedTable: String { table.quoted }

    func columnDefinition(_ attribute: AttributeDescription) -> String {
        "\(SQLIdentifier(attribute.name)) \(attribute.type.columnType)\(attribute.isOptional ? "" : " NOT NULL")"
    }

    /// A to-one's column: nullable, referencing the destination's key. The
    /// check is deferred to the commit, so that a save can write related rows
    /// in any order (https://sqlite.org/foreignkeys.html#fk_deferred). Delete
    /// rules run in the context, not in the schema, so that changing one
    /// changes no table.
    func foreignKeyDefinition(_ relationship: ResolvedRelationship) -> String {
        "\(SQLIdentifier(relationship.name)) INTEGER REFERENCES \(SQLIdentifier(relationship.destinationName))"
            + "(\(SQLIdentifier.rowID)) DEFERRABLE INITIALLY DEFERRED"
    }

    /// `CREATE TABLE` for the entity. The primary key is an explicit
    /// `INTEGER PRIMARY KEY`, an alias of the rowid, so `VACUUM` never
    /// renumbers records (https://sqlite.org/lang_createtable.html#rowid).
    var createTableSQL: String {
        let columns =
            ["\(SQLIdentifier.rowID) INTEGER PRIMARY KEY", Self.versionColumnDefinition]
            + attributes.map(columnDefinition)
            + toOneIndexes.map { foreignKeyDefinition(relationships[$0]) }
        return "CREATE TABLE \(quotedTable) (\(columns.joined(separator: ", ")))"
    }

    /// The version column, which every entity table has (``Model/versionColumn``);
    /// a new row starts at ``Model/initialVersion``.
    static let versionColumnDefinition = "\(SQLIdentifier.version) INTEGER NOT NULL DEFAULT \(Model.initialVersion)"

    /// The indexes of unique and indexed attributes. They are named indexes
    /// rather than column constraints so that a migration can add and drop them
    /// without rebuilding the table.
    var createIndexSQL: [String] {
        attributes.flatMap { attribute -> [String] in
            var statements: [String] = []
            if attribute.isUnique {
                statements.append(Self.createIndexSQL(table: tableName, column: attribute.name, unique: true))
            }
            if attribute.isIndexed {
                statements.append(Self.createIndexSQL(table: tableName, column: attribute.name, unique: false))
            }
            return statements
        } + toOneIndexes.map { Self.createIndexSQL(table: tableName, column: relationships[$0].name, unique: false) }
    }

    /// The join tables this entity owns (the side of a many-to-many pair
    /// whose table carries its name), with their indexes.
    var createJoinTableSQL: [String] {
        relationships.flatMap { relationship -> [String] in
            guard case .joinTable(let table) = relationship.storage, relationship.ownsJoinTable else { return [] }
            return [table.createSQL, table.createIndexSQL]
        }
    }

    static func indexName(table: String, column: String, unique: Bool) -> String {
        "literecord_\(unique ? "unique" : "index"):\(table).\(column)"
    }

    static func createIndexSQL(table: String, column: String, unique: Bool) -> String {
        let name = SQLIdentifier.quote(indexName(table: table, column: column, unique: unique))
        return "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(SQLIdentifier(table)) (\(SQLIdentifier(column)))"
    }
}
