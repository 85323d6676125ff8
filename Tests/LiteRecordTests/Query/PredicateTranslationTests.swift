import Foundation
import Testing
@testable import LiteRecord

/// One predicate of the table, with a name for the test report.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    let name: String
    let predicate: Predicate<QueryPerson>
    var testDescription: String { name }
}

/// The seeded store shared by the table (read-only, so sharing is safe).
private let seededStack = Result { try QuerySeed.stack() }

/// Every predicate and sort runs twice: in SQL, and in Swift with
/// `Predicate.evaluate` and `sorted(using:)` over all stored objects. The
/// results must be the same objects in the same order.
@Suite struct PredicateTranslationTests {
    static let sorts: [[SortDescriptor<QueryPerson>]] = [
        [SortDescriptor(\.name)],
        [SortDescriptor(\.name, order: .reverse)],
        [SortDescriptor(\.nickname)],
        [SortDescriptor(\.nickname, order: .reverse), SortDescriptor(\.age)],
        [SortDescriptor(\.age, order: .reverse), SortDescriptor(\.name)],
        [SortDescriptor(\.score)],
        [SortDescriptor(\.birthday, order: .reverse)],
        [SortDescriptor(\.identifier)],
        [SortDescriptor(\.rank), SortDescriptor(\.score, order: .reverse)],
        [SortDescriptor(\.name, comparator: .lexical)],
        [SortDescriptor(\.nickname, comparator: .lexical, order: .reverse), SortDescriptor(\.small)],
        [SortDescriptor(\.weight)],
        [SortDescriptor(\.small, order: .reverse), SortDescriptor(\.rank, order: .reverse)],
        [SortDescriptor(\.name, comparator: String.StandardComparator(.lexical, order: .reverse))],
        // Assigning `order` after creation: Foundation keeps comparing values in
        // the original order (and, for an optional String with a comparator,
        // moves only the nils). The SQL must do the same.
        [reordered(SortDescriptor(\.age)), SortDescriptor(\.name)],
        [reordered(SortDescriptor(\.nickname, comparator: .lexical)), SortDescriptor(\.age)],
        [reordered(SortDescriptor(\.rank, order: .reverse)), reordered(SortDescriptor(\.name, comparator: .lexical))],
    ]

    private static func reordered(_ descriptor: SortDescriptor<QueryPerson>) -> SortDescriptor<QueryPerson> {
        var copy = descriptor
        copy.order = copy.order == .forward ? .reverse : .forward
        return copy
    }

    static let cases: [PredicateCase] =
        PredicateTable.comparisons() + PredicateTable.strings() + PredicateTable.optionals()
        + PredicateTable.values() + PredicateTable.arithmetic() + PredicateTable.membership()

    @Test func tableIsLargeEnough() throws {
        #expect(Self.cases.count >= 40)
        let people = try QueryPerson.findAll(in: seededStack.get().newContext())
        #expect(people.count >= 1_000)
        #expect(people.contains { $0.nickname == nil } && people.contains { $0.rank == nil })
    }

