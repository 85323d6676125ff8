import Foundation

extension StoreInspection {
    /// An entity as the model description kept in the store records it.
    ///
    /// ```swift
    /// for entity in try StoreInspection(storeAt: url).entities {
    ///     print(entity.name, entity.attributes.map(\.name))
    /// }
    /// ```
    public struct StoredEntity: Sendable {
        /// The entity's name, which is also its table's name.
        public let name: String
        /// Its stored attributes, in the order the description lists them.
        public let attributes: [StoredAttribute]
        /// Its relationships, in the order the description lists them.
        public let relationships: [StoredRelationship]
    }

    /// A relationship as the model description kept in the store records it.
    ///
    /// ```swift
    /// for relationship in try StoreInspection(storeAt: url).entities.flatMap(\.relationships) {
    ///     print(relationship.name, "→", relationship.destination, relationship.isToMany ? "(many)" : "(one)")
    /// }
    /// ```
    public struct StoredRelationship: Sendable {
        /// The relationship's name (a to-one's is also its column's name).
        public let name: String
        /// The entity it points to.
        public let destination: String
        /// Whether it holds many objects.
        public let isToMany: Bool
        /// The destination's relationship that points back, if any.
        public let inverse: String?
        /// What deleting the source does to the destination objects.
        public let deleteRule: RelationshipDescription.DeleteRule
        /// The table holding a many-to-many's links, `nil` for other kinds.
        public let joinTable: String?
    }

    /// An attribute as the model description kept in the store records it.
    public struct StoredAttribute: Sendable {
        /// The attribute's name, which is also its column's name.
        public let name: String
        /// The attribute type's canonical name, such as `"int64"` or `"string"`
        /// (see ``AttributeType``).
        public let type: String
        /// The SQLite column type the attribute is stored as.
        public let columnType: String
        /// Whether the attribute may be `nil` (its column allows `NULL`).
        public let isOptional: Bool
        /// Whether the attribute is `@Attribute(.unique)`.
        public let isUnique: Bool
        /// Whether the attribute is `@Attribute(.indexed)`.
        public let isIndexed: Bool
        /// Whether the attribute is `@Attribute(.searchable)`.
        public let isSearchable: Bool
    }

    static func storedEntities(_ schema: ModelSchema?) -> [StoredEntity] {
        (schema?.entities ?? []).map { entity in
            StoredEntity(
                name: entity.name,
                attributes: entity.attributes.map { attribute in
                    StoredAttribute(
                        name: attribute.name, type: attribute.type.name, columnType: attribute.type.columnType,
                        isOptional: attribute.isOptional, isUnique: attribute.isUnique, isIndexed: attribute.isIndexed,
                        isSearchable: attribute.isSearchable ?? false)
                },
                relationships: (entity.relationships ?? []).map { relationship in
                    StoredRelationship(
                        name: relationship.name, destination: relationship.destination, isToMany: relationship.isToMany,
                        inverse: relationship.inverse, deleteRule: relationship.deleteRule, joinTable: relationship.joinTable)
                })
        }
    }

    /// Where the file's tables and LiteRecord's indexes differ from what the
    /// store's model description says they are: what a store created from
    /// that description would hold. Indexes LiteRecord did not name
    /// (`literecord_…`) are the user's own and are not compared.
    static func differences(_ schema: ModelSchema, tables: [Table]) -> [String] {
        var differences: [String] = []
        var remaining = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in schema.entities {
            guard let table = remaining.removeValue(forKey: entity.name) else {
                differences.append("\(entity.name): the table is missing")
                continue
            }
            differences += columnDifferences(entity, table)
            var expectedIndexes: Set<String> = []
            for attribute in entity.attributes {
                if attribute.isUnique {
                    expectedIndexes.insert(EntityDescription.indexName(table: entity.name, column: attribute.name, unique: true))
                }
                if attribute.isIndexed {
                    expectedIndexes.insert(EntityDescription.indexName(table: entity.name, column: attribute.name, unique: false))
                }
            }
            let ours = Set(table.indexes.filter { $0.hasPrefix("literecord_") })
            for missing in expectedIndexes.subtracting(ours).sorted() {
                differences.append("\(entity.name): index '\(missing)' is missing")
            }
            for extra in ours.subtracting(expectedIndexes).sorted() {
                differences.append("\(entity.name): index '\(extra)' is not in the model")
            }
        }
        for name in remaining.keys.sorted() {
            differences.append("\(name): the table is not in the model")
        }
        return differences
    }

    /// Where the full-text indexes differ from the searchable attributes of
    /// the model description: a missing or extra index, other columns, or
    /// missing triggers (without which the index stops following the table).
    static func searchDifferences(_ schema: ModelSchema, indexes: [SearchIndex]) -> [String] {
        var differences: [String] = []
        var remaining = Dictionary(indexes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in schema.entities {
            let columns = entity.attributes.filter { $0.isSearchable == true }.map(\.name)
            guard !columns.isEmpty else { continue }
            let name = EntityDescription.searchTableName(table: entity.name)
            guard let index = remaining.removeValue(forKey: name) else {
                differences.append("\(entity.name): full-text index '\(name)' is missing")
                continue
            }
            if index.columns != columns {
                differences.append(
                    "\(entity.name): full-text index '\(name)' covers \(index.columns.joined(separator: ", ")), the model says \(columns.joined(separator: ", "))")
            }
            let expected = ["delete", "insert", "update"].map { "\(name):\($0)" }
            for missing in expected where !index.triggers.contains(missing) {
                differences.append("\(entity.name): trigger '\(missing)' of the full-text index is missing")
            }
        }
        for name in remaining.keys.sorted() {
            differences.append("\(name): the full-text index is not in the model")
        }
        return differences
    }

    private static func columnDifferences(_ entity: EntitySchema, _ table: Table) -> [String] {
        var differences: [String] = []
        var columns = Dictionary(table.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if let key = columns.removeValue(forKey: Model.primaryKeyColumn) {
            if !key.isPrimaryKey || key.type.uppercased() != "INTEGER" {
                differences.append("\(entity.name): column '\(Model.primaryKeyColumn)' is not its INTEGER PRIMARY KEY")
            }
        } else {
            differences.append("\(entity.name): column '\(Model.primaryKeyColumn)' is missing")
        }
        // The version column belongs to the library; a store written before
        // it existed lacks it until a writable stack opens it.
        if let version = columns.removeValue(forKey: Model.versionColumn), version.type.uppercased() != "INTEGER" || version.isNullable {
            differences.append("\(entity.name): column '\(Model.versionColumn)' is not an INTEGER NOT NULL row version")
        }
        for attribute in entity.attributes {
            guard let column = columns.removeValue(forKey: attribute.name) else {
                differences.append("\(entity.name): column '\(attribute.name)' is missing")
                continue
            }
            let expectedType = attribute.type.columnType
            if column.type.uppercased() != expectedType {
                differences.append(
                    "\(entity.name): column '\(attribute.name)' is \(column.type.isEmpty ? "untyped" : column.type), the model says \(expectedType)")
            }
            if column.isNullable != attribute.isOptional {
                differences.append(
                    "\(entity.name): column '\(attribute.name)' \(column.isNullable ? "allows" : "refuses") NULL, "
                        + "the model says \(attribute.isOptional ? "optional" : "non-optional")")
            }
        }
        for name in columns.keys.sorted() {
            differences.append("\(entity.name): column '\(name)' is not in the model")
        }
        return differences
    }
}
