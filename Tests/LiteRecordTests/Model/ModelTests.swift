import Foundation
import Testing
@testable import LiteRecord

@Suite struct ModelTests {
    @Test func describesEntitiesAndAttributes() throws {
        let model = try Model(entities: [HandWrittenPerson.self, HandWrittenNote.self])
        let person = try #require(model.entity(for: HandWrittenPerson.self))
        #expect(person.name == "Person")
        #expect(person.attributes.map(\.name) == ["identifier", "name", "age", "email"])
        #expect(person.attributes[0].isUnique)
        #expect(person.attributes[1].isIndexed)
        #expect(person.attributes[3].isOptional)
        #expect(model.entity(named: "HandWrittenNote")?.attributes.count == 2)
    }

    @Test func fingerprintIsStableAndOrderIndependent() throws {
        let a = try Model(entities: [HandWrittenPerson.self, HandWrittenNote.self])
        let b = try Model(entities: [HandWrittenNote.self, HandWrittenPerson.self])
        #expect(a.fingerprint == b.fingerprint)
        #expect(a.fingerprint.count == 16)
        let changed = try Model(entities: [HandWrittenPersonV2.self, HandWrittenNote.self])
        #expect(changed.fingerprint != a.fingerprint)
    }

    @Test func schemaRoundTripsThroughJSON() throws {
        let model = try Model(entities: [HandWrittenPerson.self])
        let decoded = try ModelSchema.decode(try model.schema.encoded())
        #expect(decoded == model.schema)
        #expect(decoded.fingerprint == model.fingerprint)
    }

    @Test func diffNamesAddedAndRemovedAttributes() throws {
        let old = try Model(entities: [HandWrittenPerson.self]).schema
        let new = try Model(entities: [HandWrittenPersonV2.self]).schema
        let changes = old.changes(to: new)
        #expect(changes.summary == "Person: attribute 'nick' added; attribute 'email' removed")
    }

    @Test func emptyModelIsRejected() {
        expectError(.invalidModel) { try Model(entities: []) }
    }

    @Test func duplicateEntityNamesAreRejected() {
        // Both classes are named "Person".
        let error = expectError(.invalidModel) { try Model(entities: [HandWrittenPerson.self, HandWrittenPersonV2.self]) }
        #expect(error?.message.contains("Person") == true)
    }

    @Test func reservedAndDuplicateAttributeNamesAreRejected() {
        final class Bad: Entity {
            var recordState = RecordState()
            nonisolated(unsafe) static var attributes: [AttributeDescription] = []
            init(row: Row) throws {}
            func encodeAttribute(at index: Int) throws -> SQLValue { .null }
            func decodeAttribute(at index: Int, from row: Row) throws {}
        }
        Bad.attributes = [AttributeDescription("Z_PK", type: .int)]
        expectError(.invalidModel) { try Model(entities: [Bad.self]) }
        Bad.attributes = [AttributeDescription("rowid", type: .int)]
        expectError(.invalidModel) { try Model(entities: [Bad.self]) }
        Bad.attributes = [AttributeDescription("name", type: .string), AttributeDescription("NAME", type: .string)]
        expectError(.invalidModel) { try Model(entities: [Bad.self]) }
    }

    @Test func reservedEntityNamesAreRejected() {
        final class sqlite_thing: Entity {
            var recordState = RecordState()
            static let attributes: [AttributeDescription] = []
            init(row: Row) throws {}
            func encodeAttribute(at index: Int) throws -> SQLValue { .null }
            func decodeAttribute(at index: Int, from row: Row) throws {}
        }
        expectError(.invalidModel) { try Model(entities: [sqlite_thing.self]) }
    }
}
