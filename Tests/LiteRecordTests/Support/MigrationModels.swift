import Foundation
@testable import LiteRecord

/// The first model version most migration tests start from.
enum Base {
    final class Person: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [
                attr("name", .string, [.unique]),
                attr("age", .int, [.indexed]),
                attr("nick", .string, optional: true),
                attr("score", .double),
            ]
        }
    }

    final class Note: Versioned {
        var recordState = RecordState()
        var values: [SQLValue]
        init(values: [SQLValue]) { self.values = values }
        static var attributes: [AttributeDescription] {
            [attr("title", .string, [.indexed]), attr("body", .string, optional: true)]
        }
    }

    static func people() -> [any Entity] {
        [
            Person(["name": .text("Ann"), "age": .integer(31), "nick": .text("annie"), "score": .real(1.5)]),
            Person(["name": .text("Bob"), "age": .integer(42), "nick": .null, "score": .real(2.25)]),
            Person(["name": .text("Cid"), "age": .integer(7), "nick": .text("c"), "score": .real(-3.75)]),
        ]
    }

    static func notes() -> [any Entity] {
        [Note(["title": .text("first"), "body": .text("hello")]), Note(["title": .text("second")])]
    }

    /// A store written by `Base.Person` (and `Base.Note` when `withNotes`).
    static func store(withNotes: Bool = false) throws -> TemporaryStore {
        let store = try TemporaryStore()
        try store.write(withNotes ? [Person.self, Note.self] : [Person.self], people() + (withNotes ? notes() : []))
        return store
    }
}

/// The names of LiteRecord's indexes on `table`, from `PRAGMA index_list`,
/// with `!` marking unique ones.
func indexNames(_ store: TemporaryStore, _ table: String) throws -> Set<String> {
    try store.inspect { connection in
        Set(try connection.indexList(table).map { $0.unique ? "!" + $0.name : $0.name })
    }
}
