import Foundation
import Testing
@testable import LiteRecord

/// Three versions of one model. Renaming hints stay in later versions (as in
/// Core Data), so that a store can jump straight from v1 to v3.
private enum Chain {
    enum V1 {
        final class Person: Versioned {
            var recordState = RecordState()
            var values: [SQLValue]
            init(values: [SQLValue]) { self.values = values }
            static var attributes: [AttributeDescription] {
                [attr("name", .string), attr("nick", .string, optional: true), attr("age", .int)]
            }
        }
    }

    enum V2 {
        final class Person: Versioned {
            var recordState = RecordState()
            var values: [SQLValue]
            init(values: [SQLValue]) { self.values = values }
            static var attributes: [AttributeDescription] {
                [
                    attr("name", .string), attr("nickname", .string, optional: true, was: "nick"),
                    attr("age", .double), attr("email", .string, optional: true),
                ]
            }
        }
    }

    enum V3 {
        final class Human: Versioned {
            static let entityOriginalName: String? = "Person"
            var recordState = RecordState()
            var values: [SQLValue]
            init(values: [SQLValue]) { self.values = values }
            static var attributes: [AttributeDescription] {
                [
                    attr("name", .string, [.unique]), attr("nickname", .string, was: "nick", default: .text("-")),
                    attr("age", .double, [.indexed]), attr("city", .string, default: .text("Oslo")),
                ]
            }
        }
    }

    static func v1Store() throws -> TemporaryStore {
        let store = try TemporaryStore()
        try store.write(
            [V1.Person.self],
            [
                V1.Person(["name": .text("Ann"), "nick": .text("annie"), "age": .integer(31)]),
                V1.Person(["name": .text("Bob"), "age": .integer(42)]),
                V1.Person(["name": .text("Cid"), "nick": .text("c"), "age": .integer(7)]),
            ])
        return store
    }

    /// What a v3 store looks like: rows, columns, indexes and recorded model.
    struct Shape: Equatable {
        var rows: [[SQLValue]]
        var columns: [String]
        var indexes: Set<String>
        var fingerprint: String?
        var tables: [String]
    }

    static func shape(of store: TemporaryStore) throws -> Shape {
        try store.inspect { connection throws in
            Shape(
                rows: try connection.values("Human", ["name", "nickname", "age", "city"]),
                columns: try connection.columns("Human").map { "\($0.name) \($0.type)\($0.notNull ? " NOT NULL" : "")" },
                indexes: Set(try connection.indexList("Human").map(\.name)),
                fingerprint: try connection.metadata(MetadataKey.fingerprint),
                tables: try connection.tableNames())
        }
    }
}

@Suite("Migration: version chains")
struct MigrationChainTests {
    let expectedRows: [[SQLValue]] = [
        [.integer(1), .text("Ann"), .text("annie"), .real(31), .text("Oslo")],
        [.integer(2), .text("Bob"), .text("-"), .real(42), .text("Oslo")],
        [.integer(3), .text("Cid"), .text("c"), .real(7), .text("Oslo")],
    ]

    @Test func stepByStepAndDirectReachTheSameStore() throws {
        let stepwise = try Chain.v1Store()
        defer { stepwise.cleanUp() }
        let v2 = try stepwise.open([Chain.V2.Person.self])
        #expect(try v2.all(Chain.V2.Person.self).map { $0["nickname"] } == [.text("annie"), .null, .text("c")])
        #expect(try v2.all(Chain.V2.Person.self).map { $0["age"] } == [.real(31), .real(42), .real(7)])
        try v2.close()
        let v3 = try stepwise.open([Chain.V3.Human.self])
        #expect(v3.lastMigrationReport?.renamedTables == [.init(from: "Person", to: "Human")])
        try v3.close()

        let direct = try Chain.v1Store()
        defer { direct.cleanUp() }
        let jump = try direct.open([Chain.V3.Human.self])
        let report = try #require(jump.lastMigrationReport)
        #expect(report.rebuiltTables == ["Human"])
        #expect(report.changes.contains("Human: attribute 'nick' renamed to 'nickname'"))
        #expect(try jump.all(Chain.V3.Human.self).map { $0["name"] } == [.text("Ann"), .text("Bob"), .text("Cid")])
        try jump.close()

        let a = try Chain.shape(of: stepwise)
        let b = try Chain.shape(of: direct)
        #expect(a == b)
        #expect(a.rows == expectedRows)
        #expect(a.indexes == ["literecord_unique:Human.name", "literecord_index:Human.age"])
        #expect(a.fingerprint == Chain.V3.Human.fingerprint)
        #expect(a.tables == ["Human", "literecord_metadata", "literecord_record_ids"])
        #expect(a.columns == ["Z_PK INTEGER", "Z_OPT INTEGER NOT NULL", "name TEXT NOT NULL", "nickname TEXT NOT NULL", "age REAL NOT NULL", "city TEXT NOT NULL"])
    }

    @Test func aChainedStoreAcceptsWritesOfTheNewModel() throws {
        let store = try Chain.v1Store()
        defer { store.cleanUp() }
        let stack = try store.open([Chain.V3.Human.self])
        let context = stack.newContext()
        context.insert(Chain.V3.Human(["name": .text("Dee"), "nickname": .text("d"), "age": .real(1), "city": .text("Rome")]))
        try context.save()
        // The unique index came along: a duplicate name is rejected.
        context.insert(Chain.V3.Human(["name": .text("Dee"), "nickname": .text("x"), "age": .real(2), "city": .text("Rome")]))
        #expect(throws: LiteRecordError.self) { try context.save() }
        let ids = try stack.all(Chain.V3.Human.self, in: context).map { $0.recordID?.rowID }
        #expect(ids == [1, 2, 3, 4], "\(ids)")
        try stack.close()
    }
}
