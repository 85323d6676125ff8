import Foundation
import Testing
@testable import LiteRecord

/// A per-object default added in a later version:
/// `@Attribute(.unique) var identifier = UUID()` gives each stored record its
/// own value, evaluated per row, instead of one value for all.
@Suite("Migration: a default that differs per call is evaluated per record")
struct MigrationDefaultTests {
    @Test func aNewUniqueUUIDAttributeGetsOneValuePerRecord() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        let stack = try store.open([WithIdentifier.Person.self])
        let identifiers = try stack.all(WithIdentifier.Person.self).map { $0["identifier"] }
        #expect(identifiers.count == 3 && Set(identifiers.map(\.textValue)).count == 3)
        #expect(identifiers.allSatisfy { if case .text(let text) = $0 { UUID(uuidString: text) != nil } else { false } })
        #expect(stack.lastMigrationReport?.actions.contains("gave 3 record(s) of Person their own default value of identifier") == true)
        try stack.close()
        let columns = try store.inspect { try $0.columns("Person") }
        #expect(columns.first { $0.name == "identifier" }?.notNull == true)
    }

    @Test func nullsOfAnAttributeBecomingNonOptionalGetTheirOwnValues() throws {
        let store = try Base.store()
        defer { store.cleanUp() }
        try store.inspect { try $0.execute("UPDATE Person SET nick = NULL WHERE name <> 'Ann'") }
        let stack = try store.open([NickPerRow.Person.self])
        let nicks = try stack.all(NickPerRow.Person.self).map { $0["nick"] }
        #expect(nicks.first == .text("annie"))
        #expect(Set(nicks.map(\.textValue)).count == 3)
        try stack.close()
    }
}

private enum WithIdentifier {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true), attr("score", .double),
                AttributeDescription(
                    "identifier", type: .uuid, options: [.unique], defaultValue: { .text(UUID().uuidString) }),
            ]
        }
    }
}

private enum NickPerRow {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]), attr("age", .int, [.indexed]),
                AttributeDescription("nick", type: .string, defaultValue: { .text(UUID().uuidString) }),
                attr("score", .double),
            ]
        }
    }
}
