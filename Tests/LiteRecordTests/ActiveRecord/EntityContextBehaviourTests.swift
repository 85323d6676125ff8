import Foundation
import LiteRecord
import Testing

/// What both person entities offer, so one test body runs against both.
protocol PersonRecord: Entity {
    var identifier: UUID { get set }
    var name: String { get set }
    var age: Int { get set }
    var email: String? { get set }
    var awakeCount: Int { get }
    var rejectName: String? { get set }
    init(name: String, age: Int, email: String?)
}

extension HandWrittenPerson: PersonRecord {}
extension MacroPerson: PersonRecord {}

/// The context behaviours the hand-written entity has, checked for an
/// `@Entity` class too: the macro's change tracking must be as exact as the
/// snapshot comparison.
@Suite struct EntityContextBehaviourTests {
    static let personTypes: [any PersonRecord.Type] = [HandWrittenPerson.self, MacroPerson.self]

    @Test(arguments: personTypes)
    func insertSaveAndFetch(_ type: any PersonRecord.Type) throws {
        try checkInsertSaveAndFetch(type)
    }

    private func checkInsertSaveAndFetch<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: "ann@example.com")
        context.insert(ann)
        #expect(ann.awakeCount == 1)
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        #expect(ann.recordID?.entityName == "Person")

        let other = stack.newContext()
        let found = try #require(try T.findFirst(byAttribute: "name", withValue: "Ann", in: other))
        #expect(found !== ann)
        #expect(found.identifier == ann.identifier)
        #expect(found.age == 31)
        #expect(found.email == "ann@example.com")
        #expect(found.awakeCount == 0)
        #expect(!other.hasChanges)
    }

    @Test(arguments: personTypes)
    func savingAnUnchangedObjectRunsNoSQL(_ type: any PersonRecord.Type) throws {
        try checkSavingAnUnchangedObjectRunsNoSQL(type)
    }

    private func checkSavingAnUnchangedObjectRunsNoSQL<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        context.insert(T(name: "Ann", age: 31, email: nil))
        try context.save()
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.isEmpty)

        let other = stack.newContext()
        _ = try T.findAll(in: other)
        let (_, afterFetch) = try stack.recordingSQL { try other.save() }
        #expect(afterFetch.isEmpty)
    }

    @Test(arguments: personTypes)
    func changingOnePropertyUpdatesJustThatColumn(_ type: any PersonRecord.Type) throws {
        try checkChangingOnePropertyUpdatesJustThatColumn(type)
    }

    private func checkChangingOnePropertyUpdatesJustThatColumn<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        context.insert(T(name: "Ann", age: 31, email: nil))
        try context.save()

        // A context that did not insert the object: it must learn of the change
        // from the setter (or the snapshot), not from the insertion.
        let fetchedContext = stack.newContext()
        let fetched = try #require(try T.findAll(in: fetchedContext).first)
        fetched.age = 32
        #expect(fetchedContext.hasChanges)
        #expect(fetchedContext.updatedObjects.count == 1)
        let (_, statements) = try stack.recordingSQL { try fetchedContext.save() }
        let writes = statements.filter { !$0.hasPrefix("BEGIN") && !$0.hasPrefix("COMMIT") }
        #expect(writes == [#"UPDATE "Person" SET "age" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? AND "Z_OPT" = ?"#])
        #expect(!fetchedContext.hasChanges)

        let reread = try #require(try T.findAll(in: stack.newContext()).first)
        #expect(reread.age == 32)
        #expect(reread.name == "Ann")
    }

    @Test(arguments: personTypes)
    func settingTheCurrentValueIsNoChange(_ type: any PersonRecord.Type) throws {
        try checkSettingTheCurrentValueIsNoChange(type)
    }

    private func checkSettingTheCurrentValueIsNoChange<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: nil)
        context.insert(ann)
        try context.save()

        ann.name = "Ann"
        ann.age = 31
        ann.email = nil
        #expect(!context.hasChanges)
        #expect(context.updatedObjects.isEmpty)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.isEmpty)
    }

    @Test(arguments: personTypes)
    func assignmentsInAnInitializerAreNotUpdates(_ type: any PersonRecord.Type) throws {
        try checkAssignmentsInAnInitializerAreNotUpdates(type)
    }

    private func checkAssignmentsInAnInitializerAreNotUpdates<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        // The initializer assigns name, age and email after their defaults.
        let ann = T(name: "Ann", age: 31, email: "ann@example.com")
        context.insert(ann)
        #expect(context.updatedObjects.isEmpty)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("INSERT") && !$0.contains("literecord_record_ids") }.count == 1)
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.isEmpty)
        #expect(!context.hasChanges)
        let (_, again) = try stack.recordingSQL { try context.save() }
        #expect(again.isEmpty)
    }

    @Test(arguments: personTypes)
    func changesBeforeTheFirstSaveAreInsertedNotUpdated(_ type: any PersonRecord.Type) throws {
        try checkChangesBeforeTheFirstSaveAreInsertedNotUpdated(type)
    }

    private func checkChangesBeforeTheFirstSaveAreInsertedNotUpdated<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: nil)
        context.insert(ann)
        ann.age = 40
        #expect(context.updatedObjects.isEmpty)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE") }.isEmpty)
        #expect(try T.findAll(in: stack.newContext()).first?.age == 40)
    }

    @Test(arguments: personTypes)
    func rollbackRestoresStoredValues(_ type: any PersonRecord.Type) throws {
        try checkRollbackRestoresStoredValues(type)
    }

    private func checkRollbackRestoresStoredValues<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: nil)
        context.insert(ann)
        try context.save()

        ann.name = "typo"
        ann.email = "x@example.com"
        #expect(context.hasChanges)
        context.rollback()
        #expect(ann.name == "Ann")
        #expect(ann.email == nil)
        #expect(!context.hasChanges)
        // Restoring from the store is not itself a change.
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.isEmpty)
    }

    @Test(arguments: personTypes)
    func failedValidationKeepsTheChanges(_ type: any PersonRecord.Type) throws {
        try checkFailedValidationKeepsTheChanges(type)
    }

    private func checkFailedValidationKeepsTheChanges<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: nil)
        ann.rejectName = "Bad"
        context.insert(ann)
        try context.save()

        ann.name = "Bad"
        let error = #expect(throws: LiteRecordError.self) { try context.save() }
        #expect(error?.kind == .validationFailed)
        #expect(context.hasChanges)
        ann.name = "Good"
        try context.save()
        #expect(try T.findAll(in: stack.newContext()).first?.name == "Good")
    }

    @Test(arguments: personTypes)
    func uniqueAttributeIsEnforced(_ type: any PersonRecord.Type) throws {
        try checkUniqueAttributeIsEnforced(type)
    }

    private func checkUniqueAttributeIsEnforced<T: PersonRecord>(_: T.Type) throws {
        let stack = try RecordStack(inMemoryWith: [T.self])
        let context = stack.newContext()
        let ann = T(name: "Ann", age: 31, email: nil)
        let twin = T(name: "Twin", age: 31, email: nil)
        twin.identifier = ann.identifier
        context.insert(ann)
        context.insert(twin)
        let error = #expect(throws: LiteRecordError.self) { try context.save() }
        #expect(error?.kind == .constraintViolation)
    }

    @Test func macroAndHandWrittenEntitiesDescribeTheSameSchema() throws {
        let handWritten = try Model(entities: [HandWrittenPerson.self])
        let macro = try Model(entities: [MacroPerson.self])
        #expect(handWritten.fingerprint == macro.fingerprint)
    }

    @Test func aStoreWrittenByTheHandWrittenEntityReadsWithTheMacroOne() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appending(path: "People.sqlite")
            let writer = try RecordStack(storeAt: url, entities: [HandWrittenPerson.self])
            let context = writer.newContext()
            let ann = HandWrittenPerson(name: "Ann", age: 31, email: "ann@example.com")
            context.insert(ann)
            try context.save()
            try writer.close()

            let reader = try RecordStack(storeAt: url, entities: [MacroPerson.self])
            defer { try? reader.close() }
            let found = try #require(try MacroPerson.findAll(in: reader.newContext()).first)
            #expect(found.identifier == ann.identifier)
            #expect(found.name == "Ann")
            #expect(found.email == "ann@example.com")
        }
    }

    @Test func keyPathsMapToAttributeIndexes() {
        #expect(MacroPerson.attributeIndex(for: \MacroPerson.identifier) == 0)
        #expect(MacroPerson.attributeIndex(for: \MacroPerson.email) == 3)
        #expect(MacroPerson.attributeIndex(for: \MacroPerson.awakeCount) == nil)
    }

    @Test func createWorksForEntitiesWithDefaults() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self, PublicNote.self, AllTypes.self])
        let context = stack.newContext()
        let person = MacroPerson.create(in: context)
        person.name = "Created"
        let note = PublicNote.create(in: context)
        note.title = "First"
        note.revise("Hello")
        _ = AllTypes.create(in: context)
        try context.save()
        #expect(try MacroPerson.count(in: stack.newContext()) == 1)
        let storedNote = try #require(try PublicNote.findAll(in: stack.newContext()).first)
        #expect(storedNote.body == "Hello")
        #expect(storedNote.revision == 1)
        #expect(PublicNote.entityName == "Note")
        #expect(PublicNote.entityOriginalName == "Memo")
        #expect(PublicNote.attributes.first?.options == [.unique, .indexed])
        #expect(PublicNote.attributes.first { $0.name == "createdAt" }?.originalName == "created")
    }

    @Test func nonEquatableCodableValuesCountAsChangedOnEveryAssignment() throws {
        let stack = try RecordStack(inMemoryWith: [AllTypes.self])
        let context = stack.newContext()
        let object = AllTypes()
        context.insert(object)
        try context.save()

        object.settings = object.settings
        #expect(context.hasChanges)
        let (_, statements) = try stack.recordingSQL { try context.save() }
        #expect(statements.filter { $0.hasPrefix("UPDATE") } == [#"UPDATE "AllTypes" SET "settings" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? AND "Z_OPT" = ?"#])
    }

    @Test func theDocumentedEntityWorks() throws {
        let stack = try RecordStack(inMemoryWith: [APIExamplePerson.self])
        let context = stack.newContext()
        let ann = APIExamplePerson(name: "Ann", age: 31)
        let identifierBeforeInsert = ann.identifier
        ann.scratch = 99
        context.insert(ann)
        #expect(ann.identifier != identifierBeforeInsert)
        ann.tags = ["friend"]
        try context.save()

        let created = APIExamplePerson.create(in: context)
        created.name = "Bob"
        try context.save()

        let other = stack.newContext()
        let found = try #require(try APIExamplePerson.findFirst(byAttribute: "name", withValue: "Ann", in: other))
        #expect(found.identifier == ann.identifier)
        #expect(found.tags == ["friend"])
        #expect(found.createdAt == ann.createdAt)
        #expect(found.scratch == 0)
        #expect(try APIExamplePerson.count(in: other) == 2)
        #expect(APIExamplePerson.attributes.map(\.name) == ["identifier", "name", "age", "email", "createdAt", "tags"])
    }
}
