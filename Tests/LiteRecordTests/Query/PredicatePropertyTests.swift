import Foundation
import Testing
import LiteRecord

@Entity(name: "FuzzNumber")
final class FuzzNumber {
    var n = 0
    // Indexed, so that SQLite may test it first and skip the other side of
    // an `&&`: the order Swift evaluates in must hold all the same.
    @Attribute(.indexed) var rank = 0
    var lo = 0
    var hi = 0
    var small: Int8 = 0
    var u: UInt64 = 0
    var d = 0.0
    var text = ""
    var code: FuzzCode = FuzzCode(rawValue: "")
    init() {}
}

/// What Swift's `Predicate.evaluate` does on one object: answer, trap
/// (integer overflow, division by zero, a range with `lower > upper`), or
/// produce a value SQL refuses to compute (NaN, an unsigned result above
/// `Int64.max`), which the fetch must then refuse too.
enum SwiftOutcome: Equatable {
    case value(Bool)
    case trap
    case refused
}

/// Predicates over random rows, each with a hand-written evaluation that
/// reports a trap instead of taking the process down: the fetch must equal
/// Swift's answer over every object, or throw exactly where Swift's
/// evaluation traps (or where SQL refuses what Swift computes).
@Suite struct PredicatePropertyTests {
    static let seed: UInt64 = 0xC0FF_EE56
    static let rounds = 30
    static let rowsPerRound = 40

    static let integers = [Int.max, Int.min, Int.max - 1, Int.min + 1, 0, 1, -1, 2, -2, 100, -100, 7]
    static let doubles = [0.0, 1, -1, 2.5, -2.5, 1e300, -1e300, .leastNonzeroMagnitude]
    static let zeros = [0.0, -0.0, 1, -1, 2.5, .infinity, -.infinity, .nan]
    /// Canonically equivalent spellings and the pair Swift's `<` orders
    /// inconsistently ("\u{212A}" and "K68").
    static let texts = [
        "K", "\u{212A}", "K68", "k", "Å", "A\u{30A}", "\u{212B}", "é", "e\u{301}", "E\u{301}", "ﬀ", "ff", "", "a", "\u{0}",
        "Cafe\u{301}", "Café",
    ]

    struct Template {
        let name: String
        let predicate: Predicate<FuzzNumber>
        let evaluate: (FuzzNumber) -> SwiftOutcome
    }

