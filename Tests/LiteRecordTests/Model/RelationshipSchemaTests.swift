import Foundation
import Testing
@testable import LiteRecord

/// How relationships look in the file and in the model description.
@Suite struct RelationshipSchemaTests {
    func sql(_ stack: RecordStack, _ name: String) throws -> String? {
        let rows = try stack.store.withConnection("test") { connection in
            try connection.rows("SELECT sql FROM sqlite_master WHERE name = ?", [.text(name)])
        }
        guard case .text(let text)? = rows.first?.first else { return nil }
        return text
    }

    @Test func aToOneIsAnIndexedColumnReferencingTheDestination() throws {
        let stack = try RecordStack(inMemoryWith: relationshipEntities)
        #expect(
            try sql(stack, "Book") == """
                CREATE TABLE "Book" ("Z_PK" INTEGER PRIMARY KEY, "Z_OPT" INTEGER NOT NULL DEFAULT 2, "title" TEXT NOT NULL, \
                "author" INTEGER REFERENCES "Author"("Z_PK") DEFERRABLE INITIALLY DEFERRED)
                """)
        #expect(
            try sql(stack, "literecord_index:Book.author") == """
                CREATE INDEX "literecord_index:Book.author" ON "Book" ("author")
                """)
        // The to-many side of a to-one has no column.
        #expect(try sql(stack, "Author") == #"CREATE TABLE "Author" ("Z_PK" INTEGER PRIMARY KEY, "Z_OPT" INTEGER NOT NULL DEFAULT 2, "name" TEXT NOT NULL)"#)
    }

    @Test func aManyToManyIsAJoinTableWithACompositeKeyAndBothColumnsIndexed() throws {
        let stack = try RecordStack(inMemoryWith: relationshipEntities)
        #expect(
            try sql(stack, "Book_tags") == """
                CREATE TABLE "Book_tags" (\
                "Book" INTEGER NOT NULL REFERENCES "Book"("Z_PK") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, \
                "Tag" INTEGER NOT NULL REFERENCES "Tag"("Z_PK") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, \
                PRIMARY KEY ("Book", "Tag")) WITHOUT ROWID
                """)
        #expect(try sql(stack, "literecord_index:Book_tags.Tag") != nil)
    }

    @Test func aModelWithoutRelationshipsKeepsItsFingerprintAndDescription() throws {
        // Pinned before relationships existed: a store written then opens unchanged.
        let model = try Model(entities: [HandWrittenPerson.self])
        #expect(model.schema.canonicalText == "6:Person{3:age:int:,5:email:string:?,10:identifier:uuid:u,4:name:string:i}")
        #expect(model.fingerprint == "9ab355a1544fa52f")
        #expect(try !model.schema.encoded().contains("relationships"))
        let decoded = try ModelSchema.decode(try model.schema.encoded())
        #expect(decoded == model.schema)
    }

    @Test func relationshipsAreInTheFingerprintAndTheStoredDescription() throws {
        let with = try Model(entities: relationshipEntities)
        #expect(with.schema.canonicalText.contains("<6:author:1:6:Author,4:tags:*:3:Tag:9:Book_tags>"))
        let decoded = try ModelSchema.decode(try with.schema.encoded())
        #expect(decoded == with.schema)
        #expect(decoded.entity(named: "Book")?.relationship(named: "author")?.inverse == "books")
    }

    @Test func aStoreWrittenWithoutRelationshipsOpensUnchanged() throws {
        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("old.sqlite")
        do {
            let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = stack.newContext()
            context.insert(HandWrittenPerson(name: "Ann", age: 31))
            try context.save()
            try stack.close()
        }
        #expect(try !RecordStack.requiresMigration(storeAt: url, entities: [HandWrittenPerson.self]))
        let stack = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 1)
        try stack.close()
    }

    @Test func inspectionShowsTheColumnsAndJoinTablesPlainly() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("library.sqlite")
        let stack = try RecordStack(storeAt: url, entities: relationshipEntities)
        let context = stack.newContext()
        let book = RBook("Dune")
        context.insert(book)
        book.author = RAuthor("Ann")
        book.tags = [RTag("scifi")]
        try context.save()
        try stack.close()
        let inspection = try StoreInspection(storeAt: url)
        let tables = Dictionary(uniqueKeysWithValues: inspection.tables.map { ($0.name, $0) })
        #expect(tables["Book"]?.columns.map(\.name) == ["Z_PK", "Z_OPT", "title", "author"])
        #expect(tables["Book"]?.indexes == ["literecord_index:Book.author"])
        #expect(tables["Book_tags"]?.columns.map(\.name) == ["Book", "Tag"])
        #expect(tables["Book_tags"]?.rowCount == 1)
        #expect(try StoreCheck(storeAt: url).isHealthy)
    }

    @Test func inconsistentRelationshipsAreInvalidModels() throws {
        let cases: [([any Entity.Type], String)] = [
            ([InverseMismatchA.self, InverseMismatchB.self], "points at InverseMismatchB, not at InverseMismatchA"),
            ([AmbiguousA.self, AmbiguousB.self], "ambiguous"),
            ([RBook.self, RTag.self], "Book.author points at Author, which is not an entity of the model"),
        ]
        for (entities, phrase) in cases {
            let error = expectError(.invalidModel) { try Model(entities: entities) }
            #expect(error?.message.contains(phrase) == true, "\(error?.message ?? "")")
        }
    }
}

// Models the setup refuses.

final class InverseMismatchA: Entity {
    var recordState = RecordState()
    static let attributes: [AttributeDescription] = []
    static let relationships = [RelationshipDescription("b", toOne: InverseMismatchB.self, inverse: "other")]
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class InverseMismatchB: Entity {
    var recordState = RecordState()
    static let attributes: [AttributeDescription] = []
    static let relationships = [RelationshipDescription("other", toOne: InverseMismatchB.self)]
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class AmbiguousA: Entity {
    var recordState = RecordState()
    static let attributes: [AttributeDescription] = []
    static let relationships = [
        RelationshipDescription("first", toMany: AmbiguousB.self),
        RelationshipDescription("second", toMany: AmbiguousB.self),
    ]
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}

final class AmbiguousB: Entity {
    var recordState = RecordState()
    static let attributes: [AttributeDescription] = []
    static let relationships = [RelationshipDescription("a", toOne: AmbiguousA.self)]
    init(row: Row) throws {}
    func encodeAttribute(at index: Int) throws -> SQLValue { .null }
    func decodeAttribute(at index: Int, from row: Row) throws {}
}
