import Foundation
import Testing
import LiteRecord

/// What the automatic merge into the main context after `write {}` does with
/// the main context's unsaved edits (`Docs/Concurrency.md`, "Conflicts"): it
/// never settles a conflict itself.
@Suite struct MainContextMergeConflictTests {
    @MainActor private func saved(_ stack: RecordStack) throws -> (MacroPerson, RecordID) {
        let ann = MacroPerson(name: "Ann", age: 31)
        stack.mainContext.insert(ann)
        try stack.mainContext.save()
        return (ann, try #require(ann.recordID))
    }

    private func stored(_ stack: RecordStack) throws -> MacroPerson {
        try #require(try MacroPerson.findAll(in: stack.newContext()).first)
    }

    @Test @MainActor func sameProperty_theMainSaveMeetsTheConflict() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let (ann, id) = try saved(stack)
        ann.age = 50  // unsaved in the main context
        try await stack.write { context in
            let mine = try context.object(with: id, as: MacroPerson.self)
            mine?.age = 40
            mine?.name = "Anna"
        }
        #expect(ann.age == 50, "the merge keeps the unsaved edit")
        #expect(ann.name == "Anna", "and brings the write's other change")
        let error = try #require(throws: LiteRecordError.self) { try main.save() }
        #expect(error.kind == .conflict && error.message.contains("age"))
        #expect(try stored(stack).age == 40, "the write's value was not overwritten silently")

        try main.refresh(ann, mergeChanges: true)
        try main.save()
        #expect(try stored(stack).age == 50, "resolved: the main context's edit, on purpose")
    }

    @Test @MainActor func sameProperty_objectTrumpsWritesTheMainEdit() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        main.mergePolicy = .objectTrumps
        let (ann, id) = try saved(stack)
        ann.age = 50
        try await stack.write { context in
            let mine = try context.object(with: id, as: MacroPerson.self)
            mine?.age = 40
            mine?.name = "Anna"
        }
        try main.save()
        let row = try stored(stack)
        #expect(row.age == 50 && row.name == "Anna")
    }

    @Test @MainActor func sameProperty_storeTrumpsKeepsTheWrite() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let (ann, id) = try saved(stack)
        ann.age = 50
        ann.email = "ann@example.com"
        try await stack.write { context in
            try context.object(with: id, as: MacroPerson.self)?.age = 40
        }
        try main.save()
        let row = try stored(stack)
        #expect(row.age == 40 && row.email == "ann@example.com")
        #expect(ann.age == 40)
    }

    /// A merge that brings a value the main context had not changed moves
    /// the object's version on: that value is the one it reads now, which a
    /// later conflict under `.storeTrumps` compares with the store's (model
    /// seed 230644 at length 80: compared with the value before the merge,
    /// the property set here afterwards was taken for one the store changed).
    @Test @MainActor func storeTrumpsComparesWithTheValueTheMergeBrought() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        main.mergePolicy = .storeTrumps
        let (ann, id) = try saved(stack)
        ann.age = 50
        try await stack.write { context in try context.object(with: id, as: MacroPerson.self)?.name = "Anna" }
        try await stack.write { context in try context.object(with: id, as: MacroPerson.self)?.age = 40 }
        ann.name = "Annie"
        try main.save()
        let row = try stored(stack)
        #expect(row.name == "Annie", "changed only here since the merge: written")
        #expect(row.age == 40, "changed here and in the store: the store's value")
    }

    @Test @MainActor func otherProperty_noConflict() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let (ann, id) = try saved(stack)
        ann.name = "Annie"
        try await stack.write { context in
            let mine = try context.object(with: id, as: MacroPerson.self)
            mine?.age = 40
            try context.save()
            mine?.age = 41  // two saves: two versions
        }
        #expect(ann.age == 41)
        try main.save()
        let row = try stored(stack)
        #expect(row.name == "Annie" && row.age == 41)
    }

    @Test @MainActor func unsavedEditAfterTheMergeIsNoConflict() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let (ann, id) = try saved(stack)
        try await stack.write { context in
            try context.object(with: id, as: MacroPerson.self)?.age = 40
        }
        ann.age = 60  // edited after the merge brought version 2
        try main.save()
        ann.age = 61
        try main.save()
        #expect(try stored(stack).age == 61)
    }

    @Test @MainActor func deletedByTheWriteWhileEditedHere() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let main = stack.mainContext
        let (ann, id) = try saved(stack)
        ann.age = 50
        try await stack.write { context in
            if let mine = try context.object(with: id, as: MacroPerson.self) { context.delete(mine) }
        }
        #expect(ann.context === main, "kept with its edit until the main context decides")
        let error = try #require(throws: LiteRecordError.self) { try main.save() }
        #expect(error.kind == .conflict && error.message.contains("deleted in the store"))
        main.rollback()
        #expect(ann.context == nil)
        #expect(!main.hasChanges)
    }
}
