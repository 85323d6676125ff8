import Foundation
import Testing
@testable import LiteRecord

private enum PropertyFamily: DynamicFamily {
    static let box = DynamicShapeBox()
}

private typealias EntityA = DynamicEntity<PropertyFamily, SlotA>
private typealias EntityB = DynamicEntity<PropertyFamily, SlotB>

/// One attribute of entity A across the two versions.
private struct AttributePlan {
    var oldName: String
    var oldType: AttributeType
    var oldOptional: Bool
    var newName: String
    var hint: String?
    var newType: AttributeType
    var newOptional: Bool
    var newDefault: SQLValue?
}

/// The fixed family of relationship shapes between A and B, and what the
/// second version does to it.
private enum LinkShape: CaseIterable {
    /// No relationship (B unused).
    case none
    /// `A.items` to-many B without inverse; v2 adds the to-many inverse `B.owners`.
    case manyToManyGainsInverse
    /// `A.items` to-many B without inverse; v2 adds the to-one inverse `B.owner`.
    case toManyGainsToOne
    /// `B.ref` to-one A; v2 renames A (with a hint), which the to-one follows.
    case toOneToRenamedEntity
}

/// One generated pair of model versions with the rows the first one stores.
private struct ModelPair {
    var attributes: [AttributePlan] = []
    var renameA = false
    var links = LinkShape.none
    /// A's rows: one value per attribute, in `attributes` order.
    var rowsA: [[SQLValue]] = []
    var countB = 0
    /// (A row, B row) links, 1-based row ids.
    var linked: [(a: Int64, b: Int64)] = []
}

/// The migration property: over random pairs of model versions — renames
/// with hints (swaps included), type changes among the integer widths,
/// `Double`, `Float`, `Bool` and `String`, optionality changes, an inverse
/// added, an entity renamed — and random stored rows, every migration either
/// keeps every value and link exactly (read back through the new model) or
/// is refused, naming the first row that could not be kept when a value is
/// the reason. Covered: the shapes of ``LinkShape``, up to four attributes of
/// one entity; not covered: unique and indexed attributes, custom steps,
/// removals (each has its own tests).
@Suite("Migration: random model pairs never change a value silently", .serialized)
struct MigrationPropertyTests {
    static let pairs = 160

    @Test func everyMigrationKeepsEveryValueOrIsRefusedNamingTheRow() throws {
        var generator = SeededGenerator(seed: 0x6C69_7465_7265_636F)
        var silent = 0
        var problems: [String] = []
        for index in 0..<Self.pairs {
            let pair = Self.generate(&generator)
            let outcome = try Self.check(pair)
            silent += outcome.silent
            problems += outcome.problems.map { "pair \(index): \($0)" }
        }
        print("[migrations] \(Self.pairs) model pairs, \(silent) values changed silently")
        #expect(silent == 0)
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
    }

    // MARK: Generating

    static let types: [AttributeType] = [.int, .int8, .int16, .int32, .int64, .double, .float, .bool, .string]

    private static func generate(_ generator: inout SeededGenerator) -> ModelPair {
        var pair = ModelPair()
        pair.links = LinkShape.allCases.randomElement(using: &generator) ?? .none
        pair.renameA = pair.links == .toOneToRenamedEntity || Int.random(in: 0..<4, using: &generator) == 0
        let count = Int.random(in: 1...4, using: &generator)
        for index in 0..<count {
            let type = types.randomElement(using: &generator) ?? .int
            let optional = Bool.random(using: &generator)
            pair.attributes.append(
                AttributePlan(
                    oldName: "a\(index)", oldType: type, oldOptional: optional, newName: "a\(index)", newType: type, newOptional: optional))
        }
        changeAttributes(&pair, &generator)
        let rows = Int.random(in: 0...5, using: &generator)
        pair.rowsA = (0..<rows).map { _ in pair.attributes.map { sample($0.oldType, optional: $0.oldOptional, &generator) } }
        if pair.links != .none {
            pair.countB = Int.random(in: 1...4, using: &generator)
            for a in 0..<Int64(rows) {
                for b in 0..<Int64(pair.countB) where Int.random(in: 0..<3, using: &generator) == 0 {
                    if pair.links == .toOneToRenamedEntity && pair.linked.contains(where: { $0.b == b + 1 }) { continue }
                    pair.linked.append((a + 1, b + 1))
                }
            }
        }
        return pair
    }

