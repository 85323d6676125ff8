import Foundation
import Testing
import LiteRecord

/// A failed import names the element and key path, and leaves nothing of
/// itself in the context — while the context's other unsaved changes stay.
@Suite struct ImportFailureTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: importEntities)
        context = stack.newContext()
    }

    @Test func errorsNameTheElementAndKeyPath() throws {
        let error = expectError(.validationFailed) {
            try IPerson.importObjects(from: [["id": 1], ["id": 2], ["id": 3, "born": "yesterday"]], in: context)
        }
        #expect(error?.message.contains("element 2, key path 'born'") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("Person.birthday") == true)
        let nested = expectError(.validationFailed) {
            try IPerson.importObjects(from: [["id": 1, "address": "Main Street"]], in: context)
        }
        #expect(nested?.message.contains("'address' is a string, not an object") == true, "\(nested?.message ?? "")")
    }

    @Test func badDataIsRefused() throws {
        for json in ["{", "42", #"[1, 2]"#, #""text""#] {
            _ = expectError(.validationFailed) { try IPerson.importObjects(from: Data(json.utf8), in: context) }
        }
        _ = expectError(.validationFailed) { try IPerson.importObject(from: Data("[]".utf8), in: context) }
    }

    @Test func aFailedImportTakesBackOnlyItself() throws {
        _ = try ICompany.importObject(from: ["id": 1, "name": "Acme"], in: context)
        _ = try IPerson.importObjects(from: [["id": 1, "first_name": "Ann", "employer": 1], ["id": 2, "first_name": "Bob"]], in: context)
        try context.save()
        let acme = try #require(try ICompany.findFirst(byAttribute: "companyID", withValue: 1, in: context))
        let ann = try #require(try IPerson.findFirst(byAttribute: "identifier", withValue: 1, in: context))
        let bob = try #require(try IPerson.findFirst(byAttribute: "identifier", withValue: 2, in: context))
        #expect(acme.employees.count == 1)

        // Unsaved changes of the caller's own, which must survive.
        bob.age = 50
        let cy = IPerson()
        cy.identifier = 3
        context.insert(cy)

        let error = expectError(.validationFailed) {
            try IPerson.importObjects(
                from: [
                    ["id": 1, "first_name": "Anna", "age": 31, "employer": ["id": 2, "name": "Globex"]],
                    ["id": 2, "first_name": "Robert", "employer": 1],
                    ["id": 3, "first_name": "Cyrus"],
                    ["id": 4, "first_name": "Dee", "skills": ["swift"]],
                    ["id": 5, "age": "old"],
                ], in: context)
        }
        #expect(error?.message.contains("element 4, key path 'age'") == true, "\(error?.message ?? "")")
        #expect(ann.name == "Ann" && ann.age == 0 && ann.employer === acme)
        #expect(bob.name == "Bob" && bob.age == 50 && bob.employer == nil)
        #expect(cy.name == "" && cy.context === context)
        #expect(acme.employees.map(\.identifier) == [1])
        #expect(context.insertedObjects.count == 1 && context.insertedObjects.first === cy)
        #expect(context.updatedObjects.count == 1 && context.updatedObjects.first === bob)

        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { ($0.hasPrefix("INSERT") || $0.hasPrefix("UPDATE")) && !$0.contains(StoreFormatNames.recordIDTable) }.count == 2, "\(statements)")
        let fresh = stack.newContext()
        #expect(try IPerson.count(in: fresh) == 3 && ICompany.count(in: fresh) == 1 && ISkill.count(in: fresh) == 0)
        #expect(try IPerson.findFirst(byAttribute: "identifier", withValue: 2, in: fresh)?.age == 50)
    }

    /// What `willImport` and `didImport` set on an existing object is taken
    /// back with the rest, and the object's change records with it: memory
    /// and store agree afterwards.
    @Test func aFailedImportTakesBackWhatItsHooksSet() throws {
        let stack = try RecordStack(inMemoryWith: [IStamped.self])
        let context = stack.newContext()
        _ = try IStamped.importObject(from: ["key": 1, "value": "a"], in: context)
        try context.save()
        let stamped = try #require(try IStamped.findFirst(byAttribute: "key", withValue: 1, in: context))
        stamped.before = ""
        stamped.after = ""
        try context.save()
        #expect(!context.hasChanges)

        _ = expectError(.validationFailed) {
            try IStamped.importObjects(from: [["key": 1, "value": "b"], ["key": 2, "value": ["x"]]], in: context)
        }
        #expect(stamped.value == "a" && stamped.before == "" && stamped.after == "", "\(stamped.before) \(stamped.after)")
        #expect(!context.hasChanges && context.updatedObjects.isEmpty)

        // A later change is saved whole: nothing stale rides along, nothing is lost.
        stamped.value = "c"
        try context.save()
        let fresh = try #require(try IStamped.findFirst(byAttribute: "key", withValue: 1, in: stack.newContext()))
        #expect(fresh.value == "c" && fresh.before == "" && fresh.after == "")
    }
}
