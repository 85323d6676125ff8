import Foundation
import Testing
@testable import LiteRecord

/// The seeded store shared by the suite (read-only, so sharing is safe).
private let storedValueStack = Result { try StoredValueSeed.stack() }

/// Predicates over every stored type (Docs/GettingStarted.md), a RecordID kept in an
/// ordinary attribute included: each is translated and selects exactly what
/// `Predicate.evaluate` selects over every stored object, or is refused with
/// `.unsupportedPredicate` — never a wrong answer.
@Suite struct StoredValuePredicateTests {
    static let cases =
        StoredValuePredicateTable.measured() + StoredValuePredicateTable.recordIDs()
        + StoredValuePredicateTable.everyKind()

    /// The objects SQL selects, or `nil` when the predicate is refused.
    private static func fetch(_ predicate: Predicate<StoredValue>, in context: RecordContext) throws -> [StoredValue]? {
        do {
            return try StoredValue.findAll(matching: predicate, in: context)
        } catch let error as LiteRecordError where error.kind == .unsupportedPredicate {
            return nil
        }
    }

    @Test(arguments: cases)
    func exactOrRefused(_ testCase: StoredValueCase) throws {
        let context = try storedValueStack.get().newContext()
        let everyone = try StoredValue.findAll(in: context)
        let expected = try everyone.filter(testCase.predicate)
        guard let fetched = try Self.fetch(testCase.predicate, in: context) else {
            #expect(testCase.expectation != .translates, "\(testCase.name) was refused")
            return
        }
        #expect(testCase.expectation != .refused, "\(testCase.name) was translated")
        #expect(ids(fetched) == ids(expected), "\(testCase.name): \(fetched.count) fetched, \(expected.count) expected")
        #expect(try StoredValue.count(matching: testCase.predicate, in: context) == expected.count)
        #expect(try StoredValue.exists(matching: testCase.predicate, in: context) == !expected.isEmpty)
    }

    /// When these were found refused, 20 predicates and sorts over the
    /// stored types were measured: 11 translated. At least 19 must now, each exactly (checked above).
    @Test func measuredPredicatesTranslate() throws {
        let context = try storedValueStack.get().newContext()
        var translated = 0
        for testCase in StoredValuePredicateTable.measured() where try Self.fetch(testCase.predicate, in: context) != nil {
            translated += 1
        }
        if (try? StoredValue.findAll(sortedBy: [SortDescriptor(\.price)], in: context)) != nil { translated += 1 }
        #expect(translated == 20)
    }

    /// The seed has what the cases are about, so none passes by selecting
    /// nothing in particular.
    @Test func seedCoversTheEdgeCases() throws {
        let values = try StoredValue.findAll(in: storedValueStack.get().newContext())
        #expect(values.count == StoredValueSeed.count)
        #expect(values.filter { $0.price == 3 }.count > values.count / StoredValueSeed.decimals.count, "3 and 3.00")
        #expect(values.contains { $0.target == nil } && values.contains { $0.target?.entityName == "StoredValuePartner" })
        #expect(values.contains { $0.partner == nil })
        for testCase in StoredValuePredicateTable.measured() {
            let count = try values.filter(testCase.predicate).count
            #expect(count > 0 && count < values.count, "\(testCase.name) selects \(count)")
        }
    }

    /// Sorting by a Decimal follows Decimal's `<` (negative, fractional,
    /// beyond Double's precision, equal values spelled differently), not text
    /// order; ties keep the store's order, as `sorted(using:)` keeps the
    /// fetched order.
    @Test(arguments: [SortOrder.forward, .reverse])
    func sortingByDecimalFollowsDecimalOrder(_ order: SortOrder) throws {
        let context = try storedValueStack.get().newContext()
        let everyone = try StoredValue.findAll(in: context)
        let sort = [SortDescriptor(\StoredValue.price, order: order)]
        #expect(ids(try StoredValue.findAll(sortedBy: sort, in: context)) == ids(everyone.sorted(using: sort)))
        let filtered = #Predicate<StoredValue> { $0.flag }
        #expect(
            ids(try StoredValue.findAll(matching: filtered, sortedBy: sort, in: context))
                == ids(try everyone.filter(filtered).sorted(using: sort)))
        // The string form of sorting, and the aggregates, use the same order.
        let byName = try StoredValue.findAll(sortedBy: "price", ascending: order == .forward, in: context)
        #expect(byName.map(\.price) == everyone.sorted(using: sort).map(\.price))
        let maximum = try StoredValue.aggregate(.max, of: \.price, in: context)
        let minimum = try StoredValue.aggregate(.min, of: \.price, in: context)
        #expect(maximum == everyone.map(\.price).max())
        #expect(minimum == everyone.map(\.price).min())
    }

    /// Finding by a Decimal attribute compares Decimals, not their text.
    @Test func findByDecimalComparesValues() throws {
        let context = try storedValueStack.get().newContext()
        let everyone = try StoredValue.findAll(in: context)
        let threePointZero = Decimal(string: "3.00", locale: Locale(identifier: "en_US_POSIX")) ?? 0
        let found = try StoredValue.find(byAttribute: "price", withValue: threePointZero, in: context)
        #expect(ids(found) == ids(everyone.filter { $0.price == threePointZero }))
        #expect(!found.isEmpty)
    }

    /// A stored value that does not read back as its type makes the query fail
    /// with the reason, rather than compare as something else.
    @Test func unreadableStoredValueFailsTheQuery() throws {
        let stack = try RecordStack(inMemoryWith: [StoredValue.self, StoredValuePartner.self])
        let context = stack.newContext()
        context.insert(StoredValue())
        try context.save()
        try context.store.rawWrite("storing a size that is no Size") { connection in
            try connection.execute("UPDATE \"StoredValue\" SET \"size\" = '{\"w\": \"wide\"}'")
        }
        let size = Size(w: 1, h: 1, label: "")
        #expect(throws: LiteRecordError.self) {
            _ = try StoredValue.count(matching: #Predicate { $0.size == size }, in: context)
        }
    }

    /// The refusal says why, and names the side that is stored differently.
    @Test func mixedRecordIDsAreRefusedWithTheReason() throws {
        let context = try storedValueStack.get().newContext()
        let id = RecordID(entityName: "StoredValue", rowID: 1)
        do {
            _ = try StoredValue.findAll(matching: #Predicate { $0.target == $0.partner?.recordID }, in: context)
            Issue.record("accepted")
        } catch let error as LiteRecordError {
            #expect(error.kind == .unsupportedPredicate)
            #expect(error.message.contains("row id"), "\(error.message)")
        }
        do {
            _ = try StoredValue.findAll(matching: #Predicate { ($0.partner?.recordID ?? id) == id }, in: context)
            Issue.record("accepted")
        } catch let error as LiteRecordError {
            #expect(error.kind == .unsupportedPredicate)
            #expect(error.message.contains("different entities"), "\(error.message)")
        }
    }

    private func ids(_ values: [StoredValue]) -> [Int64] {
        values.map { $0.recordID?.rowID ?? -1 }
    }
}
