import Foundation
import Testing
import LiteRecord

/// Aggregates computed by SQLite equal the same aggregate computed in Swift
/// over the stored objects.
@Suite struct AggregateTests {
    let stack: RecordStack
    let context: RecordContext
    let everyone: [QueryPerson]

    init() throws {
        stack = try QuerySeed.stack(count: 400)
        context = stack.newContext()
        everyone = try QueryPerson.findAll(in: context)
    }

    @Test func sumMinMaxAverageCount() throws {
        let ages = everyone.map(\.age)
        #expect(try QueryPerson.aggregate(.sum, of: \.age, in: context) == ages.reduce(0, +))
        #expect(try QueryPerson.aggregate(.min, of: \.age, in: context) == ages.min())
        #expect(try QueryPerson.aggregate(.max, of: \.age, in: context) == ages.max())
        let average = try #require(try QueryPerson.aggregate(.average, of: \.age, in: context))
        #expect(abs(average - Double(ages.reduce(0, +)) / Double(ages.count)) < 1e-9)
        #expect(try QueryPerson.aggregate(.count, of: \.age, in: context) == everyone.count)
        #expect(try QueryPerson.aggregate(.max, of: \.birthday, in: context) == everyone.map(\.birthday).max())
        #expect(try QueryPerson.aggregate(.min, of: \.identifier, in: context) == everyone.map(\.identifier).min())
    }

    @Test func textUsesSwiftsOrder() throws {
        let names = everyone.map(\.name)
        let smallest = try #require(try QueryPerson.aggregate(.min, of: \.name, in: context))
        let largest = try #require(try QueryPerson.aggregate(.max, of: \.name, in: context))
        #expect(names.min().map { $0 == smallest } == true)
        #expect(names.max().map { $0 == largest } == true)
    }

    @Test func withAPredicate() throws {
        let predicate = #Predicate<QueryPerson> { $0.isActive && $0.age > 40 }
        let matching = try everyone.filter(predicate)
        #expect(try QueryPerson.aggregate(.sum, of: \.age, matching: predicate, in: context) == matching.map(\.age).reduce(0, +))
        #expect(try QueryPerson.aggregate(.count, of: \.age, matching: predicate, in: context) == matching.count)
        let sum = try QueryPerson.aggregate(.sum, of: \.score, matching: predicate, in: context)
        #expect(abs(sum - matching.map(\.score).reduce(0, +)) <= 1e-6 * max(1, abs(sum)))
    }

    @Test func emptySetsGiveZeroOrNil() throws {
        let nobody = #Predicate<QueryPerson> { $0.age > 1_000 }
        #expect(try QueryPerson.aggregate(.sum, of: \.age, matching: nobody, in: context) == 0)
        #expect(try QueryPerson.aggregate(.sum, of: \.score, matching: nobody, in: context) == 0)
        #expect(try QueryPerson.aggregate(.max, of: \.age, matching: nobody, in: context) == nil)
        #expect(try QueryPerson.aggregate(.average, of: \.age, matching: nobody, in: context) == nil)
        #expect(try QueryPerson.aggregate(.count, of: \.age, matching: nobody, in: context) == 0)
    }

    @Test func optionalAttributesIgnoreNil() throws {
        let ranks = everyone.compactMap(\.rank)
        #expect(try QueryPerson.aggregate(.max, of: \.rank, in: context) == ranks.max())
        #expect(try QueryPerson.aggregate(.sum, of: \.rank, in: context) == ranks.reduce(0, +))
        #expect(try QueryPerson.aggregate(.count, of: \.rank, in: context) == ranks.count)
        #expect(try QueryPerson.aggregate(.count, of: \.nickname, in: context) == everyone.compactMap(\.nickname).count)
    }

    @Test func groupedByAnAttribute() throws {
        let byStatus = try QueryPerson.aggregate(.sum, of: \.age, groupedBy: \.status, in: context)
        let expected = Dictionary(grouping: everyone, by: \.status).mapValues { $0.map(\.age).reduce(0, +) }
        #expect(byStatus == expected)

        let countsByNickname = try QueryPerson.aggregate(.count, of: \.age, groupedBy: \.nickname, in: context)
        let expectedCounts = Dictionary(grouping: everyone, by: \.nickname).mapValues(\.count)
        // "é" and "e\u{301}" are one key in Swift, so one group here too.
        #expect(countsByNickname == expectedCounts)

        let maxRankByActive = try QueryPerson.aggregate(
            .max, of: \.rank, groupedBy: \.isActive, matching: #Predicate { $0.age > 10 }, in: context)
        let adults = everyone.filter { $0.age > 10 }
        #expect(maxRankByActive == Dictionary(grouping: adults, by: \.isActive).mapValues { $0.compactMap(\.rank).max() })
    }

    @Test func overflowThrowsInsteadOfWrapping() throws {
        let context = try RecordStack(inMemoryWith: [QueryPerson.self]).newContext()
        for age in [Int.max, 1] {
            let person = QueryPerson()
            person.age = age
            person.small = 100
            context.insert(person)
        }
        try context.save()
        #expect(throws: LiteRecordError.self) { try QueryPerson.aggregate(.sum, of: \.age, in: context) }
        // 200 does not fit in the attribute's Int8.
        #expect(throws: LiteRecordError.self) { try QueryPerson.aggregate(.sum, of: \.small, in: context) }
    }

    @Test func refusesWhatSQLCannotDoExactly() throws {
        // A Decimal's maximum is now exact (Decimal's order), not refused.
        #expect(try QueryPerson.aggregate(.max, of: \.price, in: context) == QueryPerson.findAll(in: context).map(\.price).max())
        #expect {
            try QueryPerson.aggregate(.count, of: \.scratch, in: context)
        } throws: { ($0 as? LiteRecordError)?.kind == .unknownAttribute }
    }

    @Test @MainActor func mainContextForm() throws {
        try RecordStack.withDefault(stack) { () throws in
            #expect(try QueryPerson.aggregate(.sum, of: \.age) == everyone.map(\.age).reduce(0, +))
            #expect(try QueryPerson.aggregate(.max, of: \.rank, matching: #Predicate { $0.isActive }) != nil)
            #expect(try QueryPerson.aggregate(.count, of: \.age, groupedBy: \.isActive).values.reduce(0, +) == everyone.count)
        }
    }
}
