import Foundation
import Testing
@testable import LiteRecord

/// Translated sorts are kept by their descriptors (``SortTranslator``'s
/// `TranslationKey`), compared through a box of their own type instead of
/// an `AnyHashable` of the array. Two keys must be equal exactly when the
/// `AnyHashable`s they replace are: same entity, equal descriptors
/// (Docs/Internals/Invariants.md, "A fast path means what the plain path
/// means"), and a sort must translate the same however often it is asked.
@Suite struct SortTranslationKeyTests {
    /// Descriptors that differ in key path, order, comparator, and in the
    /// order their comparator was made with (`order` set afterwards).
    static var personSorts: [[SortDescriptor<QueryPerson>]] {
        var flipped = SortDescriptor<QueryPerson>(\.name)
        flipped.order = .reverse
        return [
            [], [SortDescriptor(\.name)], [SortDescriptor(\.name, order: .reverse)], [flipped],
            [SortDescriptor(\.name, comparator: .lexical)], [SortDescriptor(\.nickname)], [SortDescriptor(\.age)],
            [SortDescriptor(\.name), SortDescriptor(\.age)], [SortDescriptor(\.age), SortDescriptor(\.name)],
            [SortDescriptor(\.name), SortDescriptor(\.name)], [SortDescriptor(\.price, order: .reverse)],
        ]
    }

    static let tagSorts: [[SortDescriptor<QueryTag>]] = [[], [SortDescriptor(\.label)], [SortDescriptor(\.uses)]]

    @Test func keysAreEqualExactlyWhenTheDescriptorsAre() {
        // Each list twice, made separately, so equal keys are not the same value.
        let keys =
            Self.personSorts.map { SortTranslator.TranslationKey(SortTranslator.Descriptors($0)) }
            + Self.tagSorts.map { SortTranslator.TranslationKey(SortTranslator.Descriptors($0)) }
        let again =
            Self.personSorts.map { SortTranslator.TranslationKey(SortTranslator.Descriptors($0)) }
            + Self.tagSorts.map { SortTranslator.TranslationKey(SortTranslator.Descriptors($0)) }
        let plain = Self.personSorts.map { AnyHashable($0) } + Self.tagSorts.map { AnyHashable($0) }
        let people = Self.personSorts.count
        for i in keys.indices {
            for j in keys.indices {
                // `AnyHashable` takes two empty arrays of different entities
                // for equal; the key does not (an empty sort is never looked up).
                let sameEntity = (i < people) == (j < people)
                #expect((keys[i] == again[j]) == (plain[i] == plain[j] && sameEntity), "sorts \(i) and \(j)")
                if keys[i] == again[j] { #expect(keys[i].hashValue == again[j].hashValue) }
            }
        }
    }

    @Test func aSortTranslatesTheSameWhenItIsKept() throws {
        for sort in Self.personSorts where !sort.isEmpty {
            let first = try SortTranslator.orderBy(sort)
            let second = try SortTranslator.orderBy(sort)
            #expect(first == second)
            #expect(first?.hasSuffix("\"Z_PK\" ASC") == true)
        }
    }
}
