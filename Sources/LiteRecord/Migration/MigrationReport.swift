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
        public let from: String
        public let to: String
        public var description: String { "\(from) → \(to)" }
    }

    /// The fingerprint of the model the store was written with.
    public internal(set) var fromFingerprint: String
    /// The fingerprint of the model the store now holds.
    public internal(set) var toFingerprint: String
    /// The model differences the migration applied, e.g. `Person: attribute 'email' added`.
    public internal(set) var changes: [String] = []
    public internal(set) var createdTables: [String] = []
    public internal(set) var droppedTables: [String] = []
    public internal(set) var renamedTables: [TableRename] = []
    /// Tables changed in place with `ALTER TABLE … ADD/DROP/RENAME COLUMN`.
    public internal(set) var alteredTables: [String] = []
    /// Tables rebuilt by copying their rows into a new table.
    public internal(set) var rebuiltTables: [String] = []
    public internal(set) var createdIndexes: [String] = []
    public internal(set) var droppedIndexes: [String] = []
    /// The ``MigrationPlan`` steps that ran, in order.
    public internal(set) var customSteps: [String] = []
    /// Every action in the order it ran: the same lines that were logged.
    public internal(set) var actions: [String] = []
    /// Where the copy taken before migrating a file store was written. It is
    /// removed once the migration commits, so after a success this names a
    /// file that no longer exists.
    public internal(set) var backupURL: URL?

    init(from: String, to: String) {
        fromFingerprint = from
        toFingerprint = to
    }

    /// Whether the migration changed nothing but ran custom steps (or nothing).
    public var isSchemaUnchanged: Bool {
        createdTables.isEmpty && droppedTables.isEmpty && renamedTables.isEmpty && alteredTables.isEmpty
            && rebuiltTables.isEmpty && createdIndexes.isEmpty && droppedIndexes.isEmpty
    }

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
        add("created index", createdIndexes)
        add("dropped index", droppedIndexes)
        add("ran step", customSteps)
        let summary = parts.isEmpty ? "nothing to change" : parts.joined(separator: "; ")
        return "migrated model \(fromFingerprint) → \(toFingerprint): \(summary)"
    }

    mutating func note(_ list: WritableKeyPath<MigrationReport, [String]>, _ name: String) {
        if !self[keyPath: list].contains(name) { self[keyPath: list].append(name) }
    }
}
