import Foundation
import Testing
@testable import LiteRecord

private enum ConversionFamily: DynamicFamily {
    static let box = DynamicShapeBox()
}

private typealias Value = DynamicEntity<ConversionFamily, SlotA>

/// A numeric (or `Bool`) type change keeps each stored value exactly, or is
/// refused naming the first row that would change: SQLite's `CAST` saturates, truncates and rounds, and a
/// value left in its storage class may read back as another value.
@Suite("Migration: conversions keep every value exactly or are refused", .serialized)
struct MigrationConversionTests {
    /// Writes `values` as attribute `v` of type `from`, then opens the store
    /// with `v` of type `to`; returns what the new model reads, or the error.
    private func convert(
        _ from: AttributeType, _ to: AttributeType, _ values: [SQLValue], plan: MigrationPlan? = nil
    ) throws -> Outcome {
        let store = try TemporaryStore()
        defer { store.cleanUp() }
        ConversionFamily.box.set([DynamicEntityShape(name: "Value", attributes: [attr("v", from, optional: true)])])
        try store.write(Value.types, values.map { Value(["v": $0]) })
        ConversionFamily.box.set([DynamicEntityShape(name: "Value", attributes: [attr("v", to, optional: true)])])
        do {
            let stack = try store.open(Value.types, plan: plan)
            defer { try? stack.close() }
            return .success(try stack.all(Value.self).map { $0["v"] })
        } catch let error as LiteRecordError {
            return .refused(error.kind == .migrationFailed ? error.message : "\(error)")
        }
    }

    private enum Outcome: Equatable {
        case success([SQLValue])
        case refused(String)
    }

    private func refusal(_ outcome: Outcome) -> String {
        if case .refused(let message) = outcome { return message }
        return "not refused: \(outcome)"
    }

    @Test func intToBoolKeepsOnlyZeroAndOne() throws {
        #expect(try convert(.int, .bool, [.integer(0), .integer(1)]) == .success([.integer(0), .integer(1)]))
        let message = refusal(try convert(.int, .bool, [.integer(0), .integer(1), .integer(5), .integer(-1)]))
        #expect(message.contains("record Value Z_PK = 3 is neither 0 nor 1 (2 record(s) in all)"), "\(message)")
    }

    @Test func doubleToBoolKeepsOnlyZeroAndOne() throws {
        #expect(try convert(.double, .bool, [.real(1), .real(0)]) == .success([.integer(1), .integer(0)]))
        let message = refusal(try convert(.double, .bool, [.real(0), .real(0.5)]))
        #expect(message.contains("record Value Z_PK = 2 is neither 0 nor 1"), "\(message)")
    }

    @Test func doubleToFloatKeepsOnlyWhatAFloatHolds() throws {
        #expect(try convert(.double, .float, [.real(0.5), .real(-3)]) == .success([.real(0.5), .real(-3)]))
        let message = refusal(try convert(.double, .float, [.real(1), .real(1e300)]))
        #expect(message.contains("record Value Z_PK = 2 cannot be held exactly by float"), "\(message)")
    }

    @Test func integersToDoubleAndFloatKeepOnlyExactValues() throws {
        let twoTo53: Int64 = 1 << 53
        #expect(try convert(.int, .double, [.integer(twoTo53), .integer(-7)]) == .success([.real(Double(twoTo53)), .real(-7)]))
        #expect(refusal(try convert(.int, .double, [.integer(twoTo53 + 1)])).contains("Z_PK = 1 cannot be held exactly by double"))
        #expect(try convert(.int, .float, [.integer(1 << 24)]) == .success([.real(Double(1 << 24))]))
        #expect(refusal(try convert(.int, .float, [.integer(1), .integer((1 << 24) + 1)])).contains("Z_PK = 2 cannot be held exactly by float"))
        // Within 2^24 every value of an Int16 is a Float: no look at the rows.
        #expect(AttributeType.float.holdsEveryValue(of: .int16) && !AttributeType.float.holdsEveryValue(of: .int32))
    }

    @Test func doubleToIntKeepsOnlyWholeNumbersInRange() throws {
        #expect(try convert(.double, .int, [.real(3), .real(-2)]) == .success([.integer(3), .integer(-2)]))
        // CAST saturated 1e20 to Int64.max.
        #expect(refusal(try convert(.double, .int, [.real(1e20)])).contains("Z_PK = 1 cannot be held exactly by int"))
        #expect(refusal(try convert(.double, .int64, [.real(2), .real(0.5)])).contains("Z_PK = 2 cannot be held exactly by int64"))
    }

    /// Item 4: the check runs after the plan's steps, so a step can fix the
    /// values the message tells it to fix.
    @Test func aStepCanFixValuesBeforeTheyAreNarrowed() throws {
        let clamp = MigrationPlan().step("clamp") { db in try db.execute("UPDATE Value SET v = 127 WHERE v > 127") }
        #expect(try convert(.int, .int8, [.integer(300), .integer(5)], plan: clamp) == .success([.integer(127), .integer(5)]))
        let zero = MigrationPlan().step("zero") { db in try db.execute("UPDATE Value SET v = 0 WHERE abs(v) > 1e18") }
        #expect(try convert(.double, .int, [.real(1e20), .real(4)], plan: zero) == .success([.integer(0), .integer(4)]))
        // A step that leaves a value that does not fit: refused after it.
        let idle = MigrationPlan().step("idle") { _ in }
        let message = refusal(try convert(.int, .int8, [.integer(300)], plan: idle))
        #expect(message.contains("after the custom steps, Value: attribute 'v' changed type from int to int8"), "\(message)")
    }
}
