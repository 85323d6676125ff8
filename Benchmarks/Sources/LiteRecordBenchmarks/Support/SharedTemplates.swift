/// The starting stores of the engines that share the `item` schema, written
/// with the C API so that no engine's insert path shapes another's file.
enum SharedTemplates {
    static func make(_ kind: TemplateKind, at path: String, count: Int) throws {
        let db = try RawDatabase(path: path)
        try db.applyBenchmarkPragmas()
        switch kind {
        case .empty:
            try db.execute(SharedSchema.createItem)
        case .items, .manyItems:
            try db.execute(SharedSchema.createItem)
            try insertRows(count, into: db, table: .shared)
        case .userItems:
            try db.execute(SharedSchema.createItem)
            try insertRows(count, into: db, table: .shared, row: Dataset.userRow)
        case .launch:
            try LaunchQuery.makeTemplate(at: path, count: count)
        case .model:
            for index in 0..<SharedSchema.modelEntityCount {
                try db.execute(SharedSchema.createModelTable(index))
            }
        case .library:
            try db.execute(LibrarySchema.create)
            try LibrarySchema.insertRows(authors: count, into: db, tables: .shared)
        }
    }
}

extension SharedTemplates {
    /// Appends rows 0..<count of the data set (`row`) to an existing item table.
    static func insertRows(
        _ count: Int, into path: String, table: ItemTable, row: (Int) -> ItemValues = { Dataset.row($0) }
    ) throws {
        let db = try RawDatabase(path: path)
        try db.applyBenchmarkPragmas()
        try insertRows(count, into: db, table: table, row: row)
    }

    static func insertRows(
        _ count: Int, into db: RawDatabase, table: ItemTable, row: (Int) -> ItemValues = { Dataset.row($0) }
    ) throws {
        try db.execute("BEGIN IMMEDIATE")
        let insert = try db.prepare(
            "INSERT INTO \"\(table.table)\" (uuid, name, age, score, created, email) VALUES (?, ?, ?, ?, ?, ?)")
        for index in 0..<count {
            try RawCEngine.insert(row(index), with: insert)
        }
        try db.execute("COMMIT")
    }
}
