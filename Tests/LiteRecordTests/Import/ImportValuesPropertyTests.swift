import Foundation
import Testing
import LiteRecord

/// Property: random JSON numbers and numeric strings — long
/// mantissas, huge and tiny exponents, hexadecimal, NaN and infinity
/// spellings, 38 digits and more, negative zero — imported into every
/// numeric and text attribute type are stored exactly (saved, read back and
/// compared with an oracle written here, independent of the import's own
/// number type), or refused with `.validationFailed` naming the element and
/// the key. Seeded, so every run checks the same cases.
@Suite struct ImportValuesPropertyTests {
    static let inputs = 1_200
    static let seed: UInt64 = 0x57_1A_B0_0C

    /// The attribute names of ``IValues`` and the integer range of each integer one.
    static let integers: [(key: String, range: ClosedRange<Int64>)] = [
        ("int", Int64.min...Int64.max), ("int8", -128...127), ("int16", -32_768...32_767),
        ("int32", Int64(Int32.min)...Int64(Int32.max)), ("int64", Int64.min...Int64.max), ("uint", 0...Int64.max),
        ("uint8", 0...255), ("uint16", 0...65_535), ("uint32", 0...Int64(UInt32.max)), ("uint64", 0...Int64.max),
    ]
    static let keys = integers.map(\.key) + ["double", "float", "decimal", "string", "bool"]

    /// One input: how it reaches the import, and the text it stands for.
    enum Input {
        case jsonNumber(String)
        case jsonString(String)
        case swiftDouble(Double)
    }

    @Test func everyNumberIsStoredExactlyOrRefused() throws {
        var generator = SeededGenerator(seed: Self.seed)
        var tally = (cases: 0, changed: 0, stored: 0, refused: 0)
        let started = ContinuousClock.now
        let stack = try RecordStack(inMemoryWith: [IValues.self])
        for batch in stride(from: 0, to: Self.inputs, by: 100) {
            let context = stack.newContext()
            var stored: [(input: Input, key: String, object: IValues)] = []
            for _ in batch..<min(batch + 100, Self.inputs) {
                let input = NumberGenerator.input(&generator)
                for key in Self.keys {
                    tally.cases += 1
                    do {
                        let object = try #require(try Self.importing(input, key, in: context))
                        stored.append((input, key, object))
                    } catch let error as LiteRecordError {
                        tally.refused += 1
                        #expect(error.kind == .validationFailed && error.message.contains("element 0, key path '\(key)'"), "\(error)")
                        if let reason = Oracle.wronglyRefused(input, key) { Issue.record("\(input) → \(key) refused, \(reason): \(error.message)") }
                    }
                }
            }
            try context.save()
            let reader = stack.newContext()
            for (input, key, object) in stored {
                let id = try #require(object.recordID)
                let read = try #require(try reader.object(with: id, as: IValues.self))
                tally.stored += 1
                if let change = Oracle.change(input, key, read) {
                    tally.changed += 1
                    Issue.record("\(input) → \(key): \(change)")
                }
            }
        }
        print("[import-values] \(tally.cases) cases, \(tally.changed) changed silently")
        print("import values: \(tally.stored) stored exactly, \(tally.refused) refused naming element and key, \(ContinuousClock.now - started)")
        #expect(tally.stored + tally.refused == tally.cases && tally.cases >= 10_000)
    }

    static func importing(_ input: Input, _ key: String, in context: RecordContext) throws -> IValues? {
        switch input {
        case .jsonNumber(let text): try IValues.importObject(from: Data(#"{"\#(key)": \#(text)}"#.utf8), in: context)
        case .jsonString(let text): try IValues.importObject(from: Data(#"{"\#(key)": "\#(text)"}"#.utf8), in: context)
        case .swiftDouble(let value): try IValues.importObject(from: [key: value], in: context)
        }
    }
}

enum NumberGenerator {
    static let edges = [
        "0", "-0", "-0.0", "0.0", "1", "-1", "1.0", "0.30000000000000004", "9007199254740993", "9007199254740992",
        "18446744073709551615", "18446744073709551616", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "1e400", "-1e400", "1e-400", "4.9e-324", "2.4e-324", "2.5e-324",
        "1.7976931348623157e308", "1.7976931348623159e308", "3.4028235e38", "3.4028236e38", "1.4e-45", "7e-46",
        "340282366920938463463374607431768211455", "99999999999999999999999999999999999999",
        "12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
        "127", "128", "-128", "-129", "255", "256", "32767", "65535", "65536", "4294967295", "4294967296", "16777217",
        "1e38", "1e127", "1e128", "1e-128", "1e-129", "1E2", "1e+2", "12345678901234567.5", "1234567890.123456789",
    ]
    /// Text JSON's grammar refuses, and the import's strings too.
    static let invalid = [
        "0x10", "0X1A", "0x1p3", "NaN", "nan", "inf", "-inf", "Infinity", "-Infinity", " 5", "5 ", "1e", "1.", ".5",
        "1_000", "1,5", "", "-", "+", "1e+", "--1", "٣", "１", "1e5.5", "0b101", "1 000",
    ]
    /// Strings only: accepted by the strings' grammar though JSON would not write them.
    static let stringOnly = ["+5", "007", "-007.50", "+1e3", "00.5"]

    static func input(_ rng: inout SeededGenerator) -> ImportValuesPropertyTests.Input {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0..<3: return .jsonNumber(edges.randomElement(using: &rng) ?? "0")
        case 3..<5: return .jsonString((edges + invalid + stringOnly).randomElement(using: &rng) ?? "0")
        case 5: return .swiftDouble(double(&rng))
        case 6..<14: return .jsonNumber(number(&rng))
        default: return .jsonString(number(&rng))
        }
    }

    static func digits(_ count: Int, _ rng: inout SeededGenerator) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
    }

    /// A number in JSON's grammar: any length of mantissa, any exponent.
    static func number(_ rng: inout SeededGenerator) -> String {
        let lengths = [1, 1, 2, 3, 5, 10, 15, 16, 17, 18, 19, 20, 25, 38, 39, 45, 60]
        var text = Bool.random(using: &rng) ? "-" : ""
        let whole = digits(lengths.randomElement(using: &rng) ?? 1, &rng).drop { $0 == "0" }
        text += whole.isEmpty ? "0" : String(whole)
        if Int.random(in: 0..<3, using: &rng) > 0 {
            text += "." + digits(lengths.randomElement(using: &rng) ?? 1, &rng)
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let exponents = [0, 1, 2, 5, 17, 18, 19, 20, 38, 39, 45, 127, 128, 300, 308, 309, 324, 330, 400, 5000, 999_999_999_999]
            let exponent = exponents.randomElement(using: &rng) ?? 0
            text += (Bool.random(using: &rng) ? "e" : "E") + (["", "+", "-"].randomElement(using: &rng) ?? "") + String(exponent)
        }
        return text
    }

    static func double(_ rng: inout SeededGenerator) -> Double {
        let edges: [Double] = [.nan, -.nan, .signalingNaN, .infinity, -.infinity, -0.0, 0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1]
        if Bool.random(using: &rng) { return edges.randomElement(using: &rng) ?? 0 }
        return Double(bitPattern: UInt64.random(in: .min ... .max, using: &rng))
    }
}
