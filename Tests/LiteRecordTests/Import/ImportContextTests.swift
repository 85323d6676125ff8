import Foundation
import Testing
import LiteRecord

/// Imports into entities written by hand (which do not track their changes)
/// and into child contexts: the same rules, through the `Entity` protocol only.
@Suite struct ImportContextTests {
    @Test func aHandWrittenEntityImportsAndUpdatesByItsUniqueKey() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        let id = UUID()
        _ = try HandWrittenPerson.importObjects(
            from: [["identifier": id.uuidString, "name": "Ann", "age": 30], ["identifier": UUID().uuidString, "name": "Bob"]],
            in: context)
        try context.save()

        let other = stack.newContext()
        let ann = try #require(
            try HandWrittenPerson.importObject(
                from: ["identifier": id.uuidString.lowercased(), "age": "31"], in: other))
        #expect(ann.name == "Ann" && ann.age == 31 && other.insertedObjects.isEmpty)
        let (_, statements) = try stack.recordingSQL { try other.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE") } == [#"UPDATE "Person" SET "age" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? AND "Z_OPT" = ?"#])

        _ = expectError(.validationFailed) {
            try HandWrittenPerson.importObjects(from: [["identifier": id.uuidString, "name": "Anna"], ["age": 1.5]], in: other)
        }
        #expect(ann.name == "Ann" && !other.hasChanges, "the failed import is taken back")
    }

    @Test func aChildContextImportsOverItsParent() throws {
        let stack = try RecordStack(inMemoryWith: importEntities)
        let parent = stack.newContext()
        let ann = try #require(try IPerson.importObject(from: ["id": 1, "first_name": "Ann"], in: parent))
        let child = parent.makeChildContext()
        let people = try IPerson.importObjects(from: [["id": 1, "age": 5], ["id": 2, "first_name": "Bob"]], in: child)
        #expect(people.count == 2 && child.insertedObjects.count == 2, "the parent's unsaved Ann is not in the child's store")
        _ = ann
        try parent.save()

        let saved = stack.newContext()
        let child2 = saved.makeChildContext()
        let again = try #require(try IPerson.importObject(from: ["id": 1, "age": 6], in: child2))
        #expect(again.name == "Ann" && child2.insertedObjects.isEmpty, "a saved record is found through the child")
        try child2.save()
        try saved.save()
        #expect(try IPerson.findFirst(byAttribute: "identifier", withValue: 1, in: stack.newContext())?.age == 6)
    }
}