    @Test func everyFetchIsSwiftsAnswerOrFailsWhereSwiftTraps() throws {
        var random = SeededGenerator(seed: Self.seed)
        var (predicates, rows, traps, refusals) = (0, 0, 0, 0)
        var mismatches: [String] = []
        for round in 0..<Self.rounds {
            let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
            let context = stack.newContext()
            for _ in 0..<Self.rowsPerRound { context.insert(Self.row(&random)) }
            try context.save()
            let objects = try FuzzNumber.findAll(in: context)
            rows += objects.count
            for template in Self.templates(&random) {
                predicates += 1
                let outcomes = objects.map(template.evaluate)
                let fails = outcomes.contains(.trap) || outcomes.contains(.refused)
                if outcomes.contains(.trap) { traps += 1 } else if fails { refusals += 1 }
                let where_ = "seed \(Self.seed) round \(round): \(template.name)"
                do {
                    let found = Set(try FuzzNumber.findAll(matching: template.predicate, in: context).map(ObjectIdentifier.init))
                    if fails {
                        mismatches.append("\(where_): Swift traps or SQL must refuse, but the fetch answered")
                        continue
                    }
                    for (object, outcome) in zip(objects, outcomes)
                    where found.contains(ObjectIdentifier(object)) != (outcome == .value(true)) {
                        mismatches.append("\(where_): \(Self.describe(object)): Swift \(outcome)")
                    }
                } catch {
                    if !fails { mismatches.append("\(where_): Swift answers, the fetch threw \(error)") }
                }
            }
        }
        print("[predicates] \(predicates) predicates, \(rows) rows, \(mismatches.count) mismatches (\(traps) where Swift traps, \(refusals) refused as SQL cannot compute them)")
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20).joined(separator: "\n"))")
    }

    static func row(_ random: inout SeededGenerator) -> FuzzNumber {
        let row = FuzzNumber()
        row.n = integers.randomElement(using: &random)!
        row.rank = Int.random(in: 0...3, using: &random)
        row.lo = Int.random(in: -3...3, using: &random)
        row.hi = Int.random(in: -3...3, using: &random)
        row.small = Int8.random(in: Int8.min...Int8.max, using: &random)
        row.u = [0, 1, UInt64(Int64.max), UInt64(Int64.max) - 1, 1 << 62].randomElement(using: &random)!
        row.d = doubles.randomElement(using: &random)!
        row.text = texts.randomElement(using: &random)!
        row.code = FuzzCode(rawValue: texts.randomElement(using: &random)!)
        return row
    }

    static func describe(_ row: FuzzNumber) -> String {
        "n \(row.n) rank \(row.rank) lo \(row.lo) hi \(row.hi) small \(row.small) u \(row.u) d \(row.d) text \(row.text.debugDescription) code \(row.code.rawValue.debugDescription)"
    }

    static func templates(_ random: inout SeededGenerator) -> [Template] {
        var all: [Template] = []
        for _ in 0..<3 {
            all += integerTemplates(
                k: integers.randomElement(using: &random)!, r: Int.random(in: 0...3, using: &random),
                list: Array(integers.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random))))
            all += rangeTemplates(
                c: Int.random(in: -3...3, using: &random), lo: Int.random(in: -3...3, using: &random),
                hi: Int.random(in: -3...3, using: &random))
            all += doubleTemplates(z: zeros.randomElement(using: &random)!)
            all += textTemplates(
                s: texts.randomElement(using: &random)!,
                list: Array(texts.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random))))
            all += unsignedTemplates(
                k: [0, 1, UInt64(Int64.max), 1 << 62].randomElement(using: &random)!,
                s: Int8.random(in: Int8.min...Int8.max, using: &random))
        }
        return all
    }

    static func integerTemplates(k: Int, r: Int, list: [Int]) -> [Template] {
        func sum(_ row: FuzzNumber) -> Int? {
            let (value, overflow) = row.n.addingReportingOverflow(k)
            return overflow ? nil : value
        }
        func product(_ row: FuzzNumber) -> Int? {
            let (value, overflow) = row.n.multipliedReportingOverflow(by: k)
            return overflow ? nil : value
        }
        func quotient(_ row: FuzzNumber) -> Int? {
            k == 0 || (row.n == .min && k == -1) ? nil : row.n / k
        }
        func remainder(_ row: FuzzNumber) -> Int? {
            k == 0 || (row.n == .min && k == -1) ? nil : row.n % k
        }
        return [
            Template(name: "n + \(k) > 0 && rank == \(r)", predicate: #Predicate { $0.n + k > 0 && $0.rank == r }) { row in
                guard let s = sum(row) else { return .trap }
                return .value(s > 0 && row.rank == r)
            },
            Template(name: "rank == \(r) && n + \(k) > 0", predicate: #Predicate { $0.rank == r && $0.n + k > 0 }) { row in
                guard row.rank == r else { return .value(false) }
                return sum(row).map { .value($0 > 0) } ?? .trap
            },
            Template(name: "n + \(k) > 0 || rank == \(r)", predicate: #Predicate { $0.n + k > 0 || $0.rank == r }) { row in
                guard let s = sum(row) else { return .trap }
                return .value(s > 0 || row.rank == r)
            },
            Template(name: "rank == \(r) || n * \(k) > 0", predicate: #Predicate { $0.rank == r || $0.n * k > 0 }) { row in
                if row.rank == r { return .value(true) }
                return product(row).map { .value($0 > 0) } ?? .trap
            },
            Template(name: "\(list).contains(n + \(k))", predicate: #Predicate { list.contains($0.n + k) }) { row in
                sum(row).map { .value(list.contains($0)) } ?? .trap
            },
            Template(name: "n / \(k) == 1", predicate: #Predicate { $0.n / k == 1 }) { row in
                quotient(row).map { .value($0 == 1) } ?? .trap
            },
            Template(name: "n % \(k) == 0", predicate: #Predicate { $0.n % k == 0 }) { row in
                remainder(row).map { .value($0 == 0) } ?? .trap
            },
            Template(name: "-n > 0", predicate: #Predicate { -$0.n > 0 }) { row in
                row.n == .min ? .trap : .value(-row.n > 0)
            },
        ]
    }

    static func rangeTemplates(c: Int, lo: Int, hi: Int) -> [Template] {
        [
            Template(name: "(lo...hi).contains(\(c))", predicate: #Predicate { ($0.lo...$0.hi).contains(c) }) { row in
                row.lo > row.hi ? .trap : .value(row.lo <= c && c <= row.hi)
            },
            Template(name: "(lo..<hi).contains(\(c))", predicate: #Predicate { ($0.lo..<$0.hi).contains(c) }) { row in
                row.lo > row.hi ? .trap : .value(row.lo <= c && c < row.hi)
            },
            Template(name: "(\(lo)...\(hi)).contains(lo)", predicate: #Predicate { (lo...hi).contains($0.lo) }) { row in
                lo > hi ? .trap : .value(lo <= row.lo && row.lo <= hi)
            },
        ]
    }

    static func doubleTemplates(z: Double) -> [Template] {
        func check(_ value: Double, _ test: (Double) -> Bool) -> SwiftOutcome {
            value.isNaN ? .refused : .value(test(value))
        }
        return [
            Template(name: "d / \(z) < 0", predicate: #Predicate { $0.d / z < 0 }) { row in
                check(row.d / z) { $0 < 0 }
            },
            Template(name: "1.0 / -d < 0", predicate: #Predicate { 1.0 / -$0.d < 0 }) { row in
                check(1.0 / -row.d) { $0 < 0 }
            },
            Template(name: "\(z) / d > 0", predicate: #Predicate { z / $0.d > 0 }) { row in
                check(z / row.d) { $0 > 0 }
            },
            Template(name: "d * \(z) >= 0", predicate: #Predicate { $0.d * z >= 0 }) { row in
                check(row.d * z) { $0 >= 0 }
            },
        ]
    }

    static func textTemplates(s: String, list: [String]) -> [Template] {
        let code = FuzzCode(rawValue: s)
        let codes = list.map(FuzzCode.init(rawValue:))
        return [
            Template(name: "code == \(s.debugDescription)", predicate: #Predicate { $0.code == code }) { row in
                .value(row.code == code)
            },
            Template(name: "\(list).contains(text)", predicate: #Predicate { list.contains($0.text) }) { row in
                .value(list.contains(row.text))
            },
            Template(name: "codes \(list).contains(code)", predicate: #Predicate { codes.contains($0.code) }) { row in
                .value(codes.contains(row.code))
            },
            Template(name: "text < \(s.debugDescription)", predicate: #Predicate { $0.text < s }) { row in
                .value(row.text < s)
            },
        ]
    }

    static func unsignedTemplates(k: UInt64, s: Int8) -> [Template] {
        [
            Template(name: "u + \(k) > 1", predicate: #Predicate { $0.u + k > 1 }) { row in
                let (sum, overflow) = row.u.addingReportingOverflow(k)
                if overflow { return .trap }
                return sum > UInt64(Int64.max) ? .refused : .value(sum > 1)
            },
            Template(name: "small + \(s) > 0", predicate: #Predicate { $0.small + s > 0 }) { row in
                let (sum, overflow) = row.small.addingReportingOverflow(s)
                return overflow ? .trap : .value(sum > 0)
            },
        ]
    }

    // MARK: The numbered breaks of the review, one test each

    /// An indexed right side must not let SQL skip the left side Swift
    /// evaluates first (it traps on `Int.max + 1`).
    @Test func theLeftSideOfAnAndIsEvaluatedOnEveryRow() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        let big = FuzzNumber()
        big.n = .max
        big.rank = 1
        context.insert(big)
        try context.save()
        #expect(throws: LiteRecordError.self) {
            try FuzzNumber.findAll(matching: #Predicate { $0.n + 1 > 0 && $0.rank == 2 }, in: context)
        }
        let empty: [Int] = []
        #expect(throws: LiteRecordError.self) {
            try FuzzNumber.findAll(matching: #Predicate { empty.contains($0.n + 1) }, in: context)
        }
    }

    /// `lo...hi` traps in Swift when `lo > hi`; SQL must not answer instead.
    @Test func aRangeWithLowerAboveUpperFails() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        let row = FuzzNumber()
        (row.lo, row.hi) = (3, 1)
        context.insert(row)
        try context.save()
        let error = expectError(.sqlite) {
            try FuzzNumber.findAll(matching: #Predicate { ($0.lo...$0.hi).contains(2) }, in: context)
        }
        #expect(error?.message.contains("lowerBound <= upperBound") == true, "\(String(describing: error))")
        let (lo, hi) = (5, 1)
        #expect(throws: LiteRecordError.self) {
            try FuzzNumber.findAll(matching: #Predicate { (lo...hi).contains($0.n) }, in: context)
        }
    }

    /// A captured -0.0 keeps its sign, and so does a negated 0.0.
    @Test func negativeZeroDividesAsInSwift() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        let one = FuzzNumber()
        one.d = 1
        let zero = FuzzNumber()
        zero.d = 0
        context.insert(one)
        context.insert(zero)
        try context.save()
        let negZero = -0.0
        #expect(try FuzzNumber.findAll(matching: #Predicate { $0.d > 0 && $0.d / negZero < 0 }, in: context) == [one])
        #expect(try FuzzNumber.findAll(matching: #Predicate { $0.d == 0 && 1.0 / -$0.d < 0 }, in: context) == [zero])
    }

    /// More than two captured strings become an `IN` list SQLite searches
    /// through an index: canonically equal spellings must be found whatever
    /// the list's order.
    @Test func aCapturedListFindsCanonicalEquivalentsInEveryOrder() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        let stored = ["K", "\u{212A}", "K68", "\u{212A}68", "K\u{301}", "k", "A\u{30A}"]
        for text in stored {
            let row = FuzzNumber()
            row.text = text
            context.insert(row)
        }
        try context.save()
        let values = ["\u{212A}", "K68", "K", "\u{212A}68", "Å"]
        for list in permutations(values) {
            let found = try FuzzNumber.findAll(matching: #Predicate { list.contains($0.text) }, in: context).map(\.text)
            #expect(Set(found) == Set(stored.filter { list.contains($0) }), "\(list.map(\.debugDescription))")
        }
    }

    private func permutations(_ values: [String]) -> [[String]] {
        guard values.count > 1 else { return [values] }
        return values.indices.flatMap { index in
            var rest = values
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// A String-backed struct compares as its raw Strings do: by canonical
    /// equivalence, in predicates and in grouped aggregates.
    @Test func aStringBackedStructComparesAsItsRawValue() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        for (text, n) in [("Café", 1), ("Cafe\u{301}", 2), ("Tea", 4)] {
            let row = FuzzNumber()
            (row.code, row.n) = (FuzzCode(rawValue: text), n)
            context.insert(row)
        }
        try context.save()
        let code = FuzzCode(rawValue: "Cafe\u{301}")
        #expect(try FuzzNumber.findAll(matching: #Predicate { $0.code == code }, in: context).count == 2)
        let sums = try FuzzNumber.aggregate(.sum, of: \.n, groupedBy: \.code, in: context)
        #expect(sums.count == 2)
        #expect(sums[FuzzCode(rawValue: "Café")] == 3)
    }

    /// A UInt64 result above Int64.max is one Swift computes: refused, with
    /// a message that does not claim Swift would trap.
    @Test func unsignedResultsAboveInt64MaxAreRefusedTruthfully() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzNumber.self])
        let context = stack.newContext()
        let row = FuzzNumber()
        row.u = UInt64(Int64.max)
        context.insert(row)
        try context.save()
        let one: UInt64 = 1
        let error = expectError(.sqlite) {
            try FuzzNumber.findAll(matching: #Predicate { $0.u + one > 0 }, in: context)
        }
        #expect(error?.message.contains("Swift would not trap") == true, "\(String(describing: error))")
    }
}
