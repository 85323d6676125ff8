import Foundation

/// The metadata table: a key/value table in which a store keeps the model that
/// last wrote it and the migration steps that ran.
enum MetadataKey {
    static let formatVersion = "format_version"
    static let fingerprint = "model_fingerprint"
    static let schema = "model_schema"
    /// The model's canonical text (``ModelSchema/canonicalText``), written
    /// with ``schema``: what an open compares to know the model is unchanged
    /// without decoding the JSON. A store written before it existed lacks
    /// it and is compared through ``schema``.
    static let canonicalSchema = "model_canonical"
    static let createdAt = "created_at"
    static let migrationStepPrefix = "migration_step:"
}

/// The versions of the store's own layout (as opposed to the model's).
enum StoreFormat {
    /// 2: every entity table has the version column (``Model/versionColumn``);
    /// version 1 stores lack it and gain it when opened for writing.
    /// 3: the full-text insert and update triggers skip rows a save indexes itself
    /// (``Model/searchDeferralTable``); a version 2 store's triggers are
    /// replaced when it is opened for writing.
    /// 4: the store keeps the highest record id handed out per entity table
    /// (``Model/recordIDTable``), so that no id is used twice; a version 3
    /// store gains the table, marked at each table's highest row, when it is
    /// opened for writing.
    static let current = 4
    /// The first format a read-only stack can read: one with row versions.
    /// Formats 3 and 4 changed only what writers do.
    static let rowVersions = 2
}

extension Connection {
    private var metadataTable: SQLIdentifier { SQLIdentifier(Model.metadataTable) }

    func createMetadataTable() throws {
        try execute("CREATE TABLE IF NOT EXISTS \(metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        try setMetadata(MetadataKey.formatVersion, String(StoreFormat.current))
        try setMetadata(MetadataKey.createdAt, ISO8601DateFormatter().string(from: Date()))
    }

    func setMetadata(_ key: String, _ value: String) throws {
        let (keyColumn, valueColumn) = (SQLIdentifier(bare: "key"), SQLIdentifier(bare: "value"))
        let upsert = InsertStatement(into: metadataTable, columns: [keyColumn, valueColumn])
            .onConflict(keyColumn, doUpdate: [.expression(valueColumn, "excluded.value")])
        try execute(upsert.sql, [.text(key), .text(value)])
    }

    func metadata(_ key: String) throws -> String? {
        let select = SelectStatement([SQLIdentifier(bare: "value")], from: metadataTable, where: .equals(SQLIdentifier(bare: "key")))
        guard case .text(let value)? = try scalar(select.sql, [.text(key)]) else {
            return nil
        }
        return value
    }

    /// The store's layout version; 1 for a store that never recorded one.
    func storeFormat() throws -> Int {
        try metadata(MetadataKey.formatVersion).flatMap(Int.init) ?? 1
    }

    /// Refuses a store a later LiteRecord wrote in a layout this one does not
    /// know (``StoreFormat/current`` below its recorded format), before
    /// anything reads or writes it as if it were the old layout: a future
    /// format protects itself from today's writers this way.
    ///
    /// - Throws: `.storeUnavailable` naming both formats; the file is left
    ///   untouched.
    func requireKnownStoreFormat(_ displayName: String) throws {
        let recorded = try metadata(MetadataKey.formatVersion)
        guard let recorded else { return }
        guard let format = Int(recorded), format <= StoreFormat.current else {
            throw LiteRecordError(
                .storeUnavailable,
                "\(displayName) was written by a later LiteRecord in store format \(recorded), and this LiteRecord knows formats up to \(StoreFormat.current); it was left untouched: open it with that LiteRecord or a later one"
            )
        }
    }

    /// Brings the layout of a store written by an earlier LiteRecord up to
    /// ``StoreFormat/current``: adds the version column to the entity tables
    /// among `tables`, the record-id marks (``Model/recordIDTable``) and
    /// replaces full-text triggers that differ from this LiteRecord's. The
    /// triggers are checked whatever the recorded format: an earlier
    /// LiteRecord that migrates a store of the current format writes its own
    /// triggers back, and a save here would then index its rows twice. Call
    /// inside a write transaction.
    func upgradeStoreFormat(tables: some Sequence<String>) throws -> [String] {
        let tables = Array(tables)
        try upgradeSearchTriggers()
        if try !hasRecordIDTable() { try createRecordIDTable(markingHighestRowsOf: tables) }
        guard try storeFormat() < StoreFormat.current else { return [] }
        let added = try addVersionColumns(to: tables)
        try setMetadata(MetadataKey.formatVersion, String(StoreFormat.current))
        return added
    }

    /// Whether ``upgradeStoreFormat(tables:)`` has anything to do: checked
    /// by every writable open before it takes the write lock.
    func storeNeedsUpgrade() throws -> Bool {
        try storeFormat() < StoreFormat.current || !hasRecordIDTable() || !staleSearchTriggers().isEmpty
    }

    func writeModelMetadata(_ schema: ModelSchema) throws {
        try setMetadata(MetadataKey.fingerprint, schema.fingerprint)
        try setMetadata(MetadataKey.schema, try schema.encoded())
        try setMetadata(MetadataKey.canonicalSchema, schema.canonicalText)
    }

    /// Whether the store was last written by `model`, judged as
    /// ``storedModel()`` and a comparison of fingerprint and canonical text
    /// would judge it, but from the recorded canonical text instead of the
    /// decoded JSON: decoding is most of what opening an unchanged store
    /// costs. `false` means "not known to match" (a new or foreign store, a
    /// changed model, or one written before the canonical text was
    /// recorded): the caller then reads ``storedModel()``.
    func storedModelIsUnchanged(from model: Model) throws -> Bool {
        // Renaming hints are not in the canonical text: whether one applies
        // takes the stored model (``ModelSchema/isUnchanged(becoming:fingerprint:)``).
        guard !model.schema.hasRenamingHints, try tableNames().contains(Model.metadataTable),
            let fingerprint = try metadata(MetadataKey.fingerprint)
        else { return false }
        // The text is built once, for both comparisons.
        let canonicalText = model.schema.canonicalText
        guard fingerprint == ModelSchema.fingerprint(of: canonicalText),
            let canonical = try metadata(MetadataKey.canonicalSchema)
        else { return false }
        return canonical == canonicalText
    }

    /// The names of the tables in the database, SQLite's own excluded.
    func tableNames() throws -> [String] {
        try rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { row in if case .text(let name) = row.first { name } else { nil } }
    }

    /// What the database says about the model that wrote it.
    enum StoredModel {
        /// No tables at all: a new store.
        case empty
        /// Tables but no LiteRecord metadata: somebody else's database.
        case foreign(tables: [String])
        case model(fingerprint: String, schema: ModelSchema)
    }

    func storedModel() throws -> StoredModel {
        let tables = try tableNames()
        if tables.isEmpty { return .empty }
        guard tables.contains(Model.metadataTable) else { return .foreign(tables: tables) }
        guard let fingerprint = try metadata(MetadataKey.fingerprint), let text = try metadata(MetadataKey.schema) else {
            return .foreign(tables: tables)
        }
        do {
            return .model(fingerprint: fingerprint, schema: try ModelSchema.decode(text))
        } catch {
            throw LiteRecordError(.corruptStore, "the store's model description cannot be read: \(error)")
        }
    }
}
