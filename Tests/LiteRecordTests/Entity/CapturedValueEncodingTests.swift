import Foundation
import Testing
@testable import LiteRecord

/// `ValueKind.encode` converts captured values of the most common types
/// through casts to those types before it tries the protocol casts that
/// cover every type. It is an optimization, so it must give the same result
/// as the plain path in every case: this test compares the two for values of
/// those types and others, optional or not, nil, NaN and -0.0, under every
/// kind they are met with.
@Suite struct CapturedValueEncodingTests {
    enum Tone: String { case low }

    private var values: [Any] {
        let optionalInt: Int? = 7
        let noInt: Int? = nil
        let nested: Int?? = .some(.some(9))
        let nestedNil: Int?? = .some(nil)
        let optionalNaN: Double? = .nan
        return [
            0, -1, Int.max, Int.min, Int64.min, Int64(42), Int32(5), UInt64.max, UInt8(3),
            0.0, -0.0, 1.5, Double.nan, Double.infinity, Float(2.5), Float.nan,
            "", "text", "Cafe\u{301}", true, false,
            UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, Date(timeIntervalSinceReferenceDate: 12.25),
            Data([1, 2]), Decimal(string: "1.10")!, Tone.low,
            optionalInt as Any, noInt as Any, nested as Any, nestedNil as Any, optionalNaN as Any,
        ]
    }

    @Test func theShortcutGivesWhatThePlainPathGives() {
        let kinds = values.map { ValueType(type(of: $0)).kind } + [.string, .double, .bool, .uuid, .date, .data]
        var compared = 0
        for value in values {
            for kind in kinds {
                let fast = kind.encode(value)
                let plain = kind.encode(value, commonTypesFirst: false)
                #expect(fast == plain, "\(value) (\(type(of: value))) as \(kind)")
                compared += 1
            }
        }
        #expect(compared > 500)
    }

    @Test func nanAndNegativeZeroKeepTheirMeaning() {
        let kind = ValueType(Double.self).kind
        #expect(kind.encode(Double.nan) == nil, "NaN has no stored form")
        #expect(kind.encode(-0.0) == .real(0))
        #expect(kind.encode(Optional<Double>.none as Any) == .null)
    }

    @Test func theShortcutsForTypesGiveWhatTheProtocolCastsGive() {
        // What `FixedWidthInteger` gives, which the shortcut skips.
        #expect(ValueType(Int.self).kind == .integer(.init(min: Int64(Int.min), max: Int64(Int.max), typeName: "Int")))
        #expect(ValueType(Int64.self).kind == .integer(.init(min: .min, max: .max, typeName: "Int64")))
        #expect(ValueType(Int32.self).kind == .integer(.init(min: Int64(Int32.min), max: Int64(Int32.max), typeName: "Int32")))
        // Answered "not a collection" without the cast: none of them conforms.
        let scalars: [Any.Type] = [Int.self, String.self, Double.self, Bool.self, Int64.self, UUID.self, Date.self]
        for type in scalars {
            #expect((type as? any JSONCollection.Type) == nil, "\(type)")
            guard case .failure(.notACollection) = PredicateTranslator.collectionKind(of: type) else {
                Issue.record("\(type) taken for a collection")
                continue
            }
        }
        guard case .success = PredicateTranslator.collectionKind(of: [Int].self) else {
            Issue.record("[Int] is a collection")
            return
        }
    }
}