    /// Renames (a fresh name or a swap of two names, always with hints),
    /// type changes and optionality changes, at random.
    private static func changeAttributes(_ pair: inout ModelPair, _ generator: inout SeededGenerator) {
        for index in pair.attributes.indices {
            if Int.random(in: 0..<3, using: &generator) == 0 {
                pair.attributes[index].newType = types.randomElement(using: &generator) ?? .int
            }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                let optional = !pair.attributes[index].oldOptional
                pair.attributes[index].newOptional = optional
                if !optional && Bool.random(using: &generator) {
                    pair.attributes[index].newDefault = defaultValue(pair.attributes[index].newType)
                }
            }
            if Int.random(in: 0..<4, using: &generator) == 0 {
                pair.attributes[index].newName = "renamed\(index)"
                pair.attributes[index].hint = pair.attributes[index].oldName
            }
        }
        if pair.attributes.count > 1 && Bool.random(using: &generator) {
            let first = pair.attributes[0].newName
            let second = pair.attributes[1].newName
            pair.attributes[0].newName = second
            pair.attributes[1].newName = first
            pair.attributes[0].hint = pair.attributes[0].oldName
            pair.attributes[1].hint = pair.attributes[1].oldName
        }
    }

    private static func defaultValue(_ type: AttributeType) -> SQLValue {
        switch type {
        case .string: .text("d")
        case .double: .real(2.5)
        case .float: .real(0.5)
        case .bool: .integer(1)
        default: .integer(7)
        }
    }

    /// A value of `type` as the store holds it, from a list of edge cases.
    private static func sample(_ type: AttributeType, optional: Bool, _ generator: inout SeededGenerator) -> SQLValue {
        if optional && Int.random(in: 0..<4, using: &generator) == 0 { return .null }
        let integers: [Int64]
        switch type {
        case .bool: integers = [0, 1]
        case .int8: integers = [-128, -1, 0, 1, 5, 127]
        case .int16: integers = [-32768, 0, 1, 300, 32767]
        case .int32: integers = [0, 1, -1, 70000, 16_777_217, Int64(Int32.max)]
        case .int, .int64: integers = [0, 1, -1, 5, 300, 16_777_217, 9_007_199_254_740_993, Int64.max, Int64.min]
        case .double:
            return .real([0, 1, 0.5, -3, 300, 1e20, 1e300, 16_777_217, 9_007_199_254_740_992, -0.0].randomElement(using: &generator) ?? 0)
        case .float:
            return .real(Double([Float(0), 1, 0.5, -3, 300, 16_777_216, 1e30].randomElement(using: &generator) ?? 0))
        default:
            return .text(["", "x", "5", "1.5"].randomElement(using: &generator) ?? "")
        }
        return .integer(integers.randomElement(using: &generator) ?? 0)
    }

    // MARK: The two versions

    private static func shapes(_ pair: ModelPair, second: Bool) -> [DynamicEntityShape] {
        let attributes = pair.attributes.map { plan in
            second
                ? attr(plan.newName, plan.newType, optional: plan.newOptional, was: plan.hint, default: plan.newDefault)
                : attr(plan.oldName, plan.oldType, optional: plan.oldOptional)
        }
        var a = DynamicEntityShape(name: second && pair.renameA ? "Alpha" : "A", originalName: second && pair.renameA ? "A" : nil, attributes: attributes)
        guard pair.links != .none else { return [a] }
        var b = DynamicEntityShape(name: "B", attributes: [attr("label", .string)])
        switch (pair.links, second) {
        case (.manyToManyGainsInverse, false), (.toManyGainsToOne, false):
            a.relationships = [DynamicRelationship(name: "items", toMany: true, destination: 1)]
        case (.manyToManyGainsInverse, true):
            a.relationships = [DynamicRelationship(name: "items", toMany: true, destination: 1, inverse: "owners")]
            b.relationships = [DynamicRelationship(name: "owners", toMany: true, destination: 0, inverse: "items")]
        case (.toManyGainsToOne, true):
            a.relationships = [DynamicRelationship(name: "items", toMany: true, destination: 1, inverse: "owner")]
            b.relationships = [DynamicRelationship(name: "owner", toMany: false, destination: 0, inverse: "items")]
        default:
            b.relationships = [DynamicRelationship(name: "ref", toMany: false, destination: 0)]
        }
        return [a, b]
    }
}

