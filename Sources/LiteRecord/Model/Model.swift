/// The model of a store: the entities given to setup, validated and indexed.
///
/// ```swift
/// let model = try Model(entities: [Person.self, Note.self])
/// print(model.fingerprint)
/// ```
public struct Model: Sendable {
    /// Column names the library uses itself; no attribute may take them.
    public static let reservedColumnNames: Set<String> = ReservedNames.columns
    /// The primary-key column of every entity table.
    static let primaryKeyColumn = SQLIdentifier.rowIDColumn
    /// The version column of every entity table, for optimistic locking: ``initialVersion`` for
    /// a new row, one more at each update a save makes. Core Data's name for
    /// the same thing.
    static let versionColumn = SQLIdentifier.versionColumn
    /// The version of a new row. Not 1: SQLite stores 0 and 1 in no bytes
    /// and 2 in one (https://sqlite.org/fileformat2.html#record_format), so a
    /// row starting at 1 would grow at its first update, and a row that
    /// changes size cannot be overwritten in place — a third more work per
    /// `UPDATE`. From 2 on, a row keeps its size for 125 updates.
    static let initialVersion: Int64 = 2
    /// The table in which a store keeps its model and migration history.
    static let metadataTable = "literecord_metadata"
    /// The one-row flag table a save sets, inside its transaction only,
    /// while it indexes its inserted rows itself instead of through the
    /// full-text insert triggers (see ``SaveTransaction``). A store has it
    /// once any entity has a full-text index; it is empty outside a save.
    static let searchDeferralTable = "literecord_search_deferral"

    /// The entities, in the order they were given, each once.
    public let entities: [EntityDescription]
    /// Whether any entity has a relationship.
    let hasRelationships: Bool
    /// Whether any entity has a full-text index: a save of a model without
    /// one skips looking for searchable rows.
    let hasSearchableEntities: Bool
    /// Whether any to-many has a `minimumCount` or `maximumCount`: only then
    /// do relationship changes note the lists whose counts a save checks.
    let hasCountedToManys: Bool
    /// Translated predicates, kept by shape (shared by the model's copies).
    let predicateCache = PredicateCache()
    private let indexByType: [ObjectIdentifier: Int]
    private let indexByName: [String: Int]
    let schema: ModelSchema

    /// Builds and validates the model of `types`.
    ///
    /// - Throws: ``LiteRecordError`` of kind `.invalidModel` for an empty list,
    ///   duplicate entity or attribute names, or reserved names.
    public init(entities types: [any Entity.Type]) throws {
        guard !types.isEmpty else {
            throw LiteRecordError(.invalidModel, "the model has no entities: pass the entity types to setup, e.g. `entities: [Note.self]`")
        }
        var entities: [EntityDescription] = []
        var byType: [ObjectIdentifier: Int] = [:]
        var byName: [String: Int] = [:]
        // Table names ignore case in SQLite: `Note` and `note` are one table.
        var byFoldedName: [String: String] = [:]
        for type in types {
            if byType[ObjectIdentifier(type)] != nil { continue }
            try Self.refuseSuperclass(of: type)
            let entity = EntityDescription(type: type)
            try Self.validate(entity)
            if byName[entity.name] != nil {
                throw LiteRecordError(.invalidModel, "two entity types are both named '\(entity.name)'; give one a different `@Entity(name:)`")
            }
            if let other = byFoldedName.updateValue(entity.name, forKey: entity.name.lowercased()) {
                throw LiteRecordError(
                    .invalidModel,
                    "entity names '\(other)' and '\(entity.name)' differ only in case, and SQLite's table names ignore case; give one a different `@Entity(name:)`")
            }
            byType[ObjectIdentifier(type)] = entities.count
            byName[entity.name] = entities.count
            entities.append(entity)
        }
        try Self.refuseSearchIndexCollisions(entities)
        try Self.resolveRelationships(&entities, byType: byType)
        self.entities = entities
        self.indexByType = byType
        self.indexByName = byName
        self.hasRelationships = entities.contains { $0.hasRelationships }
        self.hasSearchableEntities = entities.contains { $0.isSearchable }
        self.hasCountedToManys = entities.contains { $0.relationships.contains(where: \.isCounted) }
        self.schema = ModelSchema(entities: entities.map(\.schema))
    }

    /// The empty model of a placeholder store.
    init() {
        hasRelationships = false
        hasSearchableEntities = false
        hasCountedToManys = false
        entities = []
        indexByType = [:]
        indexByName = [:]
        schema = ModelSchema(entities: [])
    }

    /// A stable hash of the model's names, types, optionality and indexes.
    public var fingerprint: String { schema.fingerprint }

    /// The entity that `type` declares; `nil` when it is not in the model.
    public func entity(for type: any Entity.Type) -> EntityDescription? {
        indexByType[ObjectIdentifier(type)].map { entities[$0] }
    }

    /// The relationship at `index` of the entity of `type`, without copying
    /// the entity's description; `.none` when the type is not in the model.
    func relationship(of type: any Entity.Type, at index: Int) -> ResolvedRelationship?? {
        guard let position = indexByType[ObjectIdentifier(type)] else { return .none }
        let relationships = entities[position].relationships
        return .some(relationships.indices.contains(index) ? relationships[index] : nil)
    }

    /// The entity called `name`; `nil` when there is none.
    public func entity(named name: String) -> EntityDescription? {
        indexByName[name].map { entities[$0] }
    }

