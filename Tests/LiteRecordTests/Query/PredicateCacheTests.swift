import Foundation
import Testing
@testable import LiteRecord

/// Two attributes of one type, so that predicates differing only in a key
/// path or in operand order have the same expression type.
@Entity(name: "CachePoint")
final class CachePoint {
    var x: Int = 0
    var y: Int = 0
    var label: String?
    var score: Double = 0

    init() {}
    init(x: Int, y: Int, label: String?) {
        self.x = x
        self.y = y
        self.label = label
        score = Double(x) / 2
    }
}

/// The translation cache (`PredicateCache`): a repeated `#Predicate` shape
/// reuses its SQL with its captured values bound afresh, and shapes that
/// translate differently never share an entry. Every result is compared with
/// `Predicate.evaluate` over all stored objects.
@Suite(.tags(.threads)) struct PredicateCacheTests {
    /// 21 × 21 points, a third without a label.
    static func stack() throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: [CachePoint.self])
        let context = stack.newContext()
        for x in -10...10 {
            for y in -10...10 {
                context.insert(CachePoint(x: x, y: y, label: (x + y) % 3 == 0 ? nil : "p\(x)"))
            }
        }
        try context.save()
        return stack
    }

    /// The ids `predicate` selects in SQL, and those it accepts in Swift.
    static func results(
        _ predicate: Predicate<CachePoint>, in context: RecordContext
    ) throws -> (sql: Set<RecordID>, swift: Set<RecordID>) {
        let fetched = try context.fetch(FetchRequest(predicate: predicate))
        let all = try CachePoint.findAll(in: context)
        let accepted = try all.filter { try predicate.evaluate($0) }
        return (Set(fetched.compactMap(\.recordID)), Set(accepted.compactMap(\.recordID)))
    }

    static func expectSame(_ predicate: Predicate<CachePoint>, in context: RecordContext, _ what: String) throws {
        let (sql, swift) = try results(predicate, in: context)
        #expect(sql == swift, "\(what)")
        #expect(!swift.isEmpty || what.contains("empty"), "\(what): the case should select something")
    }

    // One source location, one shape.
    static func between(_ lower: Int, _ upper: Int) -> Predicate<CachePoint> {
        #Predicate<CachePoint> { $0.x >= lower && $0.x <= upper }
    }

    @Test func sameShapeWithOtherValuesGivesTheirOwnResults() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        let cache = stack.model.predicateCache
        #expect(cache.count == 0)
        var previous: Set<RecordID>?
        for (lower, upper) in [(-10, -8), (0, 2), (7, 10), (3, 3), (5, 4)] {
            let (sql, swift) = try Self.results(Self.between(lower, upper), in: context)
            #expect(sql == swift, "x in \(lower)...\(upper)")
            #expect(sql.count == max(0, upper - lower + 1) * 21)
            #expect(sql != previous, "the values of the previous query were bound again")
            previous = sql
            // Kept once, then reused.
            #expect(cache.count == 1)
        }
    }

    @Test func operatorsKeyPathsAndOperandOrderAreNotShared() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        let cache = stack.model.predicateCache
        let v = 3
        // Same expression type, another operator.
        try Self.expectSame(#Predicate<CachePoint> { $0.x < v }, in: context, "x < 3")
        try Self.expectSame(#Predicate<CachePoint> { $0.x <= v }, in: context, "x <= 3")
        try Self.expectSame(#Predicate<CachePoint> { $0.x > v }, in: context, "x > 3")
        try Self.expectSame(#Predicate<CachePoint> { $0.x >= v }, in: context, "x >= 3")
        // Same expression type, another key path.
        try Self.expectSame(#Predicate<CachePoint> { $0.y < v }, in: context, "y < 3")
        // Same expression type, operands swapped.
        try Self.expectSame(#Predicate<CachePoint> { $0.x < $0.y }, in: context, "x < y")
        try Self.expectSame(#Predicate<CachePoint> { $0.y < $0.x }, in: context, "y < x")
        // Arithmetic: another operator, operands swapped.
        try Self.expectSame(#Predicate<CachePoint> { $0.x + $0.y > v }, in: context, "x + y > 3")
        try Self.expectSame(#Predicate<CachePoint> { $0.x - $0.y > v }, in: context, "x - y > 3")
        try Self.expectSame(#Predicate<CachePoint> { $0.y - $0.x > v }, in: context, "y - x > 3")
        // Nested versus flat: a || (b && c) against (a || b) && c.
        let a = 5
        let b = -5
        try Self.expectSame(#Predicate<CachePoint> { $0.x > a || ($0.y < b && $0.x < b) }, in: context, "a || (b && c)")
        try Self.expectSame(#Predicate<CachePoint> { ($0.x > a || $0.y < b) && $0.x < b }, in: context, "(a || b) && c")
        #expect(cache.count == 12, "every shape is its own entry")
        // Each again, now from the cache, still right (the first query's
        // operator is not the last one's).
        try Self.expectSame(#Predicate<CachePoint> { $0.x < v }, in: context, "x < 3 again")
        try Self.expectSame(#Predicate<CachePoint> { $0.y - $0.x > v }, in: context, "y - x > 3 again")
        try Self.expectSame(#Predicate<CachePoint> { $0.x > a || ($0.y < b && $0.x < b) }, in: context, "a || (b && c) again")
    }

    // One source location: a captured optional that is nil or not.
    static func labelled(_ label: String?) -> Predicate<CachePoint> {
        #Predicate<CachePoint> { $0.label == label }
    }

    @Test func aCapturedNilAndAValueTranslateEachTheirWay() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        // `== nil` is `IS NULL`; `== "p3"` binds the text. Either first.
        for label in ["p3", nil, "p3", nil, "p-2"] as [String?] {
            let (sql, swift) = try Self.results(Self.labelled(label), in: context)
            #expect(sql == swift, "label == \(label ?? "nil")")
            #expect(!sql.isEmpty)
        }
    }

    @Test func uncachedShapesStillTranslate() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        // A captured array (its size is in the SQL) and optional chaining
        // are translated every time, with the right values.
        for values in [[1, 2], [3], [-4, 5, 6]] {
            let (sql, swift) = try Self.results(#Predicate<CachePoint> { values.contains($0.x) }, in: context)
            #expect(sql == swift && sql.count == values.count * 21)
        }
        for prefix in ["p1", "p-"] {
            let predicate = #Predicate<CachePoint> { $0.label.flatMap { $0.starts(with: prefix) } ?? false }
            let (sql, swift) = try Self.results(predicate, in: context)
            #expect(sql == swift && !sql.isEmpty)
        }
    }

    @Test func aBadCapturedValueIsStillRefused() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        let good = 1.5
        let nan = Double.nan
        let predicate = { (value: Double) in #Predicate<CachePoint> { $0.score < value } }
        // Whatever the cache holds, NaN has no stored form.
        #expect(try context.fetch(FetchRequest(predicate: predicate(good))).count == 13 * 21)
        #expect(throws: LiteRecordError.self) { try context.fetch(FetchRequest(predicate: predicate(nan))) }
        let total = try CachePoint.findAll(in: context).count
        #expect(total == 441, "the store is intact")
    }

    /// `((x op₁ 1) op₂ 1) … op₆ 1 >= 0`, the operators picked by the digits
    /// of `number` in base 3: 729 shapes of one expression type.
    static func chain(_ number: Int) -> Predicate<CachePoint> {
        func op(_ digit: Int) -> PredicateExpressions.ArithmeticOperator {
            [.add, .subtract, .multiply][digit]
        }
        let digits = (0..<6).map { (number / Int(pow(3.0, Double($0)))) % 3 }
        return Predicate<CachePoint> { point in
            let x = PredicateExpressions.build_KeyPath(root: point, keyPath: \CachePoint.x)
            let one = PredicateExpressions.build_Arg(1)
            let e1 = PredicateExpressions.build_Arithmetic(lhs: x, rhs: one, op: op(digits[0]))
            let e2 = PredicateExpressions.build_Arithmetic(lhs: e1, rhs: one, op: op(digits[1]))
            let e3 = PredicateExpressions.build_Arithmetic(lhs: e2, rhs: one, op: op(digits[2]))
            let e4 = PredicateExpressions.build_Arithmetic(lhs: e3, rhs: one, op: op(digits[3]))
            let e5 = PredicateExpressions.build_Arithmetic(lhs: e4, rhs: one, op: op(digits[4]))
            let e6 = PredicateExpressions.build_Arithmetic(lhs: e5, rhs: one, op: op(digits[5]))
            return PredicateExpressions.build_Comparison(lhs: e6, rhs: PredicateExpressions.build_Arg(0), op: .greaterThanOrEqual)
        }
    }

    @Test func theCacheIsBounded() throws {
        let stack = try Self.stack()
        let context = stack.newContext()
        let cache = stack.model.predicateCache
        for number in 0..<(PredicateCache.limit + 60) {
            let predicate = Self.chain(number)
            let count = try context.count(FetchRequest(predicate: predicate))
            if number % 37 == 0 {
                let swift = try CachePoint.findAll(in: context).filter { try predicate.evaluate($0) }.count
                #expect(count == swift, "shape \(number)")
            }
            #expect(cache.count <= PredicateCache.limit)
        }
        #expect(cache.count > 0)
    }

    @Test func contextsOnManyThreadsShareTheCache() async throws {
        let stack = try Self.stack()
        let reader = stack.newContext()
        let points = try CachePoint.findAll(in: reader).compactMap { point in point.recordID.map { ($0, point.x, point.y) } }
        #expect(points.count == 441)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<6 {
                group.addTask {
                    let context = stack.newContext()
                    for round in 0..<25 {
                        let lower = (task * 7 + round * 3) % 21 - 10
                        let upper = lower + round % 4
                        let fetched = try context.fetch(FetchRequest(predicate: Self.between(lower, upper)))
                        let expected = points.filter { $0.1 >= lower && $0.1 <= upper }.map(\.0)
                        #expect(Set(fetched.compactMap(\.recordID)) == Set(expected), "task \(task) round \(round)")
                        let y = round % 5 - 2
                        let other = try context.fetch(FetchRequest(predicate: #Predicate<CachePoint> { $0.y < y }))
                        #expect(Set(other.compactMap(\.recordID)) == Set(points.filter { $0.2 < y }.map(\.0)))
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(stack.model.predicateCache.count == 2)
    }
}
