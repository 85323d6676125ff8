import Foundation
import Testing
@testable import LiteRecord

/// Pins down how the linked SQLite's `json_each` reads what Swift's
/// JSONEncoder writes: the stored-collection predicates compare its values
/// with Swift's, so they must be exactly the values Swift decodes.
@Suite struct JSONAssumptionsTests {
    private func elements(_ json: SQLValue, _ db: Connection) throws -> [SQLValue] {
        try db.rows("SELECT value FROM json_each(?)", [json]).map { $0[0] }
    }

    @Test func stringsReadBackExactlyExceptAtAnEscapedNul() throws {
        let db = try Connection(path: nil)
        var texts = (1..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        texts += ["café", "cafe\u{301}", "\u{212A}", "\u{2028}\u{2029}", "😀👍🏽", "中文", "\\u0000", "\"a\"", "a/b", "\u{FEFF}", "\u{10FFFF}"]
        let json = try AttributeCoding.encodeJSON(texts)
        #expect(try elements(json, db) == texts.map { .text($0) })
        // Why a stored text holding `\u0000` is decoded by Swift instead: SQLite
        // 3.40 ends the string at the escape.
        let cut = try elements(AttributeCoding.encodeJSON(["a\u{0}b"]), db)
        #expect(cut == [.text("a")] || cut == [.text("a\u{0}b")])
    }

    @Test func numbersReadBackByValue() throws {
        let db = try Connection(path: nil)
        var random = SeededGenerator(seed: 0xD0B1E)
        var doubles: [Double] = [0, -0.0, 0.1, 0.30000000000000004, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 9_007_199_254_740_992]
        doubles += (0..<20_000).map { _ in Double.random(in: -1e6...1e6, using: &random) }
        // Arbitrary bit patterns: every exponent, subnormals included.
        doubles += (0..<20_000).compactMap { _ in
            let value = Double(bitPattern: random.next())
            return value.isFinite ? value : nil
        }
        let read = try elements(AttributeCoding.encodeJSON(doubles), db)
        #expect(read.count == doubles.count)
        for (value, stored) in zip(doubles, read) {
            switch stored {
            case .real(let real): #expect(real == value, "\(value)")
            case .integer(let integer): #expect(Double(integer) == value && Double(exactly: integer) != nil, "\(value)")
            default: Issue.record("\(value) read as \(stored)")
            }
        }
        let integers: [Int64] = [.max, .min, 0, -1, 1 << 53 + 1]
        #expect(try elements(AttributeCoding.encodeJSON(integers), db) == integers.map { .integer($0) })
        #expect(try elements(AttributeCoding.encodeJSON([true, false]), db) == [.integer(1), .integer(0)])
    }

    @Test func uuidsAreWrittenAsTheirStoredText() throws {
        let uuid = UUID()
        #expect(try AttributeCoding.encodeJSON([uuid]) == .text("[\"\(UUIDText.format(uuid))\"]"))
    }
}
