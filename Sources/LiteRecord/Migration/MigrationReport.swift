public import Foundation

/// What a migration did to a store: the tables it created, altered in place,
/// rebuilt, renamed and dropped, the indexes it changed and the custom steps it
/// ran. Every action is also logged at `.info` as it happens.
///
/// ```swift
/// let stack = try RecordStack(storeAt: url, entities: [Person.self], migration: .automatic)
/// if let report = stack.lastMigrationReport {
///     print(report)   // "migrated … : rebuilt Person; created index …"
/// }
/// ```
public struct MigrationReport: Sendable, Equatable, CustomStringConvertible {
    /// An entity table that was renamed (`@Entity(originalName:)`).
    public struct TableRename: Sendable, Equatable, CustomStringConvertible {
        /// The table's name before the migration: the entity's original name.
        public let from: String
        /// The table's name after the migration.
        public let to: String
        public var description: String { "\(from) → \(to)" }
    }

    /// The fingerprint of the model the store was written with.
    public internal(set) var fromFingerprint: String
    /// The fingerprint of the model the store now holds.
    public internal(set) var toFingerprint: String
    /// The model differences the migration applied, e.g. `Person: attribute 'email' added`.
    public internal(set) var changes: [String] = []
    /// Tables created for entities the store did not have.
    public internal(set) var createdTables: [String] = []
    /// Tables of removed entities that were dropped: only what held no data or
    /// what the ``MigrationPlan`` declared (``MigrationPlan/removeEntity(_:)``).
    public internal(set) var droppedTables: [String] = []
    /// Tables renamed for entities that name their previous name.
    public internal(set) var renamedTables: [TableRename] = []
    /// Tables changed in place with `ALTER TABLE … ADD/DROP/RENAME COLUMN`.
    public internal(set) var alteredTables: [String] = []
    /// Tables rebuilt by copying their rows into a new table.
    public internal(set) var rebuiltTables: [String] = []
    /// Columns of removed attributes that were dropped, as `Entity.attribute`
    /// (the entity under its new name), e.g. `["Person.nick"]`. Like
    /// ``droppedTables``, only what held no data or what the ``MigrationPlan``
    /// declared (``MigrationPlan/removeAttribute(_:of:)``).
    public internal(set) var droppedColumns: [String] = []
    /// Indexes created for `.unique` and `.indexed` attributes.
    public internal(set) var createdIndexes: [String] = []
    /// Indexes dropped because the model no longer asks for them.
    public internal(set) var droppedIndexes: [String] = []
    /// Full-text indexes (`literecord_search:<Entity>`) created for entities
    /// with `.searchable` attributes and filled from the stored records: when
    /// an attribute became searchable, and again whenever the table or its
    /// searchable columns changed (a renamed attribute or entity, a rebuilt
    /// table), in which case the index is also in ``droppedSearchIndexes``.
    ///
    /// ```swift
    /// print(stack.lastMigrationReport?.createdSearchIndexes ?? [])   // ["literecord_search:Article"]
    /// ```
    public internal(set) var createdSearchIndexes: [String] = []
    /// Full-text indexes dropped: no attribute of the entity is searchable
    /// any more, the entity was removed, or the index is built again (see
    /// ``createdSearchIndexes``).
    public internal(set) var droppedSearchIndexes: [String] = []
    /// The ``MigrationPlan`` steps that ran, in order.
    public internal(set) var customSteps: [String] = []
    /// Every action in the order it ran: the same lines that were logged.
    public internal(set) var actions: [String] = []
    /// Where the copy taken before migrating a file store was written. Unless
    /// the migration removed a table or column, it is removed once the
    /// migration commits, so after such a success this names a file that no
    /// longer exists; see ``keptCopyURL``.
    public internal(set) var backupURL: URL?
    /// The copy of the store as it was before this migration, kept because the
    /// migration removed tables or columns (``droppedTables``,
    /// ``droppedColumns``): `<store>.pre-migration-<UTC timestamp>` next to the
    /// store, e.g. `Notes.sqlite.pre-migration-20261122T212115Z`. `nil` when
    /// nothing was removed (or for an in-memory store).
    ///
    /// To go back, close every stack on the store, move the store and its
    /// `-wal`/`-shm` files away, and copy this file to the store's path; it
    /// holds the old model, so open it with that model's entities. LiteRecord
    /// keeps the newest ``keptCopyLimit`` copies of a store and deletes older
    /// ones when it keeps a new one; a copy a failed or interrupted migration
    /// left under its fingerprint name counts too, as old as its file.
    ///
    /// ```swift
    /// if let copy = stack.lastMigrationReport?.keptCopyURL { print("old data kept at \(copy.path)") }
    /// ```
    public internal(set) var keptCopyURL: URL?
    /// Older copies of the store deleted when this one was kept (kept ones and
    /// ones left under their fingerprint name), so that no more than
    /// ``keptCopyLimit`` pile up next to the store.
    public internal(set) var deletedCopies: [URL] = []

    /// How many pre-migration copies of a store LiteRecord keeps (see
    /// ``keptCopyURL``): 3.
    public static let keptCopyLimit = 3

    init(from: String, to: String) {
        fromFingerprint = from
        toFingerprint = to
    }

    /// Whether the migration changed nothing but ran custom steps (or nothing).
    public var isSchemaUnchanged: Bool {
        createdTables.isEmpty && droppedTables.isEmpty && renamedTables.isEmpty && alteredTables.isEmpty
            && rebuiltTables.isEmpty && createdIndexes.isEmpty && droppedIndexes.isEmpty
            && createdSearchIndexes.isEmpty && droppedSearchIndexes.isEmpty
    }

    /// Whether the migration dropped a table or a column.
    var removedData: Bool { !droppedTables.isEmpty || !droppedColumns.isEmpty }

    public var description: String {
        var parts: [String] = []
        func add(_ label: String, _ items: [String]) {
            if !items.isEmpty { parts.append("\(label) \(items.joined(separator: ", "))") }
        }
        add("created", createdTables)
        add("renamed", renamedTables.map(\.description))
        add("altered", alteredTables)
        add("rebuilt", rebuiltTables)
        add("dropped", droppedTables)
        add("dropped column", droppedColumns)
        add("created index", createdIndexes)
        add("dropped index", droppedIndexes)
        add("created full-text index", createdSearchIndexes)
        add("dropped full-text index", droppedSearchIndexes)
        add("ran step", customSteps)
        if let keptCopyURL { parts.append("kept the old store at \(keptCopyURL.path)") }
        let summary = parts.isEmpty ? "nothing to change" : parts.joined(separator: "; ")
        return "migrated model \(fromFingerprint) → \(toFingerprint): \(summary)"
    }

    mutating func note(_ list: WritableKeyPath<MigrationReport, [String]>, _ name: String) {
        if !self[keyPath: list].contains(name) { self[keyPath: list].append(name) }
    }
}
