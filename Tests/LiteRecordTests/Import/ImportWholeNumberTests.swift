import Foundation
import Testing
@testable import LiteRecord

/// A whole number imported into a `Double` attribute or as a Unix time
/// becomes its `Double` directly when that `Double` holds it exactly
/// (`ImportCoercion.wholeDouble`); the plain path writes the number's digits
/// out and reads them back by the import's decimal grammar. Both must give
/// the same `Double`, bit for bit, and refuse the same numbers
/// (Docs/Internals/Invariants.md, "A fast path means what the plain path
/// means").
@Suite struct ImportWholeNumberTests {
    /// Edges (zero, the last integers a `Double` holds, the first it does
    /// not, the extremes) and random numbers of every bit length, both signs.
    static var integers: [Int64] {
        let exactLimit: Int64 = 1 << 53
        var numbers: [Int64] = [
            0, 1, -1, 2, 1_700_000_000, exactLimit - 1, exactLimit, exactLimit + 1, exactLimit + 2, -exactLimit - 1,
            Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1 << 62, (1 << 62) + 1,
        ]
        var random = SeededGenerator(seed: 0x1D0C)
        for bits in 1...63 {
            for _ in 0..<40 {
                let magnitude = Int64.random(in: 0...(Int64.max >> (63 - bits)), using: &random)
                numbers.append(Bool.random(using: &random) ? magnitude : -magnitude)
            }
        }
        return numbers
    }

    @Test func aWholeDoubleIsWhatTheDecimalPathReads() throws {
        for integer in Self.integers {
            let value = ImportValue.integer(integer)
            let fast = Self.outcome { () throws(CoercionFailure) in try ImportCoercion.real(value, float: false) }
            let plain = Self.outcome { () throws(CoercionFailure) -> SQLValue in
                guard let exact = try ImportCoercion.exactNumber(value, "a number") else { return .null }
                do {
                    return .real(try exact.double())
                } catch {
                    throw CoercionFailure(reason: "refused")
                }
            }
            #expect(fast == plain, "\(integer)")
        }
    }

    @Test func aWholeUnixTimeIsWhatTheDecimalPathReads() {
        for integer in Self.integers {
            let value = ImportValue.integer(integer)
            let fast = Self.outcome { () throws(CoercionFailure) in SQLValue.real(try ImportDateReader.number(value)) }
            let plain = Self.outcome { () throws(CoercionFailure) in SQLValue.real(try ImportDateReader.decimalNumber(value)) }
            #expect(fast == plain, "\(integer)")
        }
    }

    /// The value's bits, or that it was refused.
    private static func outcome(_ body: () throws(CoercionFailure) -> SQLValue) -> String {
        do {
            guard case .real(let number) = try body() else { return "not a real" }
            return "\(number.bitPattern)"
        } catch {
            return "refused"
        }
    }
}
