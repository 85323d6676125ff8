import Foundation
import LiteRecord

/// What `literecord inspect PATH --json` prints: the facts of the text form as
/// one JSON object with sorted keys. Its schema is documented in Docs/CLI.md;
/// a change that renames, removes or retypes a field raises `schemaVersion`.
/// Absent values are written as `null`, never left out, so every field of
/// the schema is always there.
struct InspectDocument: Encodable {
    static let currentSchemaVersion = 1

    struct ModelFacts: Encodable {
        var fingerprint: String
        var createdAt: String?
        var tablesMatchModel: Bool
        var differences: [String]
        var migrationSteps: [String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(fingerprint, forKey: .fingerprint)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(tablesMatchModel, forKey: .tablesMatchModel)
            try container.encode(differences, forKey: .differences)
            try container.encode(migrationSteps, forKey: .migrationSteps)
        }

        enum CodingKeys: String, CodingKey {
            case fingerprint, createdAt, tablesMatchModel, differences, migrationSteps
        }
    }

    struct EntityFacts: Encodable {
        var name: String
        var rowCount: Int?
        var attributes: [AttributeFacts]
        /// The relationships the store's model description records.
        var relationships: [RelationshipFacts]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(rowCount, forKey: .rowCount)
            try container.encode(attributes, forKey: .attributes)
            try container.encode(relationships, forKey: .relationships)
        }

