import Foundation
import Testing
import LiteRecord

/// Numbers, from JSON text, from `NSDecimalNumber`s and from numeric
/// strings, each go through one strict decimal grammar and reach each type
/// exactly, or are refused naming the element and key: never read through a
/// `Double` on the way.
@Suite struct ImportExactNumberTests {
    let context: RecordContext

    init() throws {
        context = try RecordStack(inMemoryWith: [IValues.self]).newContext()
    }

    func values(json: String) throws -> IValues {
        try #require(try IValues.importObject(from: Data(json.utf8), in: context))
    }

    func values(_ dictionary: [String: Any]) throws -> IValues {
        try #require(try IValues.importObject(from: dictionary, in: context))
    }

    func refuses(json: String, _ key: String, saying reason: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let error = expectError(.validationFailed, sourceLocation: sourceLocation) {
            try IValues.importObjects(from: Data("[{}, \(json)]".utf8), in: context)
        }
        let message = error?.message ?? ""
        #expect(message.contains("element 1, key path '\(key)'") && message.contains(reason), "\(message)", sourceLocation: sourceLocation)
    }

    func refuses(_ dictionary: [String: Any], _ key: String, saying reason: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let error = expectError(.validationFailed, sourceLocation: sourceLocation) { try IValues.importObjects(from: [[:], dictionary], in: context) }
        let message = error?.message ?? ""
        #expect(message.contains("element 1, key path '\(key)'") && message.contains(reason), "\(message)", sourceLocation: sourceLocation)
    }

    @Test func longJSONNumbersKeepTheirValue() throws {
        #expect(try values(json: #"{"double": 0.30000000000000004}"#).double == Double("0.30000000000000004"))
        #expect(try values(json: #"{"double": 0.30000000000000004}"#).double != 0.3000000000000001)
        #expect(try values(json: #"{"decimal": 1234567890.123456789}"#).decimal == Decimal(string: "1234567890.123456789"))
        #expect(try values(json: #"{"decimal": 1.234567890123456}"#).decimal == Decimal(string: "1.234567890123456"))
        refuses(json: #"{"int": 12345678901234567.5}"#, "int", saying: "not a whole number")
        #expect(try values(json: #"{"string": 123456789012345678901}"#).string == "123456789012345678901")
        #expect(try values(json: #"{"string": 123456789012345678902}"#).string == "123456789012345678902")
        #expect(
            try values(json: #"{"string": 100000000000000000000000000000000000000000000001}"#).string == "1.00000000000000000000000000000000000000000000001e47",
            "past 40 digits, with an exponent")
        #expect(try values(json: #"{"string": 1e400}"#).string == "1e400")
        #expect(try values(json: #"{"string": 1.5E-400}"#).string == "1.5e-400")
        #expect(try values(json: #"{"string": 2.50}"#).string == "2.5")
        refuses(json: #"{"double": 1e-400}"#, "double", saying: "too small for Double")
        refuses(json: #"{"int": 1e-400}"#, "int", saying: "not a whole number")
        refuses(json: #"{"double": 1e400}"#, "double", saying: "out of the range of Double")
        // Numbers that share an approximation (0, for these) stay apart.
        let tiny = try IValues.importObjects(from: Data(#"[{"string": 1e-400}, {"string": 2e-400}, {"string": -3e-400}]"#.utf8), in: context)
        #expect(tiny.map(\.string) == ["1e-400", "2e-400", "-3e-400"])
        let two = try values(json: #"{"string": 2e-400, "decimal": 99999999999999999999999999999999999999}"#)
        #expect(two.string == "2e-400" && two.decimal == Decimal(string: "99999999999999999999999999999999999999"))
    }

    @Test func decimalNumbersFromACallersOwnJSONSerializationKeepTheirDigits() throws {
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(#"{"decimal": 1234567890.123456789, "string": 123456789012345678901}"#.utf8)) as? [String: Any])
        let object = try values(parsed)
        #expect(object.decimal == Decimal(string: "1234567890.123456789"))
        #expect(object.string == "123456789012345678901")
        #expect(try values(["double": NSDecimalNumber(string: "0.30000000000000004")]).double == Double("0.30000000000000004"))
        refuses(["int": NSDecimalNumber(string: "12345678901234567.5")], "int", saying: "not a whole number")
        #expect(try values(["bool": NSDecimalNumber(string: "1"), "int8": NSDecimalNumber(string: "-12")]).bool)
    }

    @Test func numericStringsGoThroughTheSameGrammar() throws {
        refuses(["int": "1e-400"], "int", saying: "not a whole number")
        refuses(["int64": "1e400"], "int64", saying: "out of the range")
        refuses(["double": "1e400"], "double", saying: "out of the range of Double")
        refuses(["double": "1e-400"], "double", saying: "too small for Double")
        refuses(["float": "1e-50"], "float", saying: "too small for Float")
        for hex in ["0x10", "0X1p3", "inf", "-Infinity", "nan", " 5", "5 ", "1_000", ".5", "5.", "1,5", ""] {
            refuses(["decimal": hex], "decimal", saying: "not a decimal number in decimal notation")
            refuses(["int": hex], "int", saying: "not an integer in decimal notation")
            refuses(["double": hex], "double", saying: "not a number in decimal notation")
        }
        let digits42 = "123456789012345678901234567890123456789012"
        refuses(["decimal": digits42], "decimal", saying: "more digits than Decimal keeps")
        refuses(["decimal": "0." + digits42], "decimal", saying: "more digits than Decimal keeps")
        refuses(["decimal": "1e200"], "decimal", saying: "out of the range of Decimal")
        let digits38 = String(digits42.prefix(38))
        #expect(try values(["decimal": digits38]).decimal == Decimal(string: digits38))
        #expect(try values(["decimal": "-0.000" + digits38]).decimal == Decimal(string: "-0.000" + digits38))
        #expect(try values(["int": "+42", "int8": "-007", "uint64": "9223372036854775807"]).int == 42)
        #expect(try values(["int": "4.2e1"]).int == 42, "a whole number in any notation")
        #expect(try values(["double": "2.5e-3"]).double == 0.0025)
        refuses(["double": "9007199254740993"], "double", saying: "more digits than Double keeps")
        #expect(try values(["double": "9007199254740993.0"]).double == 9007199254740992, "a decimal fraction is rounded, once")
        refuses(["float": "16777217"], "float", saying: "more digits than Float keeps")
        refuses(["double": "-0.0"], "double", saying: "-0.0")
        #expect(try values(["int": "-0", "decimal": "-0.0", "string": "x"]).int == 0)
    }

    @Test func notANumberIsRefusedWithItsElementAndKey() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            refuses(["double": bad], "double", saying: "not a number")
            refuses(["float": Float(bad)], "float", saying: "not a number")
            refuses(["string": bad], "string", saying: "not text or a number")
            refuses(["decimal": bad], "decimal", saying: "not a decimal number")
            refuses(["int": bad], "int", saying: "not an integer")
        }
        refuses(["decimal": Decimal.nan], "decimal", saying: "NaN")
        #expect(context.insertedObjects.isEmpty)
    }
}
