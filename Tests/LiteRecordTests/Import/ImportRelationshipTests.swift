import Foundation
import Testing
import LiteRecord

/// Relationships from nested objects and bare keys: matched by the
/// destination's unique key (never duplicated, MagicalRecord #710, #357),
/// looked up in batches.
@Suite struct ImportRelationshipTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: importEntities)
        context = stack.newContext()
    }

    @Test func nestedObjectsAreMatchedNotDuplicated() throws {
        _ = try ICompany.importObject(from: ["id": 1, "name": "Acme"], in: context)
        try context.save()

        let other = stack.newContext()
        let people = try IPerson.importObjects(
            from: [
                ["id": 1, "employer": ["id": 1, "name": "Acme Inc."]],
                ["id": 2, "employer": ["id": 1]],
                ["id": 3, "employer": ["id": 2, "name": "Globex"]],
                ["id": 4, "employer": ["id": 2]],
            ], in: other)
        let acme = try #require(people[0].employer)
        #expect(people[1].employer === acme && acme.name == "Acme Inc.")
        #expect(people[2].employer === people[3].employer && people[2].employer?.name == "Globex")
        #expect(Set(acme.employees.map(\.identifier)) == [1, 2], "the inverse is filled in memory")
        try other.save()
        #expect(try ICompany.count(in: other) == 2)
    }

    @Test func bareKeysLinkExistingObjects() throws {
        _ = try ICompany.importObjects(from: [["id": 1, "name": "Acme"], ["id": 2, "name": "Globex"]], in: context)
        try context.save()
        let other = stack.newContext()
        let (people, statements) = try stack.recordingSQL {
            try IPerson.importObjects(from: [["id": 1, "employer": 2], ["id": 2, "employer": "1"], ["id": 3, "employer": 2]], in: other)
        }
        #expect(people.map { $0.employer?.name } == ["Globex", "Acme", "Globex"])
        #expect(statements.count == 2, "one lookup per entity: \(statements)")
    }

    @Test func anUnknownBareKeyCreatesAnObjectWhenItCanBeCompleteFromItsKey() throws {
        let person = try #require(try IPerson.importObject(from: ["id": 1, "employer": 9], in: context))
        #expect(person.employer?.companyID == 9 && person.employer?.name == "")
        #expect(context.insertedObjects.count == 2)

        // An album needs a title, which a key alone does not give.
        let error = expectError(.validationFailed) { try ITrack.importObject(from: ["number": 1, "album": "X1"], in: context) }
        #expect(error?.message.contains("key path 'album'") == true && error?.message.contains("title") == true, "\(error?.message ?? "")")
        #expect(context.insertedObjects.count == 2, "the failed import left nothing")

        _ = try IAlbum.importObject(from: ["code": "X1", "title": "First"], in: context)
        let track = try #require(try ITrack.importObject(from: ["number": 1, "album": "X1"], in: context))
        #expect(track.album?.title == "First")
    }

    @Test func anEntityThatIsNotDefaultInitializableIsMadeFromItsValues() throws {
        let album = try #require(try IAlbum.importObject(from: ["code": "A", "title": "Blue"], in: context))
        #expect(album.title == "Blue" && album.year == 0)
        let error = expectError(.validationFailed) { try IAlbum.importObject(from: ["code": "B"], in: context) }
        #expect(error?.message.contains("key path 'title'") == true, "\(error?.message ?? "")")
        try context.save()
    }

    @Test func toManyFromNestedObjectsAndKeysAddsToTheRelationship() throws {
        _ = try ISkill.importObject(from: ["label": "swift", "level": 3], in: context)
        let ann = try #require(
            try IPerson.importObject(
                from: ["id": 1, "skills": [["label": "swift"], ["label": "sql", "level": 2], "go"]], in: context))
        #expect(Set(ann.skills.map(\.label)) == ["swift", "sql", "go"])
        try context.save()

        let other = stack.newContext()
        let again = try #require(try IPerson.importObject(from: ["id": 1, "skills": ["rust"]], in: other))
        #expect(Set(again.skills.map(\.label)) == ["swift", "sql", "go", "rust"], "an import adds; it never removes")
        try other.save()
        #expect(try ISkill.count(in: other) == 4)

        let company = try #require(
            try ICompany.importObject(
                from: ["id": 5, "employees": [["id": 1], ["id": 7, "first_name": "Zed"]]], in: other))
        #expect(Set(company.employees.map(\.identifier)) == [1, 7])
        #expect(again.employer === company, "the to-many was set through the employees' to-one")
        try other.save()
    }

    @Test func nullClearsAToOne() throws {
        let ann = try #require(try IPerson.importObject(from: ["id": 1, "employer": ["id": 1]], in: context))
        try context.save()
        _ = try IPerson.importObject(from: ["id": 1, "employer": NSNull()], in: context)
        #expect(ann.employer == nil)
        try context.save()
        #expect(try IPerson.findFirst(byAttribute: "identifier", withValue: 1, in: stack.newContext())?.employer == nil)
    }

    @Test func wrongShapesAreRefusedWithTheirPath() throws {
        let cases: [([String: Any], String)] = [
            (["id": 1, "employer": [1, 2]], "key path 'employer'"),
            (["id": 1, "employer": ["id": "x"]], "key path 'employer.id'"),
            (["id": 1, "skills": [["label": "a"], ["level": "high"]]], "key path 'skills[1].level'"),
            (["id": 1, "skills": [true]], "key path 'skills[0]'"),
        ]
        for (input, path) in cases {
            let error = expectError(.validationFailed) { try IPerson.importObject(from: input, in: context) }
            #expect(error?.message.contains(path) == true, "\(error?.message ?? "")")
        }
        #expect(context.insertedObjects.isEmpty)
    }

    /// A bare key may come before the nested object that defines its object
    ///: order within one input does not matter.
    @Test func aBareKeyMayNameAnObjectALaterElementDefines() throws {
        for tracks in [
            [["number": 1, "album": "X1"], ["number": 2, "album": ["code": "X1", "title": "First", "year": 1999]]],
            [["number": 2, "album": ["code": "X1", "title": "First", "year": 1999]], ["number": 1, "album": "X1"]],
        ] as [[[String: Any]]] {
            let other = try RecordStack(inMemoryWith: importEntities).newContext()
            let imported = try ITrack.importObjects(from: tracks, in: other)
            #expect(imported.count == 2 && imported[0].album === imported[1].album)
            #expect(imported[0].album?.title == "First" && imported[0].album?.year == 1999)
            #expect(other.insertedObjects.count == 3)
            try other.save()
            #expect(try IAlbum.count(in: other) == 1)
        }
        let json = #"[{"id": 1, "skills": ["go"]}, {"id": 2, "skills": [{"label": "go", "level": 4}]}]"#
        let people = try IPerson.importObjects(from: Data(json.utf8), in: context)
        #expect(people[0].skills.first === people[1].skills.first && people[0].skills.first?.level == 4)
        #expect(context.insertedObjects.count == 3)
    }

    /// An import adds to a to-many; emptying it first is how to replace it
    /// (Docs/Import.md).
    @Test func emptyingAToManyBeforeAnImportReplacesIt() throws {
        let ann = try #require(try IPerson.importObject(from: ["id": 1, "skills": ["swift", "sql"]], in: context))
        try context.save()
        ann.skills = []
        _ = try IPerson.importObject(from: ["id": 1, "skills": ["rust"]], in: context)
        #expect(ann.skills.map(\.label) == ["rust"])
        try context.save()
        let reader = stack.newContext()
        let fresh = try #require(try IPerson.findFirst(byAttribute: "identifier", withValue: 1, in: reader))
        #expect(fresh.skills.map(\.label) == ["rust"])
    }
}
