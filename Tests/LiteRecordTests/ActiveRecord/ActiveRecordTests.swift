import Foundation
import Testing
import LiteRecord

@Suite struct ActiveRecordTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self, HandWrittenNote.self])
        context = stack.newContext()
        for (name, age, email) in [("Carl", 50, nil), ("Ann", 31, "ann@x"), ("Bob", 31, nil)] as [(String, Int, String?)] {
            context.insert(HandWrittenPerson(name: name, age: age, email: email))
        }
        try context.save()
    }

    @Test func entityNameDefaultsToTheClassName() {
        #expect(HandWrittenNote.entityName == "HandWrittenNote")
        #expect(HandWrittenPerson.entityName == "Person")
    }

    @Test func findAllIsInInsertionOrder() throws {
        #expect(try HandWrittenPerson.findAll(in: context).map(\.name) == ["Carl", "Ann", "Bob"])
    }

    @Test func findAllSorted() throws {
        #expect(try HandWrittenPerson.findAll(sortedBy: "name", in: context).map(\.name) == ["Ann", "Bob", "Carl"])
        #expect(try HandWrittenPerson.findAll(sortedBy: "name", ascending: false, in: context).map(\.name) == ["Carl", "Bob", "Ann"])
        #expect(try HandWrittenPerson.findAll(sortedBy: "age,name", in: context).map(\.name) == ["Ann", "Bob", "Carl"])
    }

    @Test func findByAttribute() throws {
        #expect(try HandWrittenPerson.find(byAttribute: "age", withValue: 31, in: context).map(\.name) == ["Ann", "Bob"])
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Bob", in: context)?.age == 31)
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Nobody", in: context) == nil)
        #expect(try HandWrittenPerson.find(byAttribute: "email", withValue: nil, in: context).map(\.name) == ["Carl", "Bob"])
        let ann = try #require(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: context))
        #expect(try HandWrittenPerson.findFirst(byAttribute: "identifier", withValue: ann.identifier, in: context) === ann)
    }

    @Test func unknownAttributeIsRejected() throws {
        let error = expectError(.unknownAttribute) {
            try HandWrittenPerson.findFirst(byAttribute: "nmae", withValue: "Ann", in: context)
        }
        #expect(error?.message.contains("nmae") == true)
        #expect(error?.message.contains("age, email, identifier, name") == true)
        expectError(.unknownAttribute) { try HandWrittenPerson.findAll(sortedBy: "name; DROP TABLE Person", in: context) }
        expectError(.unknownAttribute) { try HandWrittenPerson.find(byAttribute: "name\" = name --", withValue: 1, in: context) }
        #expect(try HandWrittenPerson.count(in: context) == 3)
    }

    @Test func hostileStringsAreStoredAndFoundVerbatim() throws {
        let hostile = "Robert'); DROP TABLE \"Person\"; -- \u{0} end \"quoted\" ; --"
        context.insert(HandWrittenPerson(name: hostile, age: 1, email: "\u{0}"))
        try context.save()
        let fresh = stack.newContext()
        let found = try #require(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: hostile, in: fresh))
        #expect(found.name == hostile)
        #expect(found.name.utf8.count == hostile.utf8.count)
        #expect(found.email == "\u{0}")
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Robert'); DROP TABLE \"Person\"; -- ", in: fresh) == nil)
        #expect(try HandWrittenPerson.count(in: fresh) == 4)
    }

    @Test func createUsesDefaultsAndInserts() throws {
        let note = HandWrittenNote.create(in: context)
        #expect(note.context === context)
        note.text = "created"
        try context.save()
        #expect(try HandWrittenNote.findAll(in: stack.newContext()).map(\.text) == ["created"])
    }

    @Test func saveInsertsANewObject() throws {
        let note = HandWrittenNote(text: "saved", payload: Data([0, 1, 2]))
        try note.save(in: context)
        let found = try HandWrittenNote.findAll(in: stack.newContext())
        #expect(found.map(\.payload) == [Data([0, 1, 2])])
    }

    @Test func countAndTruncateAll() throws {
        #expect(try HandWrittenPerson.count(in: context) == 3)
        let held = try HandWrittenPerson.findAll(in: context)
        let (deleted, statements) = try stack.recordingSQL { try HandWrittenPerson.truncateAll(in: context) }
        #expect(deleted == 3)
        #expect(statements.filter { $0.hasPrefix("DELETE") }.count == 1, "one set-based statement")
        #expect(try HandWrittenPerson.count(in: context) == 0)
        #expect(held.allSatisfy { $0.context == nil }, "objects held by the context are deleted there too")
        #expect(!context.hasChanges)
    }
}
