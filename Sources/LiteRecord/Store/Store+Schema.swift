extension EntityDescription {
    var quotedTable: String { Connection.quote(tableName) }

    func columnDefinition(_ attribute: AttributeDescription) -> String {
        "\(Connection.quote(attribute.name)) \(attribute.type.columnType)\(attribute.isOptional ? "" : " NOT NULL")"
    }

    /// `CREATE TABLE` for the entity. The primary key is an explicit
    /// `INTEGER PRIMARY KEY`, an alias of the rowid, so `VACUUM` never
    /// renumbers records (https://sqlite.org/lang_createtable.html#rowid).
    var createTableSQL: String {
        let columns = ["\(Connection.quote(Model.primaryKeyColumn)) INTEGER PRIMARY KEY"]
            + attributes.map(columnDefinition)
        return "CREATE TABLE \(quotedTable) (\(columns.joined(separator: ", ")))"
    }

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
        }
    }

    static func indexName(table: String, column: String, unique: Bool) -> String {
        "literecord_\(unique ? "unique" : "index"):\(table).\(column)"
    }

    static func createIndexSQL(table: String, column: String, unique: Bool) -> String {
        let name = Connection.quote(indexName(table: table, column: column, unique: unique))
        return "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(Connection.quote(table)) (\(Connection.quote(column)))"
    }
}

extension Connection {
    /// Creates the tables, indexes and metadata of a new store.
    func createSchema(for model: Model) throws {
        for entity in model.entities {
            try execute(entity.createTableSQL)
            for statement in entity.createIndexSQL { try execute(statement) }
        }
        try createMetadataTable()
        try writeModelMetadata(model.schema)
    }
}
