import Foundation
import Testing
@testable import LiteRecord

/// `ImportJSONReader.string()` makes a `String` straight from the bytes of
/// an ASCII string without escapes; every other string goes the plain way
/// (copied out, escapes resolved, `String(validating:)`). Both must read
/// every text alike: the same values, byte for byte, and the same refusals
/// (Docs/Internals/Invariants.md, "A fast path means what the plain path
/// means").
@Suite struct ImportJSONStringPathTests {
    /// Pieces of a string's text between its quotes: ASCII, escapes,
    /// UTF-8 beyond ASCII, control characters, bytes that are not UTF-8, and
    /// an unescaped quote or backslash at the end of a piece.
    static let pieces: [[UInt8]] = [
        Array("plain".utf8), Array("Person 12 r1".utf8), [], Array(" ".utf8), Array("~".utf8),
        Array(#"\n"#.utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\/"#.utf8), Array(#"\u00e9"#.utf8),
        Array(#"\ud83d\ude00"#.utf8), Array(#"\u0000"#.utf8), Array(#"\ud83d"#.utf8), Array(#"\x"#.utf8),
        Array("é".utf8), Array("e\u{301}".utf8), Array("😀".utf8), Array("中文".utf8), [0x7F],
        [0x01], [0x1F], [0x09], [0xFF], [0xC0, 0x80], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
    ]

    @Test func theASCIIPathReadsWhatThePlainPathReads() {
        var random = SeededGenerator(seed: 0x57_2176)
        for round in 0..<3_000 {
            var text: [UInt8] = Array("[".utf8)
            let count = Int.random(in: 1...4, using: &random)
            for index in 0..<count {
                if index > 0 { text += Array(",".utf8) }
                let asKey = Bool.random(using: &random)
                if asKey { text += Array("{".utf8) }
                text += [UInt8(ascii: "\"")]
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    // Mostly ASCII, as real input is.
                    let piece = Int.random(in: 0..<4, using: &random) == 0 ? Self.pieces.randomElement(using: &random) : Self.pieces[0]
                    text += piece ?? []
                }
                text += [UInt8(ascii: "\"")]
                if asKey { text += Array(#":1}"#.utf8) }
            }
            // Now and then a text cut short inside a string.
            if round % 17 == 0 { text.removeLast(Int.random(in: 1...3, using: &random)) } else { text += Array("]".utf8) }
            let data = Data(text)
            let fast = Self.outcome(ImportJSONReader(data))
            let plain = Self.outcome(ImportJSONReader(data, readingStringsPlainly: true))
            #expect(fast == plain, "\(text)")
        }
    }

    @Test func aTextOfASCIIStringsIsReadExactly() throws {
        var reader = ImportJSONReader(Data(#"{"name": "Person 1 r1", "email": "p1@example.com", "e": ""}"#.utf8))
        let object = try reader.read() as? [String: Any]
        #expect(object?["name"] as? String == "Person 1 r1")
        #expect(object?["email"] as? String == "p1@example.com")
        #expect(object?["e"] as? String == "")
    }

    /// What a read gives: each string's bytes (keys and values, in the
    /// order of the text), or the reason it refused.
    private static func outcome(_ reader: ImportJSONReader) -> String {
        var reader = reader
        do {
            return describe(try reader.read())
        } catch {
            return "refused: \(error.reason)"
        }
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: "s\(Array(text.utf8))"
        case let array as [Any]: "[" + array.map(describe).joined(separator: ",") + "]"
        case let object as [String: Any]:
            "{"
                + object.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
                .map { "\(Array($0.utf8)):" + describe(object[$0] as Any) }.joined(separator: ",") + "}"
        default: "\(value)"
        }
    }
}
