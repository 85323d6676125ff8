/// An entity of the model: its name (also its table's name) and its attributes.
public struct EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name, which is also its table's name.
    public let name: String
    /// The entity's name in the previous model version, for a rename.
    public let originalName: String?
    /// The stored properties, in the order of ``Entity/attributes``: attribute
    /// `i` is column `i` of a ``Row``.
    public let attributes: [AttributeDescription]
    /// The Swift type that declares the entity.
    public let type: any Entity.Type
    /// The relationships, resolved by the model (inverses, storage).
    var relationships: [ResolvedRelationship]
    /// The indexes (in ``relationships``) of the to-ones, in the order of their
    /// columns, which follow the attributes' columns.
    let toOneIndexes: [Int]
    /// Whether the entity has relationships: everything relationship-related
    /// is skipped for entities without.
    var hasRelationships: Bool { !relationships.isEmpty }

    /// `SELECT "Z_PK", <attributes>, <to-ones>, "Z_OPT" FROM <table>`, built
    /// once, each attribute aliased to its own name (see `init`). The version
    /// comes last, so that attribute `i` is column `i + 1`; it is column
    /// ``versionColumn``.
    let selectSQL: String
    /// The column list of ``selectSQL``, each column qualified by the table
    /// name, for queries that join another table.
    let qualifiedSelectList: String
    /// `INSERT INTO <table> (<attributes>, <to-ones>, "Z_PK") VALUES (?, …)`,
    /// built once. The record id comes from a ``RecordIDAllocator``, which
    /// names it, or leaves it to SQLite (``insertPickingIDSQL``) only where
    /// SQLite picks the same: a deleted highest row's id never comes back.
    let insertSQL: String
    /// ``insertSQL`` without the record id, for the rows whose id SQLite
    /// picks as LiteRecord would (``RecordIDAllocator``): attribute `i` is
    /// parameter `i + 1` in both.
    let insertPickingIDSQL: String
    /// `DELETE FROM <table> WHERE "Z_PK" = ? AND "Z_OPT" = ?`, built once.
    let deleteSQL: String
    let tracksChanges: Bool
    /// The indexes of the `String` attributes whose stored text is normalized
    /// to NFC: the unique, indexed and searchable ones. Their index compares
    /// bytes, so storing one form of each canonically equivalent text is what
    /// lets an indexed lookup agree with Swift's `==` (and a search for
    /// "café" find it typed either way).
    let canonicalTextAttributes: [Int]
    /// The attributes in the entity's full-text index (`.searchable`).
    let searchColumns: AttributeMask

    init(type: any Entity.Type) {
        self.type = type
        self.name = type.entityName
        self.originalName = type.entityOriginalName
        self.attributes = type.attributes
        self.tracksChanges = type.tracksChanges
        let attributes = type.attributes
        self.canonicalTextAttributes = attributes.indices.filter { attributes[$0].storesCanonicalText }
        self.searchColumns = AttributeMask(attributes.indices.filter { attributes[$0].isSearchable })
        let descriptions = type.relationships
        var relationships = descriptions.indices.map {
            ResolvedRelationship(descriptions[$0], index: $0, entityName: type.entityName)
        }
        let toOnes = relationships.indices.filter { !relationships[$0].isToMany }
        for (position, index) in toOnes.enumerated() {
            relationships[index].columnIndex = attributes.count + position
            relationships[index].storage = .foreignKey(column: relationships[index].name)
        }
        self.relationships = relationships
        self.toOneIndexes = toOnes
        let table = SQLIdentifier(type.entityName)
        let columns = attributes.map { SQLIdentifier($0.name) } + toOnes.map { SQLIdentifier(descriptions[$0].name) }
        let selected = [SQLIdentifier.rowID] + columns + [.version]
        // Each attribute's column is named by an alias, its own name: an
        // `ORDER BY "name" COLLATE …` then resolves to that result column
        // (https://sqlite.org/lang_select.html#the_order_by_clause), so a
        // sort keeps the column once in its records instead of twice, the
        // key and the value. Without the alias SQLite compares the collated
        // term with the bare column, finds them different and copies it.
        // The alias names the same column, so no query's meaning changes.
        // Written out rather than as `SelectStatement`'s list of strings:
        // every open renders every entity's list, and the array of parts
        // cost opening the `launch` benchmark's store 40,000 instructions
        // more (9.90× → 9.94× raw C).
        var list = SQLIdentifier.rowID.quoted
        for (position, column) in columns.enumerated() {
            list += ", " + column.quoted
            if position < attributes.count { list += " AS " + column.quoted }
        }
        list += ", " + SQLIdentifier.version.quoted
        selectSQL = "SELECT " + list + " FROM " + table.quoted
        qualifiedSelectList = joinedText(selected.map { $0.qualified(by: table.quoted) })
        // The record id goes last, so that attribute `i` stays parameter `i + 1`.
        insertSQL = InsertStatement(into: table, columns: columns + [.rowID]).sql
        insertPickingIDSQL = InsertStatement(into: table, columns: columns).sql
        deleteSQL = DeleteStatement(from: table, where: .rowIDAndVersion).sql
    }

    /// The position of the version in a row of ``selectSQL``.
    var versionColumn: Int32 { Int32(1 + columnCount) }

    /// `UPDATE <table> SET <changed columns> WHERE "Z_PK" = ?`: writes columns
    /// of a row this save already wrote (or inserted), without a version check.
    func updateSQL(_ indexes: [Int]) -> String {
        UpdateStatement(table, set: indexes.map { .parameter(SQLIdentifier(columnName($0))) }, where: .rowID).sql
    }

    /// `UPDATE <table> SET <changed columns>, "Z_OPT" = "Z_OPT" + 1 WHERE
    /// "Z_PK" = ? AND "Z_OPT" = ?`: a save's update, which changes no row when
    /// the row is no longer at the version the context read — the conflict
    /// check, at no extra statement.
    func versionedUpdateSQL(_ indexes: [Int]) -> String {
        let assignments = indexes.map { Assignment.parameter(SQLIdentifier(columnName($0))) } + [.nextVersion]
        return UpdateStatement(table, set: assignments, where: .rowIDAndVersion).sql
    }

    /// `DELETE FROM <table> WHERE "Z_OPT" = ? AND "Z_PK" IN (?, …)`, with
    /// `count` row-id parameters: deletes rows that are all at one version.
    /// SQLite finds each row by its key (a version test per row would need a
    /// row-value `IN`, which scans the table). A save prepares it for a few
    /// list lengths only (``SaveTransaction/rowIDListLengths``).
    func batchDeleteSQL(rowIDs count: Int) -> String {
        DeleteStatement(from: table, where: .equals(.version) && .column(.rowID, inParameters: count)).sql
    }

    /// The name of the entity's table: its ``name``.
    public var tableName: String { name }

    /// The number of stored columns besides the primary key: the attributes,
    /// then one per to-one relationship.
    var columnCount: Int { attributes.count + toOneIndexes.count }

    /// The name of the column at `index` (an attribute's, or a to-one's).
    func columnName(_ index: Int) -> String {
        index < attributes.count ? attributes[index].name : relationships[toOneIndexes[index - attributes.count]].name
    }

    /// The to-one relationship stored in the column at `index`.
    func toOne(atColumn index: Int) -> ResolvedRelationship {
        relationships[toOneIndexes[index - attributes.count]]
    }

    /// The relationship called `name`, if there is one.
    func relationship(named name: String) -> ResolvedRelationship? {
        relationships.first { $0.name == name }
    }

    public var description: String {
        "\(name)(\(attributes.map(\.description).joined(separator: ", ")))"
    }

    /// The index of the attribute called `name`, if there is one.
    func attributeIndex(named name: String) -> Int? {
        attributes.firstIndex { $0.name == name }
    }

    var schema: EntitySchema {
        EntitySchema(
            name: name, originalName: originalName, attributes: attributes.map(\.schema),
            relationships: relationships.isEmpty ? nil : relationships.map(\.schema))
    }
}

