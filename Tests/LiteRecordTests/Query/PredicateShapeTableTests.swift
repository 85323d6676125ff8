import Testing
@testable import LiteRecord

/// `PredicateShapeTable`, the predicate cache's table: entries by
/// expression type, then shape, found as a dictionary keyed by the whole
/// shape would find them.
@Suite struct PredicateShapeTableTests {
    private struct TypeA {}
    private struct TypeB {}

    private func shape(_ type: Any.Type, _ tokens: [Int]) -> PredicateShape {
        PredicateShape(expressionType: ObjectIdentifier(type), tokens: tokens, keyPaths: [])
    }

    @Test func keepsOneEntryPerShape() {
        let table = PredicateShapeTable(limit: 100)
        var made = 0
        let shapes = [shape(TypeA.self, [1]), shape(TypeA.self, [2]), shape(TypeB.self, [1]), shape(TypeA.self, [1, 2])]
        for _ in 0..<3 {
            for shape in shapes {
                _ = table.value(for: shape) { () -> PredicateCache.Entry in
                    made += 1
                    return .translatedEachTime
                }
            }
        }
        #expect(made == shapes.count, "each shape is made once, then found")
        #expect(table.count == shapes.count)
    }

    @Test func startsOverAtTheLimit() {
        let table = PredicateShapeTable(limit: 3)
        for token in 0..<3 { _ = table.value(for: shape(TypeA.self, [token])) { PredicateCache.Entry.translatedEachTime } }
        #expect(table.count == 3)
        _ = table.value(for: shape(TypeB.self, [9])) { PredicateCache.Entry.translatedEachTime }
        #expect(table.count == 1, "the fourth shape found the table full: it starts over with that shape")
        var remade = false
        _ = table.value(for: shape(TypeA.self, [0])) { () -> PredicateCache.Entry in
            remade = true
            return .translatedEachTime
        }
        #expect(remade)
    }
}
