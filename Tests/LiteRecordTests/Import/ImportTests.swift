import Foundation
import LiteRecordTesting
import Testing
@testable import LiteRecord

/// Docs/Import.md: importing JSON, matching existing objects by the `.unique`
/// attribute, in the store and within one input.
@Suite struct ImportTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: importEntities)
        context = stack.newContext()
    }

    @Test func importsTheAPIExample() throws {
        let json = Data(
            #"[{"id": 7, "first_name": "Ann", "born": "1990-05-01T00:00:00Z", "address": {"city": "Oslo"}, "age": "31", "nicknames": ["A", "Annie"]}, {"id": 8, "first_name": "Bob"}]"#
                .utf8)
        let people = try IPerson.importObjects(from: json, in: context)
        #expect(people.map(\.identifier) == [7, 8])
        let ann = people[0]
        #expect(ann.name == "Ann" && ann.age == 31 && ann.city == "Oslo" && ann.nicknames == ["A", "Annie"])
        #expect(ann.birthday == Date(timeIntervalSince1970: 641_520_000))
        #expect(people[1].city == nil && people[1].birthday == nil && people[1].age == 0)
        #expect(context.insertedObjects.count == 2, "an import inserts; it does not save")
        try context.save()
        #expect(try IPerson.count(in: stack.newContext()) == 2)
    }

    @Test func importsOneObjectFromADictionaryOrData() throws {
        let ann = try #require(try IPerson.importObject(from: ["id": 7, "first_name": "Ann"], in: context))
        #expect(ann.identifier == 7 && ann.name == "Ann")
        let same = try IPerson.importObject(from: Data(#"{"id": 7, "age": 40}"#.utf8), in: context)
        #expect(same === ann && ann.age == 40 && ann.name == "Ann", "a missing key leaves the value as it is")
        let list = try IPerson.importObjects(from: Data(#"{"id": 9}"#.utf8), in: context)
        #expect(list.map(\.identifier) == [9], "importObjects also takes a single JSON object")
    }

    @Test func updatesStoredObjectsInsteadOfDuplicating() throws {
        _ = try IPerson.importObjects(from: [["id": 1, "first_name": "Ann"], ["id": 2, "first_name": "Bob"]], in: context)
        try context.save()

        let other = stack.newContext()
        let people = try IPerson.importObjects(from: [["id": 2, "first_name": "Robert"], ["id": 3, "first_name": "Cy"]], in: other)
        #expect(people.map(\.name) == ["Robert", "Cy"])
        #expect(other.insertedObjects.count == 1 && other.updatedObjects.count == 1)
        try other.save()
        let names = try IPerson.findAll(sortedBy: "identifier", ascending: true, in: stack.newContext()).map(\.name)
        #expect(names == ["Ann", "Robert", "Cy"])
    }

    @Test func mergesDuplicatesWithinOneInputLastWins() throws {
        let people = try IPerson.importObjects(
            from: [["id": 1, "first_name": "Ann", "age": 30], ["id": 2, "first_name": "Bob"], ["id": 1, "first_name": "Anna"]],
            in: context)
        #expect(people.count == 2, "each object once, in the order it first appears")
        #expect(people[0].name == "Anna" && people[0].age == 30, "the last value wins; keys it lacks keep the earlier value")
        #expect(context.insertedObjects.count == 2)
        try context.save()
        #expect(try IPerson.count(in: context) == 2)
    }

    @Test func matchesObjectsInsertedButNotSaved() throws {
        let ann = IPerson()
        ann.identifier = 5
        context.insert(ann)
        let imported = try IPerson.importObject(from: ["id": 5, "first_name": "Ann"], in: context)
        #expect(imported === ann && ann.name == "Ann")
        #expect(context.insertedObjects.count == 1)
    }

    @Test func matchesAKeyGivenAsAStringOrAsTextInAnotherNormalForm() throws {
        _ = try IPerson.importObject(from: ["id": 4], in: context)
        let again = try IPerson.importObjects(from: [["id": "4", "age": 9]], in: context)
        #expect(again.count == 1 && context.insertedObjects.count == 1)

        _ = try ISkill.importObject(from: ["label": "caf\u{E9}", "level": 1], in: context)
        try context.save()
        let other = stack.newContext()
        let skill = try #require(try ISkill.importObject(from: ["label": "cafe\u{301}", "level": 2], in: other))
        #expect(other.insertedObjects.isEmpty, "canonically equivalent keys match, as the unique index would")
        #expect(skill.level == 2)
    }

    @Test func reimportingTheSameDataChangesNothing() throws {
        let rows: [[String: Any]] = [["id": 1, "first_name": "Ann", "nicknames": ["A"]], ["id": 2, "first_name": "Bob"]]
        _ = try IPerson.importObjects(from: rows, in: context)
        try context.save()
        let other = stack.newContext()
        _ = try IPerson.importObjects(from: rows, in: other)
        #expect(!other.hasChanges)
    }

    /// MagicalRecord ran one fetch per imported object (#183, #450): here
    /// the lookups are one `IN` query per batch of at most 999 keys.
    @Test func looksUpKeysInBatchesNotOnePerObject() throws {
        let seed = (0..<500).map { ["id": $0 * 2, "first_name": "P\($0)"] as [String: Any] }
        _ = try IPerson.importObjects(from: seed, in: context)
        try context.save()

        let other = stack.newContext()
        let input = (0..<1000).map { ["id": $0, "first_name": "N\($0)", "employer": ["id": $0 % 10, "name": "C\($0 % 10)"]] as [String: Any] }
        let (people, statements) = try stack.recordingSQL { try IPerson.importObjects(from: input, in: other) }
        #expect(people.count == 1000)
        let lookups = statements.filter { $0.hasPrefix("SELECT") }
        #expect(lookups.count == 3, "two batches of Person keys (999 + 1) and one of Company keys: \(lookups.count) statements")
        #expect(statements.count == lookups.count, "an import only reads: \(statements.filter { !$0.hasPrefix("SELECT") })")
        #expect(other.insertedObjects.count == 500 + 10 && other.updatedObjects.count == 500)
        try other.save()
        #expect(try IPerson.count(in: other) == 1000 && ICompany.count(in: other) == 10)
    }

    /// Import settings describe JSON, not the store: changing them opens an
    /// existing store without a migration.
    @Test func importKeysAreNotPartOfTheSchema() throws {
        let plain = AttributeDescription("name", type: .string)
        let keyed = AttributeDescription("name", type: .string, importKey: "full_name", dateFormat: .iso8601)
        #expect(plain.schema == keyed.schema)
        #expect(keyed.importKey == "full_name" && keyed.dateFormat == .iso8601)

        let folder = try TemporaryDirectory()
        let url = folder.url.appendingPathComponent("Import.sqlite")
        try RecordStack(storeAt: url, entities: [PlainKeyed.self]).close()
        #expect(try !RecordStack.requiresMigration(storeAt: url, entities: [ImportKeyed.self]))
        let stack = try RecordStack(storeAt: url, entities: [ImportKeyed.self])
        _ = try ImportKeyed.importObject(from: ["full_name": "Ann"], in: stack.newContext())
        try stack.close()
    }
}

/// The forms without `in:` import into the default stack's main context.
@Suite(.inMemoryStack(entities: importEntities))
@MainActor struct ImportMainContextTests {
    @Test func importsIntoTheMainContext() throws {
        let ann = try IPerson.importObject(from: ["id": 1, "first_name": "Ann"])
        #expect(ann?.context === RecordStack.mainContext)
        let people = try IPerson.importObjects(from: Data(#"[{"id": 2}]"#.utf8))
        #expect(people.count == 1)
        let more = try IPerson.importObjects(from: [["id": 3]])
        #expect(more.count == 1)
        #expect(try IPerson.importObject(from: Data(#"{"id": 1, "age": 3}"#.utf8)) === ann)
        try RecordStack.mainContext.save()
        #expect(try IPerson.count() == 3)
    }
}

@Entity(name: "Keyed")
final class PlainKeyed {
    var name = ""
    init() {}
}

@Entity(name: "Keyed")
final class ImportKeyed {
    @Attribute(importKey: "full_name") var name = ""
    init() {}
}
