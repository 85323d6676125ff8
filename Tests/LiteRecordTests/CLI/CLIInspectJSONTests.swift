import Foundation
import Testing
@testable import LiteRecord

/// `literecord inspect PATH --json`, run as a built binary and decoded with
/// the schema Docs/CLI.md documents: these types are that schema as a
/// script's author would write it, not the tool's own.
@Suite struct CLIInspectJSONTests {
    struct Document: Decodable, Equatable {
        var schemaVersion: Int
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
    }

    struct SearchIndexFacts: Decodable, Equatable {
        var name: String
        var entity: String
        var columns: [String]
        var triggers: [String]
    }

    struct ModelFacts: Decodable, Equatable {
        var fingerprint: String
        var createdAt: String?
        var tablesMatchModel: Bool
        var differences: [String]
        var migrationSteps: [String]
    }

    struct EntityFacts: Decodable, Equatable {
        var name: String
        var rowCount: Int?
        var attributes: [AttributeFacts]
        var relationships: [RelationshipFacts]
    }

    struct AttributeFacts: Decodable, Equatable {
        var name: String
        var type: String
        var columnType: String
        var optional: Bool
        var unique: Bool
        var indexed: Bool
        var searchable: Bool
    }

    struct RelationshipFacts: Decodable, Equatable {
        var name: String
        var destination: String
        var toMany: Bool
        var inverse: String?
        var deleteRule: String
        var joinTable: String?
    }

    struct TableFacts: Decodable, Equatable {
        var name: String
        var rowCount: Int
        var columns: [ColumnFacts]
        var indexes: [String]
    }

    struct ColumnFacts: Decodable, Equatable {
        var name: String
        var type: String
        var nullable: Bool
        var primaryKey: Bool
    }

    /// Runs `inspect --json` and decodes what it printed; a failure or a
    /// word on standard error fails the test.
    func inspect(_ url: URL) async throws -> (document: Document, text: String) {
        let output = try await Reliability.run(Reliability.binary(), ["inspect", url.path, "--json"])
        #expect(output.status == 0, "\(output.standardError)")
        #expect(output.standardError.isEmpty, "\(output.standardError)")
        let document = try JSONDecoder().decode(Document.self, from: Data(output.standardOutput.utf8))
        return (document, output.standardOutput)
    }

