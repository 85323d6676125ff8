extension Connection {
    /// Creates the tables, indexes, full-text indexes and metadata of a new store.
    func createSchema(for model: Model) throws {
        for entity in model.entities {
            try execute(entity.createTableSQL)
            for statement in entity.createIndexSQL { try execute(statement) }
        }
        for entity in model.entities {
            for statement in entity.createJoinTableSQL { try execute(statement) }
        }
        if model.entities.contains(where: \.isSearchable) { try createSearchDeferralTable() }
        for entity in model.entities {
            for statement in entity.createSearchIndexSQL { try execute(statement) }
        }
        try createRecordIDTable()
        try createMetadataTable()
        try writeModelMetadata(model.schema)
    }

    /// Adds the version column to those of `tables` that lack it: the tables
    /// of a store written before LiteRecord kept row versions. Every existing
    /// row starts at version 1. Returns the tables changed.
    @discardableResult
    func addVersionColumns(to tables: some Sequence<String>) throws -> [String] {
        var added: [String] = []
        for table in tables {
            let columns = try rows("SELECT name FROM pragma_table_info(?)", [.text(table)])
            guard !columns.isEmpty, !columns.contains(where: { $0.first == .text(Model.versionColumn) }) else { continue }
            try execute("ALTER TABLE \(SQLIdentifier(table)) ADD COLUMN \(EntityDescription.versionColumnDefinition)")
            added.append(table)
        }
        return added
    }
}
