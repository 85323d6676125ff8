import Foundation
import Synchronization
import Testing
@testable import LiteRecord

// A migration never deletes stored data because an entity or an
// attribute is missing from the model, unless a MigrationPlan declares it.

/// Base.Person without `nick`: a forgotten (or removed) attribute.
private enum WithoutNick {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [attr("name", .string, [.unique]), attr("age", .int, [.indexed]), attr("score", .double)]
        }
    }

    /// The same, renamed to Human: a declaration may use either name.
    final class Human: Versioned {
        static let entityOriginalName: String? = "Person"
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { Person.attributes }
    }
}

/// Everything the store holds, table by table, for comparing a kept copy.
private func contents(of url: URL, _ tables: [String: [String]]) throws -> [String: [[SQLValue]]] {
    let connection = try Connection(path: url.path)
    defer { connection.close() }
    var result: [String: [[SQLValue]]] = [:]
    for (table, columns) in tables { result[table] = try connection.values(table, columns) }
    return result
}

private let personColumns = ["name", "age", "nick", "score"]
private let noteColumns = ["title", "body"]

@Suite("Migration: removing entities and attributes")
struct MigrationRemovalTests {
    // MARK: Refused without a declaration

    @Test func aForgottenEntityWithRecordsIsRefusedAndTheFileIsByteIdentical() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let error = #expect(throws: LiteRecordError.self) { try store.open([Base.Person.self]) }
        #expect(error?.kind == .migrationFailed)
        #expect(error?.message.contains("Note: entity is not in the model, but its table holds 2 record(s)") == true)
        #expect(error?.message.contains(#"declare it with let plan = MigrationPlan().removeEntity("Note") and open with setupAutoMigrating(…, plan: plan)"#) == true)
        #expect(error?.message.hasSuffix("The store was left untouched.") == true)
        #expect(try store.bytes() == bytes)
        #expect(try store.files() == ["Store.sqlite"])
    }

    @Test func aForgottenAttributeWithValuesIsRefusedAndTheFileIsByteIdentical() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let error = #expect(throws: LiteRecordError.self) { try store.open([WithoutNick.Person.self]) }
        #expect(error?.kind == .migrationFailed)
        // Bob has no nick: only the two values that would be lost count.
        #expect(error?.message.contains("Person: attribute 'nick' is not in the model, but 2 stored record(s) hold a value for it") == true)
        #expect(error?.message.contains(#"MigrationPlan().removeAttribute("nick", of: "Person")"#) == true)
        #expect(try store.bytes() == bytes)
        #expect(try store.files() == ["Store.sqlite"])
    }

    @Test func everyRemovalIsNamedInOneError() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let error = #expect(throws: LiteRecordError.self) { try store.open([WithoutNick.Person.self]) }
        #expect(error?.message.contains("attribute 'nick'") == true)
        #expect(error?.message.contains("Note: entity") == true)
    }

    @Test func aPlanThatDeclaresSomethingElseDoesNotAllowIt() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        let plan = MigrationPlan().removeEntity("Person").removeAttribute("nick", of: "Note")
        let error = #expect(throws: LiteRecordError.self) { try store.open([WithoutNick.Person.self], plan: plan) }
        #expect(error?.kind == .migrationFailed)
        #expect(try store.bytes() == bytes)
    }

    @Test func theSetupThatListsFewerEntitiesKeepsEveryRow() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let before = try contents(of: store.url, ["Person": personColumns, "Note": noteColumns])
        try RecordStack.withDefault(nil) {
            let error = #expect(throws: LiteRecordError.self) {
                try RecordStack.setupAutoMigrating(storeAt: store.url, entities: [Base.Person.self])
            }
            #expect(error?.kind == .migrationFailed)
            #expect(!RecordStack.isSetUp)
            // The app notices and lists both again: nothing was lost.
            try RecordStack.setupAutoMigrating(storeAt: store.url, entities: [Base.Person.self, Base.Note.self])
            #expect(try RecordStack.lastMigrationReport == nil)
            try RecordStack.cleanUp()
        }
        #expect(try contents(of: store.url, ["Person": personColumns, "Note": noteColumns]) == before)
        #expect(before["Person"]?.count == 3 && before["Note"]?.count == 2)
    }

    @Test func thePlainSetupNamesTheDeclarationInsteadOfTheAutoMigratingSetup() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let error = #expect(throws: LiteRecordError.self) {
            try RecordStack(storeAt: store.url, entities: [WithoutNick.Person.self])
        }
        #expect(error?.kind == .modelMismatch)
        let message = error?.message ?? ""
        #expect(message.contains(#"MigrationPlan().removeAttribute("nick", of: "Person").removeEntity("Note")"#))
        #expect(message.contains("if one was left out by mistake, add it back"))
        #expect(!message.contains("Use setupAutoMigrating"))
    }

    // MARK: Declared

    @Test func aDeclaredEntityIsRemovedAndTheOldStoreIsKept() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let before = try contents(of: store.url, ["Person": personColumns, "Note": noteColumns])
        let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.droppedTables == ["Note"])
        #expect(report.actions.contains("removing entity Note with 2 record(s), as the MigrationPlan declares"))
        #expect(try stack.all(Base.Person.self).count == 3)
        try stack.close()
        #expect(try store.inspect { try $0.tableNames() } == ["Person", "literecord_metadata", "literecord_record_ids"])

        let copy = try #require(report.keptCopyURL)
        #expect(copy.deletingLastPathComponent().standardizedFileURL == store.folder.standardizedFileURL)
        #expect(copy.lastPathComponent.hasPrefix("Store.sqlite.pre-migration-"))
        #expect(PreMigrationCopies.kept(of: store.url).map(\.url.lastPathComponent) == [copy.lastPathComponent])
        #expect(report.description.contains("dropped Note"))
        #expect(report.description.contains("kept the old store at \(copy.path)"))
        // The copy is the old store, every row of it, and opens with the old model.
        #expect(try contents(of: copy, ["Person": personColumns, "Note": noteColumns]) == before)
        #expect(try store.files() == ["Store.sqlite", copy.lastPathComponent])
    }

    @Test func aDeclaredAttributeIsRemovedAndTheOldStoreIsKept() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let before = try contents(of: store.url, ["Person": personColumns])
        let stack = try store.open([WithoutNick.Person.self], plan: MigrationPlan().removeAttribute("nick", of: "Person"))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.droppedColumns == ["Person.nick"])
        #expect(report.description.contains("dropped column Person.nick"))
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person").map(\.name) } == ["Z_PK", "Z_OPT", "name", "age", "score"])
        let copy = try #require(report.keptCopyURL)
        #expect(try contents(of: copy, ["Person": personColumns]) == before)
        let old = try RecordStack(storeAt: copy, entities: [Base.Person.self])
        #expect(try old.all(Base.Person.self).map { $0["nick"] } == [.text("annie"), .null, .text("c")])
        try old.close()
    }

    @Test func anAttributeOfARenamedEntityMayBeDeclaredUnderEitherName() throws {
        for entityName in ["Person", "Human"] {
            let store = try Base.store()
            defer { store.cleanUp() }
            let stack = try store.open([WithoutNick.Human.self], plan: MigrationPlan().removeAttribute("nick", of: entityName))
            #expect(stack.lastMigrationReport?.droppedColumns == ["Human.nick"])
            #expect(stack.lastMigrationReport?.keptCopyURL != nil)
            try stack.close()
        }
    }

    @Test func anEmptyDeclarationIsRefused() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let bytes = try store.bytes()
        for plan in [MigrationPlan().removeEntity(""), MigrationPlan().removeAttribute("", of: "Person")] {
            let error = #expect(throws: LiteRecordError.self) { try store.open([Base.Person.self], plan: plan) }
            #expect(error?.kind == .migrationFailed)
            #expect(error?.message.contains("empty name") == true)
        }
        #expect(try store.bytes() == bytes)
    }

    // MARK: Nothing to lose

    @Test func anEmptyEntityIsRemovedWithoutADeclaration() throws {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try store.write([Base.Person.self, Base.Note.self], Base.people())
        let stack = try store.open([Base.Person.self])
        let report = try #require(stack.lastMigrationReport)
        #expect(report.droppedTables == ["Note"])
        #expect(report.actions.contains("removing entity Note, which holds no data"))
        // Anything removed, even empty, keeps the copy.
        #expect(report.keptCopyURL != nil)
        try stack.close()
        #expect(try store.inspect { try $0.tableExists("Note") } == false)
    }

    @Test func anAttributeHoldingOnlyNullsIsRemovedWithoutADeclaration() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("UPDATE Person SET nick = NULL") }
        let stack = try store.open([WithoutNick.Person.self])
        #expect(stack.lastMigrationReport?.droppedColumns == ["Person.nick"])
        #expect(try stack.all(WithoutNick.Person.self).count == 3)
        try stack.close()
        #expect(try store.inspect { try $0.columns("Person").map(\.name) } == ["Z_PK", "Z_OPT", "name", "age", "score"])
    }

    @Test func aMigrationThatRemovesNothingKeepsNoCopy() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        // A plan's declarations may outlive what they name: they do nothing then.
        let stack = try store.open([Base.Person.self, Base.Note.self, WithNote.Tag.self], plan: MigrationPlan().removeEntity("Gone"))
        let report = try #require(stack.lastMigrationReport)
        #expect(report.createdTables == ["Tag"])
        #expect(report.keptCopyURL == nil)
        try stack.close()
        #expect(try store.files() == ["Store.sqlite"])
    }

    // MARK: Rotation

    @Test func onlyTheNewestThreeKeptCopiesStay() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let folder = store.folder.path + "/"
        let oldest = ["20010101T000000Z", "20020101T000000Z", "20020101T000000Z-2"]
        // Not copies of this store (for copies left under a fingerprint name see
        // aCopyLeftUnderItsFingerprintNameIsRotatedByItsAge).
        let others = ["Other.sqlite.pre-migration-20000101T000000Z", "Store.sqlite.pre-migrationX", "notes.txt"]
        for name in oldest.map({ "Store.sqlite.pre-migration-" + $0 }) + others {
            #expect(FileManager.default.createFile(atPath: folder + name, contents: Data(name.utf8)))
        }
        let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
        let report = try #require(stack.lastMigrationReport)
        try stack.close()
        let kept = try #require(report.keptCopyURL)
        #expect(report.deletedCopies.map(\.lastPathComponent) == ["Store.sqlite.pre-migration-20010101T000000Z"])
        #expect(
            PreMigrationCopies.kept(of: store.url).map(\.url.lastPathComponent) == [
                kept.lastPathComponent, "Store.sqlite.pre-migration-20020101T000000Z-2", "Store.sqlite.pre-migration-20020101T000000Z",
            ])
        for name in others { #expect(FileManager.default.fileExists(atPath: folder + name)) }
    }

    /// A process that died after the migration committed and before its copy
    /// was removed or kept (or a failed migration) leaves
    /// `<store>.pre-migration-<fingerprint>`: the rotation counts it too, as
    /// old as its file. Before the fix it was never found and stayed forever.
    @Test(arguments: [false, true])
    func aCopyLeftUnderItsFingerprintNameIsRotatedByItsAge(leftoverIsOldest: Bool) throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        let folder = store.folder.path + "/"
        let stamped = ["20010101T000000Z", "20020101T000000Z", "20030101T000000Z"].map { "Store.sqlite.pre-migration-" + $0 }
        let leftover = "Store.sqlite.pre-migration-0123456789abcdef"
        // A real copy of the store, as VACUUM INTO would have left it, with a
        // companion file it may have grown.
        try FileManager.default.copyItem(atPath: store.url.path, toPath: folder + leftover)
        #expect(FileManager.default.createFile(atPath: folder + leftover + "-wal", contents: Data()))
        let leftoverAge = leftoverIsOldest ? "2000-06-01T00:00:00Z" : "2002-06-01T00:00:00Z"
        let leftoverDate = try #require(ISO8601DateFormatter().date(from: leftoverAge))
        try FileManager.default.setAttributes([.modificationDate: leftoverDate], ofItemAtPath: folder + leftover)
        for name in stamped { #expect(FileManager.default.createFile(atPath: folder + name, contents: Data(name.utf8))) }

        let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
        let report = try #require(stack.lastMigrationReport)
        try stack.close()
        let kept = try #require(report.keptCopyURL)

        // Newest first: the new copy, 2003, then (leftover or 2002), …; three stay.
        let expectedDeleted = leftoverIsOldest ? [stamped[0], leftover] : [stamped[1], stamped[0]]
        #expect(report.deletedCopies.map(\.lastPathComponent) == expectedDeleted)
        for name in expectedDeleted { #expect(!FileManager.default.fileExists(atPath: folder + name), "\(name)") }
        #expect(FileManager.default.fileExists(atPath: folder + leftover + "-wal") == !leftoverIsOldest, "its companion goes with it")
        let left = PreMigrationCopies.all(of: store.url).map(\.lastPathComponent)
        #expect(Set(left) == Set([kept.lastPathComponent, stamped[2], leftoverIsOldest ? stamped[1] : leftover]))
    }

    @Test func copiesKeptInTheSameSecondGetTheirOwnNames() throws {
        let store = try Base.store(withNotes: true)
        defer { store.cleanUp() }
        var kept: [URL] = []
        for _ in 0..<4 {
            // Notes come back (empty) and go again: each second open removes a table.
            try store.open([Base.Person.self, Base.Note.self]).close()
            let stack = try store.open([Base.Person.self], plan: MigrationPlan().removeEntity("Note"))
            kept.append(try #require(stack.lastMigrationReport?.keptCopyURL))
            try stack.close()
        }
        #expect(Set(kept).count == 4)
        let left = PreMigrationCopies.kept(of: store.url).map(\.url.path)
        #expect(left.count == 3)
        #expect(left.first == kept.last?.path)
        #expect(!left.contains(kept[0].path))
    }

    // MARK: The one-line setups and inspection

    @Test func theOneLineSetupRunsThePlanAndExposesItsReport() throws {
        let folder = try TemporaryDirectory()
        let locator = StoreLocator(
            applicationName: "RemovalApp", documentsDirectory: folder.file("Documents"),
            applicationSupportDirectory: folder.file("Support"))
        let url = locator.url(forStoreNamed: "Books")
        let store = TemporaryStoreAt(url: url)
        try store.write([Base.Person.self, Base.Note.self], Base.people() + Base.notes())
        let ran = StepRuns()
        let plan = MigrationPlan()
            .removeEntity("Note")
            .step("count-notes") { db in
                let count = try db.rows("SELECT COUNT(*) FROM Note").first?.first
                if count == .integer(2) { ran.increment() }
            }
        try RecordStack.withDefault(nil) {
            RecordStack.locator = locator
            try RecordStack.setupAutoMigrating(storeNamed: "Books", entities: [Base.Person.self], plan: plan)
            let report = try #require(try RecordStack.lastMigrationReport)
            #expect(report.droppedTables == ["Note"])
            #expect(report.customSteps == ["count-notes"])
            #expect(try RecordStack.current().storeURL?.standardizedFileURL == url.standardizedFileURL)
            let copy = try #require(report.keptCopyURL)
            #expect(FileManager.default.fileExists(atPath: copy.path))
            #expect(try StoreInspection(storeAt: url).preMigrationCopies.map(\.path) == [copy.path])
            try RecordStack.cleanUp()
            #expect(throws: LiteRecordError.self) { try RecordStack.lastMigrationReport }
        }
        #expect(ran.count == 1)
    }

    @Test func theStoreAtSetupTakesAPlanToo() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try RecordStack.withDefault(nil) {
            try RecordStack.setupAutoMigrating(
                storeAt: store.url, entities: [WithoutNick.Person.self], plan: MigrationPlan().removeAttribute("nick", of: "Person"))
            #expect(try RecordStack.lastMigrationReport?.droppedColumns == ["Person.nick"])
            #expect(try WithoutNick.Person.count(in: RecordStack.current().newContext()) == 3)
            try RecordStack.cleanUp()
        }
    }
}

/// A model that only adds an entity.
private enum WithNote {
    final class Tag: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] { [attr("label", .string)] }
    }
}

/// ``TemporaryStore``'s `write` for a store at a given URL (inside a
/// folder the test owns).
private struct TemporaryStoreAt {
    let url: URL

    func write(_ entities: [any Entity.Type], _ records: [any Entity]) throws {
        let stack = try RecordStack(storeAt: url, entities: entities)
        let context = stack.newContext()
        for record in records { context.insert(record) }
        try context.save()
        try stack.close()
    }
}

/// Counts how often a step saw what it expected, across `@Sendable` closures.
private final class StepRuns: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
