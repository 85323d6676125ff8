#if canImport(Darwin)
import Foundation
import Testing
import LiteRecord

/// The localized comparisons exist only in Apple's Foundation
/// (swift-foundation has not ported them), so these run on Apple platforms.
@Suite struct LocalizedQueryTests {
    @Test func localizedComparisonsMatchSwift() throws {
        let stack = try QuerySeed.stack(count: 600)
        let context = stack.newContext()
        let everyone = try QueryPerson.findAll(in: context)
        let needle = "ann"
        let predicates: [Predicate<QueryPerson>] = [
            #Predicate { $0.name.localizedStandardContains(needle) },
            #Predicate { $0.name.localizedStandardContains("E") },
            #Predicate { $0.nickname?.localizedStandardContains("b") ?? false },
        ]
        let sorts: [[SortDescriptor<QueryPerson>]] = [
            [SortDescriptor(\.name)],
            [SortDescriptor(\.name, comparator: .localized, order: .reverse)],
            [SortDescriptor(\.nickname, comparator: .localizedStandard), SortDescriptor(\.age)],
        ]
        for predicate in predicates {
            let expected = try everyone.filter(predicate)
            let fetched = try QueryPerson.findAll(matching: predicate, in: context)
            #expect(fetched.map(\.recordID) == expected.map(\.recordID))
            for sort in sorts {
                let sortedFetched = try QueryPerson.findAll(matching: predicate, sortedBy: sort, in: context)
                #expect(sortedFetched.map(\.recordID) == expected.sorted(using: sort).map(\.recordID))
            }
        }
    }
}
#endif