    /// `sorted(using:)` is only well defined when Swift's `String` `<` is a
    /// strict weak order over the data. It is not for every string set (see
    /// `SQLFunctions.swiftOrderCollation`), so the seed avoids the pairs that
    /// break it, and this test proves that it did: every pair of stored texts
    /// is ordered one way, or canonically equal, and Swift's order is the NFC
    /// order the SQL collation implements.
    @Test func seededTextIsConsistentlyOrderedBySwift() throws {
        let people = try QueryPerson.findAll(in: seededStack.get().newContext())
        let texts = Array(Set(people.map(\.name) + people.compactMap(\.nickname)))
        for a in texts {
            for b in texts {
                let relations = [a < b, b < a, a == b].filter { $0 }.count
                #expect(relations == 1, "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
        let nfc = texts.sorted {
            Array($0.precomposedStringWithCanonicalMapping.utf8).lexicographicallyPrecedes(Array($1.precomposedStringWithCanonicalMapping.utf8))
        }
        #expect(texts.sorted().elementsEqual(nfc, by: ==))
    }

    /// Where Swift's `String` `<` is inconsistent (`"\u{212A}"` vs `"K68"`:
    /// neither is less, yet they are not equal), a predicate still selects
    /// exactly what `evaluate` selects, pair by pair; sorting uses the NFC order.
    @Test func comparisonsFollowSwiftWhereItsOrderIsInconsistent() throws {
        let texts = ["\u{212A}", "K", "K68", "KA", "Kb", "e\u{301}", "é", "éa", "e\u{301}a", "Zoe\u{308}", "Zoë3", "Zoea"]
        let context = try RecordStack(inMemoryWith: [QueryPerson.self]).newContext()
        for text in texts {
            let person = QueryPerson()
            person.name = text
            context.insert(person)
        }
        try context.save()
        let everyone = try QueryPerson.findAll(in: context)
        for bound in texts {
            let predicates: [Predicate<QueryPerson>] = [
                #Predicate { $0.name < bound }, #Predicate { $0.name > bound },
                #Predicate { $0.name <= bound }, #Predicate { $0.name >= bound },
                #Predicate { $0.name == bound }, #Predicate { $0.name != bound },
                #Predicate { (bound...bound).contains($0.name) },
            ]
            for (index, predicate) in predicates.enumerated() {
                let fetched = try QueryPerson.findAll(matching: predicate, in: context)
                #expect(ids(fetched) == ids(try everyone.filter(predicate)), "predicate \(index) with \(bound.debugDescription)")
            }
        }
        let sorted = try QueryPerson.findAll(sortedBy: [comparableOrder(\.name)], in: context).map(\.name)
        let nfc = texts.sorted {
            Array($0.precomposedStringWithCanonicalMapping.utf8).lexicographicallyPrecedes(Array($1.precomposedStringWithCanonicalMapping.utf8))
        }
        #expect(sorted.elementsEqual(nfc, by: ==))
    }

    @Test(arguments: cases)
    func matchesSwift(_ testCase: PredicateCase) throws {
        let context = try seededStack.get().newContext()
        let everyone = try QueryPerson.findAll(in: context)
        let expected = try everyone.filter(testCase.predicate)

        let fetched = try QueryPerson.findAll(matching: testCase.predicate, in: context)
        #expect(difference(fetched, expected) == nil, "\(testCase.name)")
        #expect(try QueryPerson.count(matching: testCase.predicate, in: context) == expected.count)
        #expect(try QueryPerson.exists(matching: testCase.predicate, in: context) == !expected.isEmpty)

        // Every sort runs over the whole table in sortsWithoutPredicateMatchSwift;
        // here each predicate takes a rotating quarter of them, which keeps the
        // suite quick while every (predicate kind, sort) pairing still occurs.
        let position = Self.cases.firstIndex { $0.name == testCase.name } ?? 0
        for (index, sort) in Self.sorts.enumerated() where (index + position) % 4 == 0 {
            let sortedFetched = try QueryPerson.findAll(matching: testCase.predicate, sortedBy: sort, in: context)
            let sortedExpected = expected.sorted(using: sort)
            #expect(difference(sortedFetched, sortedExpected) == nil, "\(testCase.name) sorted by \(sort.map(describe))")
        }
    }

    /// Translations are cached by descriptor: a descriptor whose `order` was
    /// assigned after creation must not share an entry with the one it now
    /// looks like, and a repeated translation gives the same SQL.
    @Test func cachedSortTranslationsKeepReorderedDescriptorsApart() throws {
        let plain = [SortDescriptor<QueryPerson>(\.age, order: .reverse)]
        let reorderedAge = [Self.reordered(SortDescriptor<QueryPerson>(\.age))]
        #expect(plain[0].order == reorderedAge[0].order)
        let first = try SortTranslator.orderBy(plain)
        let second = try SortTranslator.orderBy(reorderedAge)
        #expect(first != second)
        #expect(try SortTranslator.orderBy(plain) == first)
        #expect(try SortTranslator.orderBy(reorderedAge) == second)
    }

    @Test func sortsWithoutPredicateMatchSwift() throws {
        let context = try seededStack.get().newContext()
        let everyone = try QueryPerson.findAll(in: context)
        for sort in Self.sorts {
            let fetched = try QueryPerson.findAll(sortedBy: sort, in: context)
            #expect(difference(fetched, everyone.sorted(using: sort)) == nil, "sorted by \(sort.map(describe))")
        }
    }

    @Test func limitAndOffsetSliceTheSortedResult() throws {
        let context = try seededStack.get().newContext()
        let predicate = #Predicate<QueryPerson> { $0.age > 20 }
        let sort = [SortDescriptor(\QueryPerson.name), SortDescriptor(\QueryPerson.age)]
        let expected = try QueryPerson.findAll(in: context).filter(predicate).sorted(using: sort)
        let request = FetchRequest(predicate: predicate, sortBy: sort, fetchLimit: 25, fetchOffset: 40)
        #expect(ids(try context.fetch(request)) == ids(Array(expected[40..<65])))
        #expect(try context.count(request) == 25)
        let past = FetchRequest(predicate: predicate, sortBy: sort, fetchOffset: expected.count)
        #expect(try context.fetch(past).isEmpty)
        #expect(try context.exists(past) == false)
        #expect(try QueryPerson.findFirst(matching: predicate, sortedBy: sort, in: context).map { ids([$0]) } == ids([expected[0]]))
    }

    /// Where two results first differ, described briefly (a full dump of a
    /// thousand ids helps nobody).
    private func difference(_ fetched: [QueryPerson], _ expected: [QueryPerson]) -> String? {
        let (a, b) = (ids(fetched), ids(expected))
        guard a != b else { return nil }
        let index = Array(zip(a, b)).firstIndex { $0.0 != $0.1 } ?? min(a.count, b.count)
        func show(_ people: [QueryPerson]) -> String {
            people.indices.contains(index)
                ? "#\(ids([people[index]])[0]) \(people[index].name.debugDescription) nick \(people[index].nickname.debugDescription)"
                : "end"
        }
        return "\(a.count) fetched, \(b.count) expected; first difference at \(index): SQL \(show(fetched)), Swift \(show(expected))"
    }

    private func ids(_ people: [QueryPerson]) -> [Int64] {
        people.map { $0.recordID?.rowID ?? -1 }
    }

    private func describe(_ descriptor: SortDescriptor<QueryPerson>) -> String {
        "\(descriptor.keyPath.map { "\($0)" } ?? "?") \(descriptor.order == .forward ? "asc" : "desc")"
    }
}