        enum CodingKeys: String, CodingKey {
            case name, rowCount, attributes, relationships
        }
    }

    struct AttributeFacts: Encodable {
        var name: String
        var type: String
        var columnType: String
        var optional: Bool
        var unique: Bool
        var indexed: Bool
        var searchable: Bool
    }

    struct SearchIndexFacts: Encodable {
        var name: String
        var entity: String
        var columns: [String]
        var triggers: [String]
    }

    struct RelationshipFacts: Encodable {
        var name: String
        var destination: String
        var toMany: Bool
        /// `null` when the relationship has no inverse.
        var inverse: String?
        var deleteRule: String
        /// The many-to-many link table; `null` for other kinds.
        var joinTable: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(destination, forKey: .destination)
            try container.encode(toMany, forKey: .toMany)
            try container.encode(inverse, forKey: .inverse)
            try container.encode(deleteRule, forKey: .deleteRule)
            try container.encode(joinTable, forKey: .joinTable)
        }

        enum CodingKeys: String, CodingKey {
            case name, destination, toMany, inverse, deleteRule, joinTable
        }
    }

    /// For `--replica`: where the report's facts come from.
    struct ReplicaFacts: Encodable {
        var url: String
        var txid: UInt64
        /// `null` when the VFS gives no commit time.
        var commitTime: String?
        /// `null` unless `--as-of` was given.
        var asOf: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(txid, forKey: .txid)
            try container.encode(commitTime, forKey: .commitTime)
            try container.encode(asOf, forKey: .asOf)
        }

        enum CodingKeys: String, CodingKey {
            case url, txid, commitTime, asOf
        }
    }

    /// The store's persistent history, `null` when it keeps none.
    struct HistoryFacts: Encodable {
        var transactions: Int
        /// `null` when no transaction is kept.
        var oldestToken: String?
        var newestToken: String?
        /// The last token deleted, `null` when none was.
        var purgedThrough: String?
        var changeBytes: Int64

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(transactions, forKey: .transactions)
            try container.encode(oldestToken, forKey: .oldestToken)
            try container.encode(newestToken, forKey: .newestToken)
            try container.encode(purgedThrough, forKey: .purgedThrough)
            try container.encode(changeBytes, forKey: .changeBytes)
        }

        enum CodingKeys: String, CodingKey {
            case transactions, oldestToken, newestToken, purgedThrough, changeBytes
        }
    }

    struct TableFacts: Encodable {
        var name: String
        var rowCount: Int
        var columns: [ColumnFacts]
        var indexes: [String]
    }

    struct ColumnFacts: Encodable {
        var name: String
        var type: String
        var nullable: Bool
        var primaryKey: Bool
    }

    var schemaVersion = currentSchemaVersion
    var path: String
    var sizeInBytes: Int64
    var journalMode: String
    var pageSize: Int
    var pageCount: Int
    var sqliteVersion: String
    var isLiteRecordStore: Bool
    var model: ModelFacts?
    var entities: [EntityFacts]
    var tables: [TableFacts]
    var searchIndexes: [SearchIndexFacts]
    var preMigrationCopies: [String]
    var replica: ReplicaFacts?
    var history: HistoryFacts?

    init(_ report: StoreInspection, asOf: String? = nil) {
        path = report.replicaPosition == nil ? report.url.path : report.url.absoluteString
        replica = report.replicaPosition.map { position in
            ReplicaFacts(
                url: report.url.absoluteString, txid: position.txid,
                commitTime: position.commitTime.map { $0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }, asOf: asOf)
        }
        sizeInBytes = report.sizeInBytes
        journalMode = report.journalMode
        pageSize = report.pageSize
        pageCount = report.pageCount
        sqliteVersion = report.sqliteVersion
        isLiteRecordStore = report.isLiteRecordStore
        model = report.modelFingerprint.map { fingerprint in
            ModelFacts(
                fingerprint: fingerprint, createdAt: report.createdAt, tablesMatchModel: report.tablesMatchModel ?? false,
                differences: report.schemaDifferences, migrationSteps: report.migrationSteps)
        }
        let rowCounts = Dictionary(report.tables.map { ($0.name, $0.rowCount) }, uniquingKeysWith: { first, _ in first })
        entities = report.entities.map { entity in
            EntityFacts(
                name: entity.name, rowCount: rowCounts[entity.name],
                attributes: entity.attributes.map { attribute in
                    AttributeFacts(
                        name: attribute.name, type: attribute.type, columnType: attribute.columnType,
                        optional: attribute.isOptional, unique: attribute.isUnique, indexed: attribute.isIndexed,
                        searchable: attribute.isSearchable)
                },
                relationships: entity.relationships.map { relationship in
                    RelationshipFacts(
                        name: relationship.name, destination: relationship.destination, toMany: relationship.isToMany,
                        inverse: relationship.inverse, deleteRule: relationship.deleteRule.rawValue,
                        joinTable: relationship.joinTable)
                })
        }
        tables = report.tables.map { table in
            TableFacts(
                name: table.name, rowCount: table.rowCount,
                columns: table.columns.map {
                    ColumnFacts(name: $0.name, type: $0.type, nullable: $0.isNullable, primaryKey: $0.isPrimaryKey)
                },
                indexes: table.indexes)
        }
        searchIndexes = report.searchIndexes.map {
            SearchIndexFacts(name: $0.name, entity: $0.entity, columns: $0.columns, triggers: $0.triggers.sorted())
        }
        preMigrationCopies = report.preMigrationCopies.map(\.path)
        history = report.history.map { history in
            HistoryFacts(
                transactions: history.transactionCount, oldestToken: history.oldest?.description,
                newestToken: history.newest?.description, purgedThrough: history.purgedThrough?.description,
                changeBytes: history.changeBytes)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(path, forKey: .path)
        try container.encode(sizeInBytes, forKey: .sizeInBytes)
        try container.encode(journalMode, forKey: .journalMode)
        try container.encode(pageSize, forKey: .pageSize)
        try container.encode(pageCount, forKey: .pageCount)
        try container.encode(sqliteVersion, forKey: .sqliteVersion)
        try container.encode(isLiteRecordStore, forKey: .isLiteRecordStore)
        try container.encode(model, forKey: .model)
        try container.encode(entities, forKey: .entities)
        try container.encode(tables, forKey: .tables)
        try container.encode(searchIndexes, forKey: .searchIndexes)
        try container.encode(preMigrationCopies, forKey: .preMigrationCopies)
        try container.encode(replica, forKey: .replica)
        try container.encode(history, forKey: .history)
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, path, sizeInBytes, journalMode, pageSize, pageCount, sqliteVersion
        case isLiteRecordStore, model, entities, tables, searchIndexes, preMigrationCopies, replica, history
    }

    /// The document as pretty-printed JSON with sorted keys and unescaped
    /// slashes, ending in a newline.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
