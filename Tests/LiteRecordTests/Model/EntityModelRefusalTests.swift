import Foundation
import Testing
import LiteRecord

/// What `Model` refuses that the compiler lets through: entity
/// names that only SQLite's case-blind table names tell apart (item 6), and
/// entity inheritance, whose superclass properties would never be stored
/// (item 4).
@Suite struct EntityModelRefusalTests {
    @Entity(name: "Note") final class UpperNote {
        var title = ""
    }

    @Entity(name: "note") final class LowerNote {
        var title = ""
    }

    class Base {
        var author = "nobody"
    }

    @Entity final class Derived: Base {
        var title = ""
        override init() {}
    }

    @Test func entityNamesDifferingOnlyInCaseAreRefused() throws {
        let error = #expect(throws: LiteRecordError.self) {
            try Model(entities: [UpperNote.self, LowerNote.self])
        }
        #expect(error?.kind == .invalidModel)
        #expect(error?.message.contains("'Note' and 'note' differ only in case") == true)
        #expect(throws: LiteRecordError.self) { try RecordStack(inMemoryWith: [LowerNote.self, UpperNote.self]) }
    }

    @Test func anEntityWithASuperclassIsRefused() throws {
        let error = #expect(throws: LiteRecordError.self) {
            try Model(entities: [Derived.self])
        }
        #expect(error?.kind == .invalidModel)
        #expect(error?.message.contains("inherits from the class") == true)
        #expect(error?.message.contains("does not support entity inheritance") == true)
    }

    @Test func anEntityWithoutSuperclassIsAccepted() throws {
        _ = try Model(entities: [UpperNote.self])
    }
}
