import Foundation

/// A column as a migration sees it: enough to write its definition and to
/// decide whether SQLite can change it in place.
struct ColumnSpec: Equatable {
    var name: String
    /// `nil` declares the column without a type, so it has no affinity and keeps
    /// whatever values are written to it unchanged: how a column whose type
    /// change is left to a custom step looks while the steps run
    /// (https://sqlite.org/datatype3.html#affinity_name_examples).
    var type: AttributeType?
    var isOptional: Bool
    /// Whether LiteRecord keeps an index (unique or not) on the column.
    var hasIndex: Bool
    /// For a to-one's column: the table it references.
    var references: String?

    init(name: String, type: AttributeType?, isOptional: Bool, hasIndex: Bool, references: String? = nil) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.hasIndex = hasIndex
        self.references = references
    }

    /// A to-one's foreign-key column, declared as ``EntityDescription/foreignKeyDefinition(_:)`` does.
    static func foreignKey(_ name: String, references table: String) -> ColumnSpec {
        ColumnSpec(name: name, type: .int64, isOptional: true, hasIndex: true, references: table)
    }

    init(_ attribute: AttributeSchema) {
        self.init(
            name: attribute.name, type: attribute.type, isOptional: attribute.isOptional,
            hasIndex: attribute.isUnique || attribute.isIndexed)
    }

    var definition: String {
        var text = SQLIdentifier.quote(name)
        if let type { text += " " + type.columnType }
        if !isOptional { text += " NOT NULL" }
        if let references {
            text += " REFERENCES \(SQLIdentifier(references))(\(SQLIdentifier.rowID)) DEFERRABLE INITIALLY DEFERRED"
        }
        return text
    }

    /// Same declaration (what `CREATE TABLE` says), ignoring indexes.
    func isDeclaredLike(_ other: ColumnSpec) -> Bool {
        type?.columnType == other.type?.columnType && isOptional == other.isOptional && references == other.references
    }
}

/// Where a column of the migrated table takes its values from.
enum ColumnSource: Equatable {
    /// The current table's column `name`, converted with `CAST` when `cast` is
    /// set, with `NULL`s replaced by `fallback` when that is set.
    case column(String, cast: AttributeType?, fallback: SQLValue?)
    /// The same value in every row (`NULL` included).
    case value(SQLValue)

    static func copy(_ name: String) -> ColumnSource { .column(name, cast: nil, fallback: nil) }
}

/// One column of the migrated table.
struct TargetColumn: Equatable {
    var spec: ColumnSpec
    var source: ColumnSource
}

/// How one entity table goes from its current columns to its target columns:
/// either a few `ALTER TABLE` statements or a full rebuild.
struct TableTransform: Equatable {
    var table: String
    var current: [ColumnSpec]
    var target: [TargetColumn]

    /// Whether the table already has exactly the target's columns.
    var isIdentity: Bool {
        current.count == target.count
            && zip(current, target).allSatisfy { current, target in
                target.source == .copy(current.name) && target.spec.name == current.name
                    && target.spec.isDeclaredLike(current)
            }
    }

    enum Alteration: Equatable {
        case drop(String)
        case rename(from: String, to: String)
        case add(ColumnSpec, defaultLiteral: String?)
    }

    /// The `ALTER TABLE` statements that reach the target, or `nil` when only a
    /// rebuild can: SQLite alters a column in place only to add, drop or rename
    /// it (https://sqlite.org/lang_altertable.html).
    var alterations: [Alteration]? {
        var used = Set<String>()
        var renames: [Alteration] = []
        var adds: [Alteration] = []
        for column in target {
            switch column.source {
            case .column(let name, let cast, let fallback):
                guard cast == nil, fallback == nil,
                    let existing = current.first(where: { $0.name == name }),
                    existing.isDeclaredLike(column.spec)
                else { return nil }
                used.insert(name.lowercased())
                if name != column.spec.name {
                    // RENAME COLUMN sees a case-only rename as a clash with itself.
                    if name.lowercased() == column.spec.name.lowercased() { return nil }
                    renames.append(.rename(from: name, to: column.spec.name))
                }
            case .value(let value):
                if value.isNull {
                    guard column.spec.isOptional else { return nil }
                    adds.append(.add(column.spec, defaultLiteral: nil))
                } else {
                    // ADD COLUMN takes only a literal default; values that have none
                    // (a NUL byte in text, non-finite reals) go through a rebuild,
                    // where they are bound.
                    guard let literal = value.ddlLiteral else { return nil }
                    adds.append(.add(column.spec, defaultLiteral: literal))
                }
            }
        }
        let dropped = current.filter { !used.contains($0.name.lowercased()) }
        // A rename onto the name of a column that stays (two attributes
        // swapping names) would clash halfway: only a rebuild moves both.
        let staying = Set(current.map { $0.name.lowercased() }).intersection(used)
        let clashes = renames.contains { alteration in
            guard case .rename(_, let to) = alteration else { return false }
            return staying.contains(to.lowercased())
        }
        if clashes { return nil }
        // A removed column that was unique or indexed goes through a rebuild
        // rather than DROP COLUMN, which refuses indexed columns
        // (Docs/Migration.md's table of inferred changes).
        if dropped.contains(where: \.hasIndex) { return nil }
        // Drops first, so that a rename or an added column may take a name that a
        // dropped column differs from only by case.
        return dropped.map { .drop($0.name) } + renames + adds
    }

