import Foundation
import Testing
@testable import LiteRecord

/// Values are always bound and names always checked: hostile text in either
/// place finds (or deletes) exactly what it says, or is refused, and the table
/// survives.
@Suite struct HostileInputTests {
    static let hostileValues = [
        "Robert'); DROP TABLE \"QueryPerson\"; --",
        "' OR '1'='1",
        "\" OR \"\"=\"",
        "a;b",
        "x -- comment",
        "/* open comment",
        "nul\u{0}inside",
        "\u{0}",
        "%_ wildcard",
        "?",
    ]

    static let hostileNames = [
        "name; DROP TABLE x",
        "name\" = \"name",
        "name --",
        "Z_PK",
        "",
        "name\u{0}",
    ]

    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [QueryPerson.self, QueryTag.self])
        context = stack.newContext()
        for (index, value) in Self.hostileValues.enumerated() {
            let person = QueryPerson()
            person.name = value
            person.nickname = value
            person.age = index
            context.insert(person)
        }
        let plain = QueryPerson()
        plain.name = "plain"
        context.insert(plain)
        try context.save()
    }

    private func expectTableIntact(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try QueryPerson.count(in: stack.newContext()) == count, sourceLocation: sourceLocation)
        let tables = try stack.store.withConnection("listing tables") { connection in
            try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables.contains([.text("QueryPerson")]), sourceLocation: sourceLocation)
    }

    @Test(arguments: hostileValues)
    func hostileValuesAreBound(_ value: String) throws {
        let (found, statements) = try stack.recordingSQL {
            try QueryPerson.findAll(matching: #Predicate { $0.name == value }, in: context)
        }
        #expect(found.map(\.name) == [value])
        if value.count > 2 {  // "?" and NUL occur in any SQL text
            #expect(!statements.contains { $0.contains(value) }, "the value never appears in the SQL text")
        }

        #expect(try QueryPerson.findFirst(byAttribute: "name", withValue: value, in: context)?.name == value)
        #expect(try QueryPerson.fetch(sql: "\"name\" = ?", arguments: [value], in: context).map(\.name) == [value])
        #expect(try QueryPerson.count(matching: #Predicate { $0.nickname == value || $0.name.contains(value) }, in: context) >= 1)
        #expect(try QueryPerson.exists(matching: #Predicate { $0.name.starts(with: value) }, in: context))
        let values = [value, "nobody"]
        #expect(try QueryPerson.findAll(matching: #Predicate { values.contains($0.name) }, in: context).map(\.name) == [value])
        try expectTableIntact(Self.hostileValues.count + 1)

        #expect(try QueryPerson.deleteAll(matching: #Predicate { $0.name == value }, in: context) == 1)
        try expectTableIntact(Self.hostileValues.count)
    }

    @Test(arguments: hostileValues)
    func hostileValuesInFindOrCreate(_ value: String) throws {
        let tag = try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: value, in: context)
        #expect(tag.label == value)
        let other = stack.newContext()
        let again = try QueryTag.findFirstOrCreate(byAttribute: "label", withValue: value, in: other)
        #expect(again.recordID == tag.recordID)
        #expect(try QueryTag.count(in: context) == 1)
    }

    @Test(arguments: hostileNames)
    func hostileAttributeNamesAreRejected(_ name: String) throws {
        let attempts: [(String, () throws -> Void)] = [
            ("findFirst", { _ = try QueryPerson.findFirst(byAttribute: name, withValue: "x", in: context) }),
            ("find", { _ = try QueryPerson.find(byAttribute: name, withValue: 1, in: context) }),
            ("findAll(sortedBy:)", { _ = try QueryPerson.findAll(sortedBy: name, in: context) }),
            ("findFirstOrCreate", { _ = try QueryTag.findFirstOrCreate(byAttribute: name, withValue: "x", in: context) }),
        ]
        for (api, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(api) accepted the attribute name \(name.debugDescription)")
            } catch let error as LiteRecordError {
                #expect(error.kind == .unknownAttribute, "\(api): \(error)")
            }
        }
        try expectTableIntact(Self.hostileValues.count + 1)
        #expect(try QueryTag.count(in: context) == 0)
    }

    @Test func sqlConditionCannotRunASecondStatement() throws {
        let attempts = [
            "1 = 1; DROP TABLE \"QueryPerson\"",
            "1 = 1); DROP TABLE \"QueryPerson\"; --",
            "1 = 1 /* unterminated",
        ]
        for condition in attempts {
            #expect(throws: LiteRecordError.self, "\(condition)") {
                _ = try QueryPerson.fetch(sql: condition, in: context)
            }
        }
        // A comment ends with the condition; the statement stays whole (ages
        // 0, 1, 2 and the plain person's 0).
        #expect(try QueryPerson.fetch(sql: "\"age\" < ? -- the rest is a comment", arguments: [3], in: context).count == 4)
        try expectTableIntact(Self.hostileValues.count + 1)
    }
}
