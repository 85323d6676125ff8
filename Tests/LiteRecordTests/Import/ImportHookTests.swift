import Foundation
import Testing
import LiteRecord

/// `shouldImport`, `willImport` and `didImport`: declared on the entity,
/// called around each object's import.
@Suite struct ImportHookTests {
    @Test func hooksRunInOrderAndShouldImportCanSkip() throws {
        let context = try RecordStack(inMemoryWith: [IHooked.self]).newContext()
        let objects = try IHooked.importObjects(
            from: [["key": 1, "value": "a"], ["key": 2, "value": "b", "skip": true], ["key": 1, "value": "c"]], in: context)
        #expect(objects.map(\.key) == [1])
        #expect(objects[0].calls == ["should", "will:", "did:a", "should", "will:a", "did:c"])
        #expect(context.insertedObjects.count == 1, "a declined new object is not inserted")
        #expect(try IHooked.importObject(from: ["key": 1, "value": "d", "skip": true], in: context) == nil)
        #expect(objects[0].value == "c", "a declined existing object is left as it was")
    }

    /// shouldImport runs before the element's other values are read: a
    /// declined element cannot fail the import with a value it would never
    /// have stored.
    @Test func aDeclinedElementsValuesAreNotRead() throws {
        let context = try RecordStack(inMemoryWith: [IHooked.self]).newContext()
        let objects = try IHooked.importObjects(
            from: [["key": 1, "value": "a"], ["key": 2, "value": ["not", "text"], "skip": true]], in: context)
        #expect(objects.map(\.key) == [1] && context.insertedObjects.count == 1)
        #expect(try IHooked.importObject(from: ["key": 1, "value": 7.5, "skip": true], in: context) == nil)
        #expect(objects[0].value == "a")
        _ = expectError(.validationFailed) { try IHooked.importObject(from: ["key": 1, "value": ["x"]], in: context) }
    }
}
