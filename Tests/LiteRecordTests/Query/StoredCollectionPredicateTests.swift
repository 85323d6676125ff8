import Foundation
import Testing
@testable import LiteRecord

/// The seeded store shared by the table (read-only, so sharing is safe).
private let collectionStack = Result { try CollectionSeed.stack() }

/// Predicates over arrays and sets stored as JSON (`tags.contains("x")`,
/// `contains { … }`, `allSatisfy`, `count`, `isEmpty`): each runs in SQL and
/// in Swift with `Predicate.evaluate` over every stored object, and the
/// results must be the same objects.
@Suite struct StoredCollectionPredicateTests {
    static let cases: [CollectionPredicateCase] =
        CollectionPredicateTable.strings() + CollectionPredicateTable.optionals()
        + CollectionPredicateTable.numbers() + CollectionPredicateTable.values()

    @Test(arguments: cases)
    func matchesSwift(_ testCase: CollectionPredicateCase) throws {
        let context = try collectionStack.get().newContext()
        let everyone = try CollectionHolder.findAll(in: context)
        let expected = try everyone.filter(testCase.predicate)
        let fetched = try CollectionHolder.findAll(matching: testCase.predicate, in: context)
        #expect(ids(fetched) == ids(expected), "\(testCase.name): \(fetched.count) fetched, \(expected.count) expected")
        #expect(try CollectionHolder.count(matching: testCase.predicate, in: context) == expected.count)
        #expect(try CollectionHolder.exists(matching: testCase.predicate, in: context) == !expected.isEmpty)
    }

    /// The seed holds what the table is meant to exercise, so a case cannot
    /// pass by matching nothing in particular.
    @Test func seedCoversTheEdgeCases() throws {
        let holders = try CollectionHolder.findAll(in: collectionStack.get().newContext())
        #expect(holders.count == 400)
        #expect(holders.contains { $0.tags.isEmpty } && holders.contains { $0.tags.count > 3 })
        #expect(holders.contains { Set($0.tags).count < $0.tags.count }, "duplicates")
        #expect(holders.contains { $0.tags.contains("Null\u{0}byte") } && holders.contains { $0.tags.contains("\u{0}") })
        #expect(holders.contains { $0.tags.contains("cafe\u{301}") } && holders.contains { $0.tags.contains("café") })
        #expect(holders.contains { $0.tags.contains("\u{212A}") } && holders.contains { $0.tags.contains("ab") })
        #expect(holders.contains { $0.maybeTags == nil } && holders.contains { $0.maybeTags?.isEmpty == true })
        #expect(holders.contains { $0.doubles.contains(-0.0) && $0.doubles.first { $0 == 0 }?.sign == .minus })
        #expect(holders.contains { $0.numbers.contains(.max) } && holders.contains { $0.numbers.contains(.min) })
        // Every case selects some objects and leaves others out, except those
        // whose names say otherwise.
        let context = try collectionStack.get().newContext()
        for testCase in Self.cases {
            let count = try CollectionHolder.count(matching: testCase.predicate, in: context)
            if testCase.name.contains("no match") {
                #expect(count == 0, "\(testCase.name) selects \(count)")
            } else if testCase.name.contains("always true") {
                #expect(count == holders.count, "\(testCase.name) selects \(count)")
            } else {
                #expect(count > 0 && count < holders.count, "\(testCase.name) selects \(count)")
            }
        }
    }

    @Test func valuesAreBoundAndElementsComparedInJSONEach() throws {
        let model = try Model(entities: [CollectionHolder.self])
        let (sql, arguments) = try PredicateTranslator.condition(
            #Predicate<CollectionHolder> { $0.tags.contains("swift'--") }, model: model)
        let text = try #require(sql)
        #expect(text.contains("json_each(\"CollectionHolder\".\"tags\")"))
        #expect(text.contains("COLLATE \(SQLFunctions.swiftCollation) = ?"))
        #expect(!text.contains("swift'--"))
        #expect(arguments == [.text("swift'--")])
        let (countSQL, _) = try PredicateTranslator.condition(
            #Predicate<CollectionHolder> { $0.numbers.count > 2 }, model: model)
        #expect(countSQL == "(json_array_length(\"CollectionHolder\".\"numbers\") > ?)")
    }

    /// Swift evaluates `contains`' argument before looking at the elements, so
    /// an overflow there fails the fetch even when the collection is empty.
    @Test func failingArgumentFailsEvenForAnEmptyCollection() throws {
        let stack = try RecordStack(inMemoryWith: [CollectionHolder.self])
        let context = stack.newContext()
        let holder = CollectionHolder()
        holder.value = .max
        context.insert(holder)
        try context.save()
        #expect(throws: LiteRecordError.self) {
            _ = try CollectionHolder.findAll(matching: #Predicate { $0.numbers.contains($0.value + 1) }, in: context)
        }
        #expect(try CollectionHolder.count(matching: #Predicate { $0.numbers.contains($0.value - 1) }, in: context) == 0)
    }

    /// An element whose stored text was not written by JSONEncoder (edited by
    /// hand) fails the fetch instead of being read as something else.
    @Test func malformedNulElementFails() throws {
        let stack = try RecordStack(inMemoryWith: [CollectionHolder.self])
        let context = stack.newContext()
        context.insert(CollectionHolder())
        try context.save()
        try stack.store.rawWrite("corrupting a tag") { try $0.execute(#"UPDATE "CollectionHolder" SET "tags" = '["\u0000", 1]'"#) }
        #expect(throws: LiteRecordError.self) {
            _ = try CollectionHolder.count(matching: #Predicate { $0.tags.contains { $0.isEmpty } }, in: stack.newContext())
        }
    }

    /// The first query of the bug report, on the documented entity (macro-generated, its
    /// table named by `@Entity(name: "Person")`, not by the class).
    @Test func theDocumentedEntityFindsByTag() throws {
        let context = try RecordStack(inMemoryWith: [APIExamplePerson.self]).newContext()
        for (name, tags) in [("Ann", ["classic", "friend"]), ("Bob", ["classics"]), ("Cy", []), ("Di", ["classic"])] {
            let person = APIExamplePerson(name: name, age: 30)
            person.tags = tags
            context.insert(person)
        }
        try context.save()
        let found = try APIExamplePerson.findAll(
            matching: #Predicate { $0.tags.contains("classic") }, sortedBy: [SortDescriptor(\.name)], in: context)
        #expect(found.map(\.name) == ["Ann", "Di"])
        #expect(try APIExamplePerson.count(matching: #Predicate { $0.tags.isEmpty }, in: context) == 1)
        #expect(try APIExamplePerson.deleteAll(matching: #Predicate { $0.tags.count > 1 }, in: context) == 1)
    }

    private func ids(_ holders: [CollectionHolder]) -> [Int64] {
        holders.map { $0.recordID?.rowID ?? -1 }
    }
}
