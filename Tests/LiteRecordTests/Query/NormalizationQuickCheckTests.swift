import Foundation
import Testing
@testable import LiteRecord

/// `SQLValue.isNFCByQuickCheck` lets a save store text without normalizing
/// it. It is an optimization, so it must give the same result as the plain
/// path (Foundation's NFC) in every case: these tests compare the two.
@Suite struct NormalizationQuickCheckTests {
    private func nfc(_ text: String) -> [UInt8] {
        Array(text.precomposedStringWithCanonicalMapping.utf8)
    }

    @Test func everyScalarTheCheckPassesIsUnchangedByNormalization() throws {
        var passed = 0
        for value in UInt32(0)..<0x400 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            let quick = SQLValue.isNFCByQuickCheck(text)
            #expect(quick == (value < 0x300), "U+\(String(value, radix: 16))")
            if quick {
                passed += 1
                #expect(nfc(text) == Array(text.utf8), "U+\(String(value, radix: 16))")
            }
        }
        #expect(passed == 0x300)
    }

    @Test func pairsBelowTheCombiningMarksNeverCompose() {
        // Composition needs a second scalar from U+0300 on; every pair of
        // scalars the check passes stays as it is.
        let sample = (UInt32(0x20)..<0x300).filter { $0 % 3 == 0 || (0xC0..<0x180).contains($0) }
        for first in sample {
            for second in sample {
                let text = String(String.UnicodeScalarView([Unicode.Scalar(first)!, Unicode.Scalar(second)!]))
                #expect(SQLValue.isNFCByQuickCheck(text))
                if nfc(text) != Array(text.utf8) {
                    Issue.record("U+\(String(first, radix: 16)) U+\(String(second, radix: 16)) changed under NFC")
                    return
                }
            }
        }
    }

    @Test func canonicalTextEqualsFoundationsNormalizationOnRandomText() {
        // Scalars from the ranges where text changes under NFC (combining
        // marks, Hangul jamo, compatibility singletons) mixed with letters.
        let pools: [ClosedRange<UInt32>] = [0x41...0x7A, 0xC0...0x17F, 0x300...0x36F, 0x1100...0x1175, 0xAC00...0xAC40, 0x2126...0x212B, 0x1E00...0x1EFF]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                let pool = pools.randomElement(using: &generator)!
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &generator)) { scalars.append(scalar) }
            }
            let text = String(scalars)
            guard case .text(let stored) = SQLValue.text(text).canonicalText else {
                Issue.record("text became another kind of value")
                return
            }
            #expect(Array(stored.utf8) == nfc(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func decomposedTextIsStillStoredComposedAndMarksTheObjectStale() throws {
        let stack = try RecordStack(inMemoryWith: [HandWrittenPerson.self])
        let context = stack.newContext()
        let decomposed = "Cafe\u{301}"
        let person = HandWrittenPerson(name: decomposed, age: 1)
        let plain = HandWrittenPerson(name: "Café ŷ ǅ", age: 2)
        context.insert(person)
        context.insert(plain)
        try context.save()
        #expect(person.recordState.isStale, "the row's bytes differ from the object's")
        #expect(!plain.recordState.isStale)
        // A fresh context reads what the rows hold.
        let stored = try HandWrittenPerson.findAll(in: stack.newContext()).sorted { $0.age < $1.age }
        #expect(stored.map { Array($0.name.utf8) } == [Array("Caf\u{E9}".utf8), Array("Café ŷ ǅ".utf8)])
    }
}