    @Test func aLiteRecordStoreDecodesWithEveryFact() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        let plan = MigrationPlan().step("fill-nick") { _ in }
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self], migration: .plan(plan))
        let context = stack.newContext()
        context.insert(HandWrittenPerson(name: "Ann", age: 31))
        context.insert(HandWrittenPerson(name: "Bob", age: 40, email: "bob@example.com"))
        try context.save()
        try stack.close()
        let copy = folder.file("people.sqlite.pre-migration-20260101T000000Z")
        try FileManager.default.copyItem(at: url, to: copy)

        let (document, text) = try await inspect(url)
        #expect(document.schemaVersion == 1)
        #expect(document.path == url.path)
        #expect(document.isLiteRecordStore)
        #expect(document.journalMode == "wal")
        #expect(document.pageSize > 0 && document.pageCount > 0)
        #expect(document.sizeInBytes == Int64(document.pageSize * document.pageCount))
        #expect(document.sqliteVersion.split(separator: ".").count == 3)
        #expect(document.preMigrationCopies == [copy.path])
        #expect(document.searchIndexes.isEmpty, "no searchable attribute")

        let model = try #require(document.model)
        #expect(model.fingerprint == (try Model(entities: [HandWrittenPerson.self]).fingerprint))
        #expect(model.tablesMatchModel)
        #expect(model.differences.isEmpty)
        #expect(model.migrationSteps == ["fill-nick"])
        #expect(model.createdAt != nil)

        #expect(document.entities.map(\.name) == ["Person"])
        let person = try #require(document.entities.first)
        #expect(person.rowCount == 2)
        #expect(person.relationships.isEmpty)
        #expect(
            person.attributes == [
                AttributeFacts(name: "identifier", type: "uuid", columnType: "TEXT", optional: false, unique: true, indexed: false, searchable: false),
                AttributeFacts(name: "name", type: "string", columnType: "TEXT", optional: false, unique: false, indexed: true, searchable: false),
                AttributeFacts(name: "age", type: "int", columnType: "INTEGER", optional: false, unique: false, indexed: false, searchable: false),
                AttributeFacts(name: "email", type: "string", columnType: "TEXT", optional: true, unique: false, indexed: false, searchable: false),
            ])

        let table = try #require(document.tables.first { $0.name == "Person" })
        #expect(document.tables.map(\.name) == ["Person"], "the metadata table is LiteRecord's, not the user's")
        #expect(table.rowCount == 2)
        #expect(table.columns.first == ColumnFacts(name: "Z_PK", type: "INTEGER", nullable: true, primaryKey: true))
        #expect(table.columns.contains(ColumnFacts(name: "email", type: "TEXT", nullable: true, primaryKey: false)))
        #expect(table.indexes == ["literecord_index:Person.name", "literecord_unique:Person.identifier"])

        // Stable: sorted keys, absent values as null, the same bytes twice.
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]).keys
        #expect(keys.count == 15)
        let positions = keys.sorted().compactMap { text.range(of: "\n  \"\($0)\" : ")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted(), "top-level keys in sorted order")
        #expect(try await inspect(url).text == text)
    }

    @Test func relationshipsAreReportedFromTheStoredModel() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("library.sqlite")
        try RecordStack(storeAt: url, entities: [RAuthor.self, RBook.self, RTag.self]).close()
        let (document, _) = try await inspect(url)
        func relationships(_ entity: String) -> [RelationshipFacts] {
            document.entities.first { $0.name == entity }?.relationships ?? []
        }
        // One-to-many with its inverse and delete rule, the to-one side, and
        // a many-to-many whose two sides name the same link table.
        #expect(
            relationships("Author") == [
                RelationshipFacts(name: "books", destination: "Book", toMany: true, inverse: "author", deleteRule: "cascade", joinTable: nil)
            ])
        #expect(
            relationships("Book") == [
                RelationshipFacts(name: "author", destination: "Author", toMany: false, inverse: "books", deleteRule: "nullify", joinTable: nil),
                RelationshipFacts(name: "tags", destination: "Tag", toMany: true, inverse: "books", deleteRule: "nullify", joinTable: "Book_tags"),
            ])
        #expect(
            relationships("Tag") == [
                RelationshipFacts(name: "books", destination: "Book", toMany: true, inverse: "tags", deleteRule: "nullify", joinTable: "Book_tags")
            ])
    }

    @Test func tablesThatDifferFromTheModelDescriptionAreNamed() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("people.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        let connection = try Connection(path: url.path)
        try connection.execute("ALTER TABLE Person ADD COLUMN nick TEXT")
        try connection.execute("DROP INDEX \"literecord_index:Person.name\"")
        try connection.execute("CREATE TABLE Scratch (x)")
        connection.close()

        let (document, _) = try await inspect(url)
        let model = try #require(document.model)
        #expect(!model.tablesMatchModel)
        #expect(
            model.differences == [
                "Person: column 'nick' is not in the model",
                "Person: index 'literecord_index:Person.name' is missing",
                "Scratch: the table is not in the model",
            ])
        let text = try await Reliability.run(Reliability.binary(), ["inspect", url.path])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("differs:      Person: column 'nick' is not in the model"))
    }

    @Test func aDatabaseLiteRecordDidNotWriteHasNoModel() async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("other.sqlite")
        let connection = try Connection(path: url.path)
        try connection.execute("CREATE TABLE Things (id INTEGER PRIMARY KEY, label TEXT NOT NULL)")
        try connection.execute("INSERT INTO Things (label) VALUES ('a'), ('b'), ('c')")
        connection.close()

        let (document, text) = try await inspect(url)
        #expect(!document.isLiteRecordStore)
        #expect(document.model == nil)
        #expect(text.contains("\"model\" : null"), "an absent model is written as null, not left out")
        #expect(document.entities.isEmpty)
        #expect(document.tables.map(\.name) == ["Things"])
        #expect(document.tables.first?.rowCount == 3)
        #expect(document.tables.first?.columns.map(\.nullable) == [true, false])
    }
}