// MARK: Checking

extension MigrationPropertyTests {
    struct Outcome {
        var silent = 0
        var problems: [String] = []
    }

    /// What the migration must do: refuse (with the texts its message must
    /// hold), or keep the rows as `rows`.
    private enum Expected {
        case refused([String])
        case kept(rows: [[SQLValue]])
    }

    private static func check(_ pair: ModelPair) throws -> Outcome {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        try write(pair, to: store)
        PropertyFamily.box.set(shapes(pair, second: true))
        let expected = expectation(pair)
        var outcome = Outcome()
        do {
            let stack = try store.open(EntityA.types)
            defer { try? stack.close() }
            guard case .kept(let rows) = expected else {
                // Whatever the new model reads for a value it cannot hold changed silently.
                outcome.silent += max(1, unfit(pair))
                outcome.problems.append("migrated, but should have been refused: \(expected)")
                return outcome
            }
            try compare(stack, rows: rows, pair, &outcome)
        } catch let error as LiteRecordError where error.kind == .migrationFailed {
            switch expected {
            case .kept: outcome.problems.append("refused, but every value fits: \(error.message)")
            case .refused(let texts):
                for text in texts where !error.message.contains(text) {
                    outcome.problems.append("the refusal does not say \"\(text)\": \(error.message)")
                }
            }
        }
        return outcome
    }

    private static func write(_ pair: ModelPair, to store: TemporaryStore) throws {
        PropertyFamily.box.set(shapes(pair, second: false))
        let stack = try RecordStack(storeAt: store.url, entities: EntityA.types)
        let context = stack.newContext()
        let objectsA = pair.rowsA.map { row in
            EntityA(Dictionary(uniqueKeysWithValues: zip(pair.attributes.map(\.oldName), row)))
        }
        let objectsB = (0..<pair.countB).map { index in EntityB(["label": .text("b\(index)")]) }
        for object in objectsA as [any Entity] + objectsB { context.insert(object) }
        for (index, a) in objectsA.enumerated() where pair.links == .manyToManyGainsInverse || pair.links == .toManyGainsToOne {
            a.setRelatedObjects(pair.linked.filter { $0.a == Int64(index + 1) }.map { objectsB[Int($0.b - 1)] }, at: 0)
        }
        if pair.links == .toOneToRenamedEntity {
            for link in pair.linked { objectsB[Int(link.b - 1)].setRelatedObject(objectsA[Int(link.a - 1)], at: 0) }
        }
        try context.save()
        try stack.close()
    }

    /// The oracle, from the values alone: which attributes cannot be
    /// inferred, which rows cannot be kept, and otherwise the rows as the new
    /// model must read them.
    private static func expectation(_ pair: ModelPair) -> Expected {
        var schema: [String] = []
        var data: [String] = []
        var rows = pair.rowsA
        for (column, plan) in pair.attributes.enumerated() where plan.oldType != plan.newType {
            if !(plan.oldType.isNumeric && plan.newType.isNumeric) {
                schema.append("attribute '\(plan.newName)' changed type from \(plan.oldType) to \(plan.newType)")
                continue
            }
            if let first = rows.indices.first(where: { !fits(rows[$0][column], plan.newType) }) {
                data.append("attribute '\(plan.newName)' changed type from \(plan.oldType) to \(plan.newType), but the stored value of record A Z_PK = \(first + 1)")
            }
            for row in rows.indices { rows[row][column] = converted(rows[row][column], to: plan.newType) }
        }
        for (column, plan) in pair.attributes.enumerated() where !plan.newOptional {
            let nulls = rows.indices.filter { rows[$0][column].isNull }
            if let fill = plan.newDefault {
                for row in nulls { rows[row][column] = fill }
            } else if !nulls.isEmpty {
                data.append("attribute '\(plan.newName)' became non-optional without a default value")
            }
        }
        if pair.links == .toManyGainsToOne, let shared = sharedB(pair) {
            data.append("links record B Z_PK = \(shared)")
        }
        if !schema.isEmpty { return .refused(schema) }
        return data.isEmpty ? .kept(rows: rows) : .refused(data)
    }

