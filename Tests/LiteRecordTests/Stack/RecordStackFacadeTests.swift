import Foundation
import LiteRecordTesting
import Testing
import LiteRecord

/// The static facade. Every test runs in its own task-local default slot
/// (`RecordStack.withDefault(nil)`), so they can run in parallel.
@Suite(.tags(.threads)) struct RecordStackFacadeTests {
    @Test @MainActor func setupInMemoryThenConveniences() throws {
        try RecordStack.withDefault(nil) {
            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
            defer { try? RecordStack.cleanUp() }
            let ann = HandWrittenPerson(name: "Ann", age: 31)
            try ann.save()
            #expect(try HandWrittenPerson.count() == 1)
            #expect(try HandWrittenPerson.findFirst(byAttribute: "name", withValue: "Ann") === ann)
            #expect(try HandWrittenPerson.find(byAttribute: "age", withValue: 31).count == 1)
            #expect(RecordStack.mainContext === ann.context)
            let note = try HandWrittenPerson.create()
            note.name = "Created"
            try RecordStack.mainContext.save()
            #expect(try HandWrittenPerson.findAll(sortedBy: "name", ascending: false).map(\.name) == ["Created", "Ann"])
            try ann.delete()
            try ann.save()
            #expect(try HandWrittenPerson.findAll().map(\.name) == ["Created"])
            #expect(try HandWrittenPerson.truncateAll() == 1)
            #expect(try HandWrittenPerson.count() == 0)
        }
    }

    @Test func settingUpTwiceThrowsAlreadySetUp() throws {
        let folder = try TemporaryDirectory()
        try RecordStack.withDefault(nil) {
            try RecordStack.setup(storeAt: folder.file("a.sqlite"), entities: [HandWrittenPerson.self])
            defer { try? RecordStack.cleanUp() }
            let error = expectError(.alreadySetUp) {
                try RecordStack.setup(storeAt: folder.file("b.sqlite"), entities: [HandWrittenPerson.self])
            }
            #expect(error?.message.contains("a.sqlite") == true, "names the store already open")
            expectError(.alreadySetUp) { try RecordStack.setupInMemory(entities: [HandWrittenPerson.self]) }
            // The first store is still the default one.
            #expect(try RecordStack.current().storeURL?.lastPathComponent == "a.sqlite")
            #expect(!FileManager.default.fileExists(atPath: folder.file("b.sqlite").path))
        }
    }

    @Test @MainActor func conveniencesBeforeSetupThrowNotSetUp() throws {
        RecordStack.withDefault(nil) {
            let error = expectError(.notSetUp) { try HandWrittenPerson.findAll() }
            #expect(error?.message.contains("RecordStack.setup") == true)
            expectError(.notSetUp) { try HandWrittenPerson.count() }
            expectError(.notSetUp) { try RecordStack.current() }
            // The main context placeholder fails at the first use, not with a crash.
            let context = RecordStack.mainContext
            context.insert(HandWrittenPerson(name: "x", age: 1))
            expectError(.notSetUp) { try context.save() }
        }
    }

    @Test @MainActor func conveniencesAfterCleanUpThrowNotSetUp() throws {
        try RecordStack.withDefault(nil) {
            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
            #expect(try HandWrittenPerson.count() == 0)
            try RecordStack.cleanUp()
            #expect(!RecordStack.isSetUp)
            let error = expectError(.notSetUp) { try HandWrittenPerson.findAll() }
            #expect(error?.message.contains("cleanUp") == true)
            // cleanUp twice is harmless, and setup works again afterwards.
            try RecordStack.cleanUp()
            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
            #expect(try HandWrittenPerson.count() == 0)
            try RecordStack.cleanUp()
        }
    }

    @Test func setupWithMismatchedModelThrowsAndStaysNotSetUp() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("p.sqlite")
        try RecordStack(storeAt: url, entities: [HandWrittenPerson.self]).close()
        try RecordStack.withDefault(nil) {
            expectError(.modelMismatch) { try RecordStack.setup(storeAt: url, entities: [HandWrittenPersonV2.self]) }
            #expect(!RecordStack.isSetUp)
            try RecordStack.setup(storeAt: url, entities: [HandWrittenPersonV2.self], onModelMismatch: .moveAsideAndRecreate)
            try RecordStack.cleanUp()
        }
    }

    @Test func setupByNameUsesTheLocatorAndAddsSqlite() throws {
        let folder = try TemporaryDirectory()
        let locator = StoreLocator(
            applicationName: "FacadeApp", documentsDirectory: folder.file("Documents"),
            applicationSupportDirectory: folder.file("Support"))
        let expected = folder.file("Support/FacadeApp/Notes.sqlite")
        #expect(locator.url(forStoreNamed: "Notes") == expected)
        try RecordStack.withDefault(nil) {
            // The locator belongs to this scope's slot: other tests don't see it.
            RecordStack.locator = locator
            #expect(RecordStack.storeURL(forStoreNamed: "Notes") == expected)
            try RecordStack.setup(storeNamed: "Notes", entities: [HandWrittenPerson.self])
            try RecordStack.cleanUp()
            #expect(FileManager.default.fileExists(atPath: expected.path))
            try RecordStack.setup(entities: [HandWrittenPerson.self])
            try RecordStack.cleanUp()
            #expect(FileManager.default.fileExists(atPath: folder.file("Support/FacadeApp/FacadeApp.sqlite").path))
        }
        #expect(RecordStack.locator.applicationName != "FacadeApp", "the global locator is untouched")
    }

    @Test func concurrentSetupAndCleanUpNeverRace() async throws {
        await RecordStack.withDefault(nil) {
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        do {
                            try RecordStack.setupInMemory(entities: [HandWrittenPerson.self])
                            return "setup"
                        } catch let error as LiteRecordError {
                            return error.kind == .alreadySetUp ? "already" : "other: \(error)"
                        } catch {
                            return "other: \(error)"
                        }
                    }
                }
                var outcomes: [String] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == "setup" }.count == 1)
            #expect(outcomes.filter { $0 == "already" }.count == 15)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try? RecordStack.cleanUp() } }
            }
            #expect(!RecordStack.isSetUp)
        }
    }

    @Test func taskLocalDefaultsAreIsolated() async throws {
        let a = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let b = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        try await RecordStack.withDefault(a) { () async throws in
            #expect(try RecordStack.current() === a)
            try await RecordStack.withDefault(b) { () async throws in
                #expect(try RecordStack.current() === b)
                let inner = try await Task { try RecordStack.current() }.value
                #expect(inner === b, "child tasks inherit the scope")
            }
            #expect(try RecordStack.current() === a)
        }
    }

    @Test func writeAndReadThroughTheFacade() async throws {
        try await RecordStack.withDefault(try RecordStack(inMemoryWith: [HandWrittenPerson.self])) {
            let id = try await RecordStack.write { context in
                let bob = HandWrittenPerson.create(in: context)
                bob.name = "Bob"
                try context.save()
                return bob.recordID
            }
            #expect(id != nil)
            let count = try await RecordStack.read { context in try HandWrittenPerson.count(in: context) }
            #expect(count == 1)
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await RecordStack.write { context in
                    context.insert(HandWrittenPerson(name: "Never", age: 0))
                    try context.save()
                    throw Boom()
                }
            }
            let after = try await RecordStack.read { context in try HandWrittenPerson.count(in: context) }
            #expect(after == 1, "a throw inside write rolls everything back")
        }
    }

    @Test @MainActor func writeIsMergedIntoTheMainContext() async throws {
        try await RecordStack.withDefault(try RecordStack(inMemoryWith: [HandWrittenPerson.self])) {
            let ann = HandWrittenPerson(name: "Ann", age: 31)
            try ann.save()
            let id = try #require(ann.recordID)
            try await RecordStack.write { context in
                let mine = try context.object(with: id, as: HandWrittenPerson.self)
                mine?.age = 40
            }
            #expect(ann.age == 40)
            try await RecordStack.write { context in
                if let mine = try context.object(with: id, as: HandWrittenPerson.self) { context.delete(mine) }
            }
            #expect(ann.context == nil)
            #expect(try HandWrittenPerson.findAll().isEmpty)
        }
    }

    /// A `Task.detached` in a trait-scoped test is outside the test's default
    /// stack (task-locals are not inherited); the facade's `.notSetUp` says so.
    @Test(.inMemoryStack(entities: [HandWrittenPerson.self]))
    func aDetachedTaskIsToldWhyItHasNoStack() async throws {
        #expect(RecordStack.isSetUp)
        let message = await Task.detached { () -> String? in
            do {
                _ = try RecordStack.current()
                return nil  // another test set up the process-wide default meanwhile
            } catch let error as LiteRecordError {
                return error.message
            } catch {
                return "\(error)"
            }
        }.value
        guard let message else { return }
        #expect(message.contains("Task.detached"))
        #expect(message.contains(".inMemoryStack"))
    }

    @Test(.inMemoryStack(entities: [HandWrittenPerson.self]))
    func aChildTaskSeesTheStack() async throws {
        let seen = await Task { RecordStack.isSetUp }.value
        #expect(seen)
    }
}
