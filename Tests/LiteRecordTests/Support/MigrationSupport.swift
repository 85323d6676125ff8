import CSQLite
import Foundation
import Testing
@testable import LiteRecord

/// A hand-written entity whose values live in an array indexed like its
/// attributes, so that each model version of a migration test is a final
/// class of four lines: its attributes, `recordState`, `values` and
/// `init(values:)`; the entity name is the class name (nest versions in
/// enums to give two versions one name).
///
/// Reading a row checks every value against its attribute's type with the
/// library's own decoders, so a migrated store that holds a value the new
/// model cannot read fails the fetch.
protocol Versioned: Entity {
    var values: [SQLValue] { get set }
    init(values: [SQLValue])
}

extension Versioned {
    init(_ named: [String: SQLValue] = [:]) {
        self.init(values: Self.attributes.map { named[$0.name] ?? .null })
    }

    init(row: Row) throws {
        let attributes = Self.attributes
        let values = try attributes.indices.map { index in
            let value = row.value(at: index)
            try Self.check(value, attributes[index])
            return value
        }
        self.init(values: values)
    }

    subscript(name: String) -> SQLValue {
        get { Self.attributes.firstIndex { $0.name == name }.map { values[$0] } ?? .null }
        set {
            if let index = Self.attributes.firstIndex(where: { $0.name == name }) { values[index] = newValue }
        }
    }

    func encodeAttribute(at index: Int) throws -> SQLValue { values[index] }

    func decodeAttribute(at index: Int, from row: Row) throws {
        values[index] = row.value(at: index)
    }

    /// The fingerprint of a model made of this one entity.
    static var fingerprint: String {
        (try? Model(entities: [self]).fingerprint) ?? ""
    }

    /// Decodes `value` as the attribute's Swift type would.
    static func check(_ value: SQLValue, _ attribute: AttributeDescription) throws {
        if value.isNull {
            if attribute.isOptional { return }
            throw Unreadable(description: "\(entityName).\(attribute.name) is NULL but not optional")
        }
        switch attribute.type {
        case .bool: _ = try Bool(sqlValue: value)
        case .int, .int64: _ = try Int64(sqlValue: value)
        case .int8: _ = try Int8(sqlValue: value)
        case .int16: _ = try Int16(sqlValue: value)
        case .int32: _ = try Int32(sqlValue: value)
        case .uint8: _ = try UInt8(sqlValue: value)
        case .double, .float, .date:
            guard case .real = value else { throw Unreadable(description: "\(entityName).\(attribute.name) holds \(value), not REAL") }
        case .data:
            guard case .blob = value else { throw Unreadable(description: "\(entityName).\(attribute.name) holds \(value), not BLOB") }
        default:
            guard case .text = value else { throw Unreadable(description: "\(entityName).\(attribute.name) holds \(value), not TEXT") }
        }
    }
}

struct Unreadable: Error, CustomStringConvertible {
    let description: String
}

/// Attribute shorthand for version classes.
func attr(
    _ name: String, _ type: AttributeType, optional: Bool = false, _ options: AttributeDescription.Options = [],
    was originalName: String? = nil, default value: SQLValue? = nil
) -> AttributeDescription {
    AttributeDescription(
        name, type: type, isOptional: optional, options: options, originalName: originalName,
        defaultValue: value.map { value in { @Sendable in value } })
}

/// A unique temporary folder with a store path in it, removed by `cleanUp()`.
struct TemporaryStore {
    let folder: URL
    let url: URL

    init(_ name: String = "Store.sqlite") throws {
        folder = TemporaryDirectory.root
            .appendingPathComponent("literecord-migration-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent(name)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The store file's bytes (after every stack on it is closed, so the WAL
    /// has been checkpointed into it).
    func bytes() throws -> Data { try Data(contentsOf: url) }

    /// The files in the folder, sorted.
    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    /// Creates the store with `entities`, inserts `records`, and closes it.
    func write(_ entities: [any Entity.Type], _ records: [any Entity]) throws {
        let stack = try RecordStack(storeAt: url, entities: entities)
        let context = stack.newContext()
        for record in records { context.insert(record) }
        try context.save()
        try stack.close()
    }

    /// Opens the store with `entities`, migrating automatically (or with `plan`).
    func open(_ entities: [any Entity.Type], plan: MigrationPlan? = nil) throws -> RecordStack {
        try RecordStack(storeAt: url, entities: entities, migration: plan.map { .plan($0) } ?? .automatic)
    }

    /// A raw connection for looking at what SQLite holds.
    func inspect<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try Connection(path: url.path)
        defer { connection.close() }
        return try body(connection)
    }
}

extension Connection {
    /// `PRAGMA index_list(table)` as (name, unique) pairs.
    func indexList(_ table: String) throws -> [(name: String, unique: Bool)] {
        try rows("PRAGMA index_list(\(SQLIdentifier.quote(table)))").compactMap { row in
            guard row.count > 2, case .text(let name) = row[1], case .integer(let unique) = row[2] else { return nil }
            return (name, unique == 1)
        }
    }

    /// The columns of `table` (`PRAGMA table_info`) as (name, declared type, not null).
    func columns(_ table: String) throws -> [(name: String, type: String, notNull: Bool)] {
        try rows("PRAGMA table_info(\(SQLIdentifier.quote(table)))").compactMap { row in
            guard row.count > 3, case .text(let name) = row[1], case .text(let type) = row[2],
                case .integer(let notNull) = row[3]
            else { return nil }
            return (name, type, notNull == 1)
        }
    }

    /// The values of `columns` of every row of `table`, ordered by `Z_PK`.
    func values(_ table: String, _ columns: [String]) throws -> [[SQLValue]] {
        let list = (["Z_PK"] + columns).map(SQLIdentifier.quote).joined(separator: ", ")
        return try rows("SELECT \(list) FROM \(SQLIdentifier.quote(table)) ORDER BY Z_PK")
    }

    func tableExists(_ table: String) throws -> Bool {
        try tableNames().contains(table)
    }
}

extension RecordStack {
    /// Every record of `type`, ordered by row ID. The objects' record IDs are
    /// only readable while `context` lives, so pass one to read them.
    func all<T: Versioned>(_ type: T.Type, in context: RecordContext? = nil) throws -> [T] {
        let context = context ?? newContext()
        return try withExtendedLifetime(context) {
            try T.findAll(in: context).sorted { ($0.recordID?.rowID ?? 0) < ($1.recordID?.rowID ?? 0) }
        }
    }
}
