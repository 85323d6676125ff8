import Foundation
import Testing
import LiteRecord

/// `recordVersion`: the stored row's version an object's values are based
/// on, which an HTTP service sends as the ETag (Examples/Bookmarks).
@Suite struct RecordVersionTests {
    @Test func nilUntilSavedThenTwoThenOneMorePerSave() throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let context = stack.newContext()
        let ann = MacroPerson(name: "Ann", age: 31)
        #expect(ann.recordVersion == nil)
        context.insert(ann)
        #expect(ann.recordVersion == nil, "inserted, not saved")
        try context.save()
        #expect(ann.recordVersion == 2)
        ann.age = 32
        #expect(ann.recordVersion == 2, "an unsaved change keeps the version it is based on")
        try context.save()
        #expect(ann.recordVersion == 3)
        try context.save()
        #expect(ann.recordVersion == 3, "a save without changes moves nothing")
        context.delete(ann)
        try context.save()
        #expect(ann.recordVersion == nil, "deleted and saved")
    }

    @Test func anotherContextSeesTheVersionAnotherWroteAndWriteComparesIt() async throws {
        let stack = try RecordStack(inMemoryWith: [MacroPerson.self])
        let id = try await stack.write { context in
            let ann = MacroPerson(name: "Ann", age: 31)
            context.insert(ann)
            try context.save()
            return try #require(ann.recordID)
        }
        let reader = stack.newContext()
        let stale = try #require(try reader.object(with: id, as: MacroPerson.self))
        #expect(stale.recordVersion == 2)
        let written = try await stack.write { context in
            let ann = try #require(try context.object(with: id, as: MacroPerson.self))
            ann.age = 40
            try context.save()
            return ann.recordVersion
        }
        #expect(written == 3)
        // The reader's object keeps the version it read until it is fetched again.
        #expect(stale.recordVersion == 2)
        let fresh = try #require(try MacroPerson.findAll(in: reader).first)
        #expect(fresh.recordVersion == 3)
        let seen = try await stack.read { context in
            try MacroPerson.findAll(in: context).first?.recordVersion
        }
        #expect(seen == 3)
    }
}
