import Foundation
import Testing
import LiteRecord

/// What a save writes, seen through the SQL it runs.
@Suite struct SaveTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self, HandWrittenNote.self])
        context = stack.newContext()
    }

    @Test func saveWithoutChangesRunsNoSQL() throws {
        let (_, empty) = try stack.recordingSQL { try context.save() }
        #expect(empty.isEmpty)
        for index in 0..<10 { context.insert(HandWrittenPerson(name: "P\(index)", age: index)) }
        try context.save()
        _ = try HandWrittenPerson.findAll(in: context)
        let (_, unchanged) = try stack.recordingSQL { try context.save() }
        #expect(unchanged.isEmpty)
    }

    @Test func updateWritesOnlyChangedColumns() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        ann.age = 32
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(
            statements == [
                "BEGIN IMMEDIATE TRANSACTION",
                "UPDATE \"Person\" SET \"age\" = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?",
                "COMMIT TRANSACTION",
            ])
    }

    /// Objects changing different columns, interleaved, so that one save
    /// runs three statements in turns and comes back to each: every row gets
    /// its own columns, and a row another context changed meanwhile is a
    /// conflict of that row alone, resolved property by property.
    @Test func updatesOfDifferentColumnsInTurnsWriteEachRowItsOwn() throws {
        for index in 0..<12 { context.insert(HandWrittenPerson(name: "P\(index)", age: index)) }
        try context.save()
        let mine = stack.newContext()
        mine.mergePolicy = .objectTrumps
        for person in try HandWrittenPerson.findAll(in: mine) {
            let index = person.age
            if index % 3 != 1 { person.age = index + 1_000 }
            if index % 3 != 0 { person.name = "Q\(index)" }
        }
        let theirs = stack.newContext()
        for person in try HandWrittenPerson.findAll(in: theirs) where [3, 4].contains(person.age) {
            person.age += 100
        }
        try theirs.save()
        let (_, statements) = try stack.recordingSQL { try mine.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE \"Person\"") }.count >= 12)
        let rows = try HandWrittenPerson.findAll(in: stack.newContext()).map { [$0.name, "\($0.age)"] }
        var expected: [[String]] = []
        for index in 0..<12 {
            let name = index % 3 == 0 ? "P\(index)" : "Q\(index)"
            // Row 4's age was theirs alone; row 3's age both changed: mine wins.
            let age = index % 3 == 1 ? (index == 4 ? 104 : index) : index + 1_000
            expected.append([name, "\(age)"])
        }
        #expect(rows.sorted { Int($0[0].dropFirst()) ?? 0 < Int($1[0].dropFirst()) ?? 0 } == expected)
    }

    @Test func oneSaveIsOneTransaction() throws {
        for index in 0..<3 { context.insert(HandWrittenPerson(name: "P\(index)", age: index)) }
        context.insert(HandWrittenNote(text: "n"))
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.first == "BEGIN IMMEDIATE TRANSACTION")
        #expect(statements.last == "COMMIT TRANSACTION")
        #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(statements.filter { $0.hasPrefix("INSERT") && !$0.contains(StoreFormatNames.recordIDTable) }.count == 4)
    }

    @Test func uniqueViolationLeavesStoreUnchangedAndKeepsChanges() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()

        let first = HandWrittenPerson(name: "First", age: 1)
        let clash = HandWrittenPerson(name: "Clash", age: 2)
        clash.identifier = ann.identifier
        context.insert(first)
        context.insert(clash)
        ann.age = 99
        let error = expectError(.constraintViolation) { try context.save() }
        #expect(error?.message.contains("UNIQUE") == true)
        #expect(error?.sql?.hasPrefix("INSERT INTO \"Person\"") == true)

        // Nothing half-written reached the store.
        let observer = stack.newContext()
        #expect(try HandWrittenPerson.count(in: observer) == 1)
        #expect(try HandWrittenPerson.findAll(in: observer).first?.age == 31)
        // The context still holds every change, without row ids.
        #expect(context.hasChanges)
        #expect(first.recordID == nil && clash.recordID == nil)
        #expect(context.insertedObjects.count == 2)
        #expect(ann.age == 99)

        clash.identifier = UUID()
        try context.save()
        #expect(try HandWrittenPerson.count(in: observer) == 3)
        #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann", in: stack.newContext())?.age == 99)
        #expect(first.recordID != nil && clash.recordID != nil)
    }

    @Test func validationFailureAbortsTheSave() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        ann.rejectName = "Ann"
        context.insert(ann)
        let (_, statements) = stack.recordingSQL {
            expectError(.validationFailed) { try context.save() }
        }
        #expect(statements.isEmpty, "validation runs before anything is written")
        ann.rejectName = nil
        try context.save()
        #expect(try HandWrittenPerson.count(in: context) == 1)
    }

    @Test func unstorableValueIsAValidationError() throws {
        final class Measure: Entity {
            var recordState = RecordState()
            var value = 0.0
            static let attributes = [AttributeDescription("value", type: .double)]
            init() {}
            init(row: Row) throws { value = try row.decode(Double.self, at: 0) }
            func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(value) }
            func decodeAttribute(at index: Int, from row: Row) throws { value = try row.decode(Double.self, at: 0) }
        }
        let stack = try RecordStack(inMemoryWith: [Measure.self])
        let context = stack.newContext()
        let measure = Measure()
        measure.value = .nan
        context.insert(measure)
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.message.contains("Measure.value") == true)
        #expect(try Measure.count(in: context) == 0)
    }

    @Test func deleteRunsOneStatement() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        context.delete(ann)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements == ["BEGIN IMMEDIATE TRANSACTION", "DELETE FROM \"Person\" WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?", "COMMIT TRANSACTION"])
    }

    @Test func manyDeletesRunInBatches() throws {
        for index in 0..<1_200 { context.insert(HandWrittenPerson(name: "P\(index)", age: index)) }
        context.insert(HandWrittenNote(text: "kept"))
        try context.save()
        for person in try HandWrittenPerson.findAll(in: context) { context.delete(person) }
        let (_, statements) = try stack.recordingSQL { try context.save() }
        let deletes = statements.filter { $0.hasPrefix("DELETE") }
        #expect(deletes.count == 3, "500 + 500 + 200")
        #expect(try HandWrittenPerson.count(in: stack.newContext()) == 0)
        #expect(try HandWrittenNote.count(in: stack.newContext()) == 1)
    }

    @Test func deleteFreesAUniqueValueForAnInsertInTheSameSave() throws {
        let ann = HandWrittenPerson(name: "Ann", age: 31)
        context.insert(ann)
        try context.save()
        let replacement = HandWrittenPerson(name: "Ann 2", age: 32)
        replacement.identifier = ann.identifier
        context.delete(ann)
        context.insert(replacement)
        try context.save()
        #expect(try HandWrittenPerson.findAll(in: stack.newContext()).map(\.name) == ["Ann 2"])
    }
}
