import Foundation
import Testing
@testable import LiteRecord

@Test func smoke() throws {
    let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
    let context = stack.newContext()
    let ann = HandWrittenPerson(name: "Ann", age: 31)
    context.insert(ann)
    #expect(context.hasChanges)
    try context.save()
    #expect(!context.hasChanges)
    #expect(ann.recordID != nil)
    let (_, statements) = try stack.recordingSQL { try context.save() }
    #expect(statements.isEmpty)
    ann.age = 32
    let (_, updates) = try stack.recordingSQL { try context.save() }
    print(updates)
    let other = stack.newContext()
    let found = try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: other)
    #expect(found?.age == 32)
    #expect(try HandWrittenPerson.count(in: other) == 1)
}