    /// How many stored values the new types cannot hold.
    private static func unfit(_ pair: ModelPair) -> Int {
        pair.attributes.enumerated().reduce(0) { count, item in
            count + pair.rowsA.filter { !fits($0[item.offset], item.element.newType) }.count
        }
    }

    private static func sharedB(_ pair: ModelPair) -> Int64? {
        (1...Int64(max(pair.countB, 1))).first { b in pair.linked.filter { $0.b == b }.count > 1 }
    }

    /// Whether the Swift type of `type` holds `value` exactly: the test's own
    /// answer, through Swift's `init?(exactly:)`, not the library's.
    private static func fits(_ value: SQLValue, _ type: AttributeType) -> Bool {
        let integer: Int64?
        switch value {
        case .null: return true
        case .integer(let stored): integer = stored
        case .real(let real):
            if type == .double { return true }
            if type == .float { return Float(exactly: real) != nil }
            integer = Int64(exactly: real)
        default: return false
        }
        guard let integer else { return false }
        switch type {
        case .bool: return integer == 0 || integer == 1
        case .int8: return Int8(exactly: integer) != nil
        case .int16: return Int16(exactly: integer) != nil
        case .int32: return Int32(exactly: integer) != nil
        case .int, .int64: return true
        case .double: return Double(exactly: integer) != nil
        case .float: return Float(exactly: integer) != nil
        default: return false
        }
    }

    /// `value` as `type` stores it, when `type` holds it exactly.
    private static func converted(_ value: SQLValue, to type: AttributeType) -> SQLValue {
        let number: Double? =
            switch value {
            case .integer(let integer): Double(exactly: integer)
            case .real(let real): real
            default: nil
            }
        if type != .double && type != .float {
            if case .integer = value { return value }
            return number.flatMap { Int64(exactly: $0) }.map(SQLValue.integer) ?? value
        }
        if case .integer(let integer) = value { return .real(Double(integer)) }
        return value
    }

    /// Reads every row and link back through the new model; each value or
    /// link that differs from the oracle's is a silent change.
    private static func compare(_ stack: RecordStack, rows: [[SQLValue]], _ pair: ModelPair, _ outcome: inout Outcome) throws {
        let context = stack.newContext()
        let objects = try stack.all(EntityA.self, in: context)
        guard objects.count == rows.count else {
            outcome.silent += abs(objects.count - rows.count)
            outcome.problems.append("\(rows.count) records became \(objects.count)")
            return
        }
        for (object, row) in zip(objects, rows) {
            for (column, plan) in pair.attributes.enumerated() where object[plan.newName] != row[column] {
                outcome.silent += 1
                outcome.problems.append(
                    "\(plan.oldName) → \(plan.newName) (\(plan.oldType) → \(plan.newType)): \(row[column]) became \(object[plan.newName])")
            }
        }
        guard pair.links != .none else { return }
        let expected = Set(pair.linked.map { "\($0.a)-\($0.b)" })
        var found = Set<String>()
        if pair.links == .toOneToRenamedEntity {
            for b in try stack.all(EntityB.self, in: context) {
                if let a = b.relatedObject(at: 0, as: EntityA.self)?.recordID?.rowID, let row = b.recordID?.rowID { found.insert("\(a)-\(row)") }
            }
        } else {
            for a in objects {
                for b in a.relatedObjects(at: 0, as: EntityB.self) {
                    if let row = a.recordID?.rowID, let other = b.recordID?.rowID { found.insert("\(row)-\(other)") }
                }
            }
        }
        if found != expected {
            outcome.silent += found.symmetricDifference(expected).count
            outcome.problems.append("links \(expected.sorted()) became \(found.sorted()) (\(pair.links))")
        }
    }
}
