import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

/// The entity conveniences without `in:` — the default stack's main context —
/// each test on its own in-memory stack through LiteRecordTesting's trait.
@Suite(.inMemoryStack(entities: [MacroPerson.self]))
@MainActor struct MainContextConvenienceTests {
    @Test func createSaveFindCountDelete() throws {
        let ann = MacroPerson(name: "Ann", age: 31)
        try ann.save()
        let created = try MacroPerson.create()
        created.name = "Bob"
        try RecordStack.mainContext.save()

        #expect(try MacroPerson.count() == 2)
        #expect(try MacroPerson.findAll(sortedBy: "name", ascending: false).map(\.name) == ["Bob", "Ann"])
        #expect(try MacroPerson.findFirst(byAttribute: "name", withValue: "Ann") === ann)
        #expect(try MacroPerson.find(byAttribute: "age", withValue: 31).map(\.name) == ["Ann"])

        try ann.delete()
        try ann.save()
        #expect(try MacroPerson.findAll().map(\.name) == ["Bob"])
        #expect(try MacroPerson.truncateAll() == 1)
        #expect(try MacroPerson.count() == 0)
    }

    @Test func savingUnchangedObjectsRunsNothing() throws {
        let ann = MacroPerson(name: "Ann", age: 31)
        let (_, insert) = try recordingSQL { try ann.save() }
        #expect(insert.filter { $0.hasPrefix("INSERT") && !$0.contains(StoreFormatNames.recordIDTable) }.count == 1)
        let (_, nothing) = try recordingSQL { try ann.save() }
        #expect(nothing.isEmpty)
        ann.age = 31
        let (_, sameValue) = try recordingSQL { try ann.save() }
        #expect(sameValue.isEmpty, "assigning the current value changes nothing")
        ann.age = 32
        let (_, update) = try recordingSQL { try ann.save() }
        #expect(
            update == ["BEGIN IMMEDIATE TRANSACTION", "UPDATE \"Person\" SET \"age\" = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?", "COMMIT TRANSACTION"])
    }

    @Test func eachTestStartsEmpty() throws {
        #expect(try MacroPerson.count() == 0)
        try MacroPerson(name: "Only here", age: 1).save()
    }

    @Test func setupInsideTheTraitActsOnTheTestsOwnSlot() throws {
        expectError(.alreadySetUp) { try RecordStack.setupInMemory(entities: [MacroPerson.self]) }
        try RecordStack.cleanUp()
        expectError(.notSetUp) { try MacroPerson.count() }
        try RecordStack.setupInMemory(entities: [MacroPerson.self])
        #expect(try MacroPerson.count() == 0)
    }
}

@Suite struct TemporaryStoreReopenTests {
    @Test(.temporaryStore(entities: [MacroPerson.self]))
    func survivesReopen() async throws {
        let url = try #require(try RecordStack.current().storeURL)
        try await RecordStack.write { context in context.insert(MacroPerson(name: "Kept", age: 9)) }
        try RecordStack.cleanUp()
        try RecordStack.setup(storeAt: url, entities: [MacroPerson.self])
        let names = try await RecordStack.read { context in try MacroPerson.findAll(in: context).map(\.name) }
        #expect(names == ["Kept"])
    }
}
