import LiteRecord

/// An entity that keeps its attributes as the stored values, as the tests'
/// `Versioned` entities do (Tests/LiteRecordTests/Support/MigrationSupport.swift):
/// a child opens and migrates stores but never reads a record's values.
protocol StoredValues: Entity {
    var values: [SQLValue] { get set }
    init(values: [SQLValue])
}

extension StoredValues {
    init(row: Row) throws {
        self.init(values: Self.attributes.indices.map { row.value(at: $0) })
    }

    func encodeAttribute(at index: Int) throws -> SQLValue { values[index] }

    func decodeAttribute(at index: Int, from row: Row) throws {
        values[index] = row.value(at: index)
    }
}

/// The tests' `Base.Person` (Tests/LiteRecordTests/Support/MigrationModels.swift),
/// the model of the stores the children open. The parents check that the
/// store still has the tests' model afterwards, so the two cannot drift apart
/// unnoticed.
enum Base {
    final class Person: StoredValues {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                AttributeDescription("name", type: .string, options: [.unique]),
                AttributeDescription("age", type: .int, options: [.indexed]),
                AttributeDescription("nick", type: .string, isOptional: true),
                AttributeDescription("score", type: .double),
            ]
        }
    }
}

/// `MigrationCrashTests`' `Crash.Person`: `Base.Person` with `age` as Double
/// (a CAST of every row), `nick` non-optional with a default (a rebuild
/// before the custom steps run) and a new optional `email`, so a migration
/// rewrites the table and both indexes. The parent checks the migrated
/// store's fingerprint against its own `Crash.Person`.
enum Migrated {
    final class Person: StoredValues {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                AttributeDescription("name", type: .string, options: [.unique]),
                AttributeDescription("age", type: .double, options: [.indexed]),
                AttributeDescription("nick", type: .string, defaultValue: { .text("") }),
                AttributeDescription("score", type: .double),
                AttributeDescription("email", type: .string, isOptional: true),
            ]
        }
    }
}