    /// `relationship`'s inverse, on its destination; `nil` without one. Its
    /// delete rule is what deleting a record of the destination applies to
    /// the objects whose `relationship` names it.
    func inverse(of relationship: ResolvedRelationship) -> ResolvedRelationship? {
        guard let inverse = relationship.inverseIndex, let destination = entity(named: relationship.destinationName) else { return nil }
        return destination.relationships[inverse]
    }

    /// FTS5 keeps an index `X` in shadow tables named `X_config`,
    /// `X_content`, `X_data`, `X_docsize` and `X_idx`
    /// (https://sqlite.org/fts5.html#the_fts5_shadow_tables): the indexes of
    /// two searchable entities `Note` and `Note_config` would both be named
    /// `literecord_search:Note_config`, and creating the second fails or
    /// corrupts the first.
    private static func refuseSearchIndexCollisions(_ entities: [EntityDescription]) throws(LiteRecordError) {
        let searchable = entities.filter(\.isSearchable)
        var owners: [String: String] = [:]
        for entity in searchable { owners[entity.searchTableName.lowercased()] = entity.name }
        for entity in searchable {
            for suffix in ["_config", "_content", "_data", "_docsize", "_idx"] {
                guard let other = owners[(entity.searchTableName + suffix).lowercased()] else { continue }
                throw LiteRecordError(
                    .invalidModel,
                    "searchable entities '\(entity.name)' and '\(other)' cannot both be in one model: SQLite's full-text index of '\(entity.name)' keeps a table named like the index of '\(other)' (\(entity.searchTableName + suffix)); rename one with @Entity(name:), or make one not searchable"
                )
            }
        }
    }

    /// Entity inheritance is not supported: a superclass's stored
    /// properties are no attributes (`@Entity` sees only the class's own
    /// declarations), so their values would silently never be stored.
    /// Whether a superclass stores anything cannot be told from its type, so
    /// every superclass is refused.
    private static func refuseSuperclass(of type: any Entity.Type) throws(LiteRecordError) {
        guard let superclass = _getSuperclass(type) else { return }
        throw LiteRecordError(
            .invalidModel,
            "entity \(type.entityName) inherits from the class \(String(reflecting: superclass)); LiteRecord does not support entity inheritance, and a superclass's stored properties would never be stored. Declare the properties in \(type.entityName) itself (a protocol with default implementations can share behaviour)"
        )
    }

    // Names are checked for a NUL byte in their UTF-8 (what SQLite sees):
    // Foundation's `contains("\0")`, the same literal search, went through
    // `range(of:)` and cost opening a model of ten entities 0.25M instructions.
    private static func validate(_ entity: EntityDescription) throws(LiteRecordError) {
        let lowered = entity.name.lowercased()
        if entity.name.isEmpty || entity.name.utf8.contains(0) {
            throw LiteRecordError(.invalidModel, "entity name '\(entity.name)' is empty or contains a NUL byte")
        }
        if lowered.hasPrefix("sqlite_") || lowered.hasPrefix("literecord_") {
            throw LiteRecordError(.invalidModel, "entity name '\(entity.name)' is reserved: names starting with 'sqlite_' or 'literecord_' belong to SQLite and LiteRecord")
        }
        var seen = Set<String>()
        for relationship in entity.relationships {
            if relationship.name.isEmpty || relationship.name.utf8.contains(0) {
                throw LiteRecordError(.invalidModel, "\(entity.name): relationship name '\(relationship.name)' is empty or contains a NUL byte")
            }
            if reservedColumnNames.contains(relationship.name.lowercased()) {
                throw LiteRecordError(
                    .invalidModel, "\(entity.name): relationship name '\(relationship.name)' is reserved by LiteRecord (\(reservedColumnNames.sorted().joined(separator: ", ")))")
            }
        }
        for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) where !name.isEmpty {
            if !seen.insert(name.lowercased()).inserted {
                throw LiteRecordError(.invalidModel, "\(entity.name): two properties are named '\(name)' (column names ignore case)")
            }
        }
        seen.removeAll()
        for attribute in entity.attributes {
            if attribute.name.isEmpty || attribute.name.utf8.contains(0) {
                throw LiteRecordError(.invalidModel, "\(entity.name): attribute name '\(attribute.name)' is empty or contains a NUL byte")
            }
            if reservedColumnNames.contains(attribute.name.lowercased()) {
                throw LiteRecordError(
                    .invalidModel, "\(entity.name): attribute name '\(attribute.name)' is reserved by LiteRecord (\(reservedColumnNames.sorted().joined(separator: ", ")))")
            }
            // SQLite compares column names case-insensitively.
            if !seen.insert(attribute.name.lowercased()).inserted {
                throw LiteRecordError(.invalidModel, "\(entity.name): two attributes are named '\(attribute.name)' (column names ignore case)")
            }
        }
        for attribute in entity.attributes where attribute.isSearchable {
            guard attribute.type == .string else {
                throw LiteRecordError(
                    .invalidModel,
                    "\(entity.name): attribute '\(attribute.name)' is .searchable but stores \(attribute.type), not text; only String and String? attributes can be searched")
            }
            // FTS5 gives these names to hidden columns of every index.
            if ["rank", entity.searchTableName.lowercased()].contains(attribute.name.lowercased()) {
                throw LiteRecordError(
                    .invalidModel,
                    "\(entity.name): attribute name '\(attribute.name)' cannot be .searchable: SQLite's full-text index reserves it; rename the attribute (keeping its column with @Attribute(originalName:) is not enough)"
                )
            }
            if let weight = attribute.searchWeight, !(weight.isFinite && weight > 0) {
                throw LiteRecordError(.invalidModel, "\(entity.name): attribute '\(attribute.name)' has search weight \(weight); a weight must be a positive number")
            }
        }
    }
}