    func sql(for alteration: Alteration) -> String {
        let table = SQLIdentifier.quote(table)
        switch alteration {
        case .drop(let name):
            return "ALTER TABLE \(table) DROP COLUMN \(SQLIdentifier(name))"
        case .rename(let from, let to):
            return "ALTER TABLE \(table) RENAME COLUMN \(SQLIdentifier(from)) TO \(SQLIdentifier(to))"
        case .add(let spec, let literal):
            return "ALTER TABLE \(table) ADD COLUMN \(spec.definition)" + (literal.map { " DEFAULT \($0)" } ?? "")
        }
    }

    func describe(_ alteration: Alteration) -> String {
        switch alteration {
        case .drop(let name): "dropped column \(table).\(name)"
        case .rename(let from, let to): "renamed column \(table).\(from) to \(to)"
        case .add(let spec, let literal):
            "added column \(table).\(spec.name)" + (literal == nil ? "" : " with its default value")
        }
    }

    /// The statements of a rebuild, following SQLite's recipe for schema
    /// changes ALTER TABLE cannot make
    /// (https://sqlite.org/lang_altertable.html#otheralter): create the new
    /// table, copy the rows (keeping `Z_PK`, so record IDs survive), drop the
    /// old table (and with it its indexes), rename the new one. Indexes are
    /// created afterwards by the migrator.
    func rebuildStatements() -> [(sql: String, arguments: [SQLValue])] {
        let temporary = SQLIdentifier.quote("literecord_rebuild_" + table)
        let key = SQLIdentifier.rowID.quoted
        let version = SQLIdentifier.version.quoted
        let definitions = ["\(key) INTEGER PRIMARY KEY", EntityDescription.versionColumnDefinition] + target.map(\.spec.definition)
        var arguments: [SQLValue] = []
        let expressions = target.map { column -> String in
            switch column.source {
            case .column(let name, let cast, let fallback):
                var expression = SQLIdentifier.quote(name)
                if let cast { expression = "CAST(\(expression) AS \(cast.columnType))" }
                if let fallback {
                    expression = "COALESCE(\(expression), ?)"
                    arguments.append(fallback)
                }
                return expression
            case .value(let value):
                arguments.append(value)
                return "?"
            }
        }
        // Row versions are copied too: a context that read a row before the
        // migration must still see it as the same version.
        let columns = ([key, version] + target.map { SQLIdentifier.quote($0.spec.name) }).joined(separator: ", ")
        return [
            ("CREATE TABLE \(temporary) (\(definitions.joined(separator: ", ")))", []),
            ("INSERT INTO \(temporary) (\(columns)) SELECT \(([key, version] + expressions).joined(separator: ", ")) FROM \(SQLIdentifier(table))", arguments),
            ("DROP TABLE \(SQLIdentifier(table))", []),
            ("ALTER TABLE \(temporary) RENAME TO \(SQLIdentifier(table))", []),
        ]
    }
}

extension SQLValue {
    /// The value as a plain SQL literal, for the `DEFAULT` of `ADD COLUMN`,
    /// which accepts no bound parameter and no expression
    /// (https://sqlite.org/lang_altertable.html#altertabaddcol); `nil` when
    /// there is no such literal.
    var ddlLiteral: String? {
        switch self {
        case .null: return "NULL"
        case .integer(let value):
            // -9223372036854775808 would parse as a negated real.
            return value == .min ? nil : String(value)
        case .real(let value):
            guard value.isFinite else { return nil }
            // Swift prints the shortest text that reads back as the same Double.
            return "\(value)"
        case .text(let text):
            guard !text.utf8.contains(0) else { return nil }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob:
            return sqlLiteral
        }
    }
}