extension AttributeDescription {
    /// Whether the attribute's text is stored in NFC (see
    /// ``EntityDescription/canonicalTextAttributes``).
    var storesCanonicalText: Bool { type == .string && (isUnique || isIndexed || isSearchable) }
}

extension SQLValue {
    /// Text in Unicode Normalization Form C; any other value unchanged.
    /// Text that ``SQLValue/isNFCByQuickCheck(_:)`` clears is returned as it is.
    var canonicalText: SQLValue {
        guard case .text(let text) = self, let normalized = Self.normalized(text) else { return self }
        return .text(normalized)
    }

    /// `text` in NFC, or `nil` when ``isNFCByQuickCheck(_:)`` shows it is in
    /// NFC already (so it is stored as it is).
    static func normalized(_ text: String) -> String? {
        isNFCByQuickCheck(text) ? nil : text.precomposedStringWithCanonicalMapping
    }

    /// Whether `text` is in NFC because every one of its scalars is below
    /// U+0300: Unicode gives each of them `NFC_Quick_Check=Yes` and
    /// combining class 0 (the first `Maybe` is U+0300, the first combining
    /// mark), so normalization cannot change such text. In UTF-8 such a
    /// scalar is one byte, or two with a lead byte of at most 0xCB; every
    /// byte from 0xCC on leads a scalar from U+0300 on. `false` means only
    /// "maybe not": the caller normalizes. Most text an app stores (Latin
    /// with accents, precomposed) passes; `NormalizationQuickCheckTests`
    /// compares the answer with Foundation's normalization for every scalar
    /// below U+0400 and for random text.
    static func isNFCByQuickCheck(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 >= 0xCC }
        } ?? !utf8.contains { $0 >= 0xCC }
    }
}
