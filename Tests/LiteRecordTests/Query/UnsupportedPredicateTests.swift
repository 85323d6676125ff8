import Foundation
import Testing
import LiteRecord

/// Every construct without an exact SQL translation is refused with
/// `.unsupportedPredicate`, and the message names it — never a wrong result,
/// never a crash, and nothing deleted by a refused `deleteAll` (a refused
/// `updateAll` is refused before any statement runs).
@Suite struct UnsupportedPredicateTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try QuerySeed.stack(count: 50)
        context = stack.newContext()
    }

    /// Runs the predicate through every API that translates one and expects
    /// each to refuse it, naming `expected`.
    private func expectUnsupported(
        _ predicate: Predicate<QueryPerson>, naming expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let attempts: [(String, () throws -> Void)] = [
            ("findAll", { _ = try QueryPerson.findAll(matching: predicate, in: context) }),
            ("count", { _ = try QueryPerson.count(matching: predicate, in: context) }),
            ("exists", { _ = try QueryPerson.exists(matching: predicate, in: context) }),
            ("deleteAll", { _ = try QueryPerson.deleteAll(matching: predicate, in: context) }),
            ("updateAll", { _ = try QueryPerson.updateAll(matching: predicate, set: \.age, to: 1, in: context) }),
            ("aggregate", { _ = try QueryPerson.aggregate(.sum, of: \.age, matching: predicate, in: context) }),
            ("enumerate", { try QueryPerson.enumerate(matching: predicate, in: context) { _ in } }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name) accepted a predicate naming \(expected)", sourceLocation: sourceLocation)
            } catch let error as LiteRecordError {
                #expect(error.kind == .unsupportedPredicate, "\(name): \(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains(expected), "\(name): \(error.message)", sourceLocation: sourceLocation)
            }
        }
        #expect(try QueryPerson.count(in: context) == 50, "nothing deleted", sourceLocation: sourceLocation)
    }

    @Test func forceUnwrap() throws {
        try expectUnsupported(#Predicate { $0.nickname! == "Bee" }, naming: "ForcedUnwrap")
    }

    @Test func transientProperty() throws {
        try expectUnsupported(#Predicate { $0.scratch > 1 }, naming: "\\QueryPerson.scratch")
    }

    @Test func comparingAStoredCollection() throws {
        let tags = ["t1"]
        try expectUnsupported(#Predicate { $0.tags == tags }, naming: "Equal")
    }

    /// Decimals compare and sort in SQL (see StoredValuePredicateTests), but
    /// SQL's arithmetic would round them through Double.
    @Test func decimalArithmetic() throws {
        let limit = Decimal(3)
        try expectUnsupported(#Predicate { $0.price + 1 > limit }, naming: "Arithmetic")
    }

    @Test func orderingAnEnumWithItsOwnOrder() throws {
        let medium = Level.medium
        try expectUnsupported(#Predicate { $0.level < medium }, naming: "Comparison")
    }

    @Test func floatArithmetic() throws {
        try expectUnsupported(#Predicate { $0.weight * 2 > 10 }, naming: "Arithmetic")
    }

    @Test func closuresOverSequences() throws {
        let ages = 1...5
        try expectUnsupported(#Predicate { person in ages.contains { $0 == person.age } }, naming: "ClosedRange")
        try expectUnsupported(#Predicate { $0.tags.max() == "t1" }, naming: "SequenceMaximum")
    }

    @Test func subscripts() throws {
        let names = ["Ann", "Bee"]
        let scores = ["Ann": 1]
        try expectUnsupported(#Predicate { names[0] == $0.name }, naming: "CollectionIndexSubscript")
        try expectUnsupported(#Predicate { scores[$0.name] == 1 }, naming: "DictionaryKeySubscript")
    }

    @Test func computedPropertyOfAValue() throws {
        try expectUnsupported(#Predicate { $0.name.utf8.count > 3 }, naming: "UTF8View")
    }

    @Test func nanCannotBeBound() throws {
        // Not spelled `.nan`, which the compiler would warn about.
        let notANumber = Double("nan") ?? 0
        try expectUnsupported(#Predicate { $0.score < notANumber }, naming: "Value")
        let values = [1.0, notANumber]
        try expectUnsupported(#Predicate { values.contains($0.score) }, naming: "SequenceContains")
    }

    @Test func unsupportedSortDescriptorsAreNamed() throws {
        let sorts: [(SortDescriptor<QueryPerson>, String)] = [
            (SortDescriptor(\.level), "\\QueryPerson.level"),
            (SortDescriptor(\.scratch), "\\QueryPerson.scratch"),
        ]
        for (sort, expected) in sorts {
            #expect {
                _ = try QueryPerson.findAll(sortedBy: [SortDescriptor(\.name), sort], in: context)
            } throws: { error in
                guard let error = error as? LiteRecordError else { return false }
                return error.kind == .unsupportedPredicate && error.message.contains(expected)
            }
        }
    }

    @Test func messageSaysWhatToDoInstead() throws {
        do {
            _ = try QueryPerson.findAll(matching: #Predicate { $0.nickname! == "Bee" }, in: context)
            Issue.record("accepted")
        } catch let error as LiteRecordError {
            #expect(error.message.contains("QueryPerson"))
            #expect(error.message.contains("`??`"))
        }
    }
}
