import Foundation
import Testing
import LiteRecord

/// Every conversion an import makes from JSON values, and its refusals: a
/// value is stored exactly or the import throws `.validationFailed` — never
/// rounded, truncated or wrapped.
@Suite struct ImportCoercionTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [ISample.self])
        context = stack.newContext()
    }

    func sample(_ values: [String: Any]) throws -> ISample {
        try #require(try ISample.importObject(from: values, in: context))
    }

    func refuses(_ values: [String: Any], mentioning key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = context.insertedObjects.count
        let error = expectError(.validationFailed, sourceLocation: sourceLocation) { try ISample.importObject(from: values, in: context) }
        #expect(error?.message.contains("key path '\(key)'") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(context.insertedObjects.count == before, "a refused import leaves nothing", sourceLocation: sourceLocation)
    }

    /// The same text through `JSONSerialization`, which hands out `NSNumber`s.
    func sample(json: String) throws -> ISample {
        try #require(try ISample.importObject(from: Data(json.utf8), in: context))
    }

    @Test func booleansFromBooleansNumbersAndWords() throws {
        for (value, expected) in [(true, true), (false, false)] as [(Any, Bool)] { #expect(try sample(["flag": value]).flag == expected) }
        for (value, expected) in [(1, true), (0, false)] as [(Any, Bool)] { #expect(try sample(["flag": value]).flag == expected) }
        for word in ["true", "TRUE", "Yes", "yes", "1"] { #expect(try sample(["flag": word]).flag) }
        for word in ["false", "False", "NO", "no", "0"] { #expect(try !sample(["flag": word]).flag) }
        #expect(try sample(json: #"{"flag": true}"#).flag)
        #expect(try !sample(json: #"{"flag": 0}"#).flag)
        refuses(["flag": 2], mentioning: "flag")
        refuses(["flag": "maybe"], mentioning: "flag")
        refuses(["flag": 0.5], mentioning: "flag")
    }

    @Test func integersExactlyOrNotAtAll() throws {
        #expect(try sample(["count": "42"]).count == 42)
        #expect(try sample(["count": 3.0]).count == 3, "a whole Double is exact")
        #expect(try sample(["small": -128]).small == -128)
        #expect(try sample(["byte": "255"]).byte == 255)
        #expect(try sample(["medium": Int32.max]).medium == .max)
        #expect(try sample(["big": Int64.min]).big == .min)
        #expect(try sample(["unsigned": UInt64(Int64.max)]).unsigned == UInt64(Int64.max))
        #expect(try sample(json: #"{"count": 7, "big": -9000000000}"#).big == -9_000_000_000)
        refuses(["count": 3.5], mentioning: "count")
        refuses(["small": 300], mentioning: "small")
        refuses(["byte": -1], mentioning: "byte")
        refuses(["medium": Int64(Int32.max) + 1], mentioning: "medium")
        refuses(["unsigned": UInt64.max], mentioning: "unsigned")
        refuses(["count": "12abc"], mentioning: "count")
        refuses(["count": "3.5"], mentioning: "count")
        refuses(["count": true], mentioning: "count")
        refuses(json: #"{"count": 1e30}"#, mentioning: "count")
    }

    func refuses(json: String, mentioning key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = expectError(.validationFailed, sourceLocation: sourceLocation) { try ISample.importObject(from: Data(json.utf8), in: context) }
        #expect(error?.message.contains("key path '\(key)'") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    @Test func floatingPointNumbers() throws {
        #expect(try sample(["ratio": "2.5"]).ratio == 2.5)
        #expect(try sample(["ratio": 7]).ratio == 7)
        #expect(try sample(json: #"{"ratio": 0.1}"#).ratio == 0.1)
        #expect(try sample(["single": 0.1]).single == Float(0.1), "a Float gets the nearest Float, as parsing does")
        refuses(["single": 1e300], mentioning: "single")
        refuses(["ratio": Int64.max], mentioning: "ratio")
        refuses(["ratio": "abc"], mentioning: "ratio")
        refuses(["ratio": -0.0], mentioning: "ratio")
    }

    @Test func textDataIdentifiersLinksAndDecimals() throws {
        #expect(try sample(["text": 7]).text == "7", "a number becomes its text")
        #expect(try sample(["text": 2.5]).text == "2.5")
        refuses(["text": ["a"]], mentioning: "text")
        refuses(["text": false], mentioning: "text")
        #expect(try sample(["blob": "AAEC"]).blob == Data([0, 1, 2]), "Data arrives as base64")
        refuses(["blob": "not base64!"], mentioning: "blob")
        let uuid = UUID()
        #expect(try sample(["uuid": uuid.uuidString.lowercased()]).uuid == uuid)
        refuses(["uuid": "nope"], mentioning: "uuid")
        #expect(try sample(["link": "https://example.com/a?b=1"]).link == URL(string: "https://example.com/a?b=1"))
        #expect(try sample(json: #"{"price": 0.1}"#).price == Decimal(string: "0.1"), "the JSON digits, not the Double's binary expansion")
        #expect(try sample(["price": "12.345"]).price == Decimal(string: "12.345"))
        refuses(["price": "12,3"], mentioning: "price")
    }

    @Test func nullSetsNilOrIsRefused() throws {
        #expect(try sample(["uuid": NSNull(), "point": NSNull()]).uuid == nil)
        let optional: String? = nil
        #expect(try sample(["blob": optional as Any]).blob == nil)
        refuses(["text": NSNull()], mentioning: "text")
        refuses(json: #"{"count": null}"#, mentioning: "count")

        // On an existing object null clears the value.
        let people = try RecordStack(inMemoryWith: importEntities).newContext()
        let ann = try #require(try IPerson.importObject(from: ["id": 1, "born": "2000-01-01"], in: people))
        #expect(ann.birthday != nil)
        _ = try IPerson.importObject(from: Data(#"{"id": 1, "born": null}"#.utf8), in: people)
        #expect(ann.birthday == nil)
    }

    @Test func codableValuesFromNestedJSON() throws {
        let object = try sample(json: #"{"tags": ["a", "b"], "point": {"y": 2, "x": 1}, "mood": "sad"}"#)
        #expect(object.tags == ["a", "b"] && object.point == IPoint(x: 1, y: 2) && object.mood == .sad)
        refuses(["point": ["x": "one"]], mentioning: "point")
        refuses(["tags": "a"], mentioning: "tags")
        refuses(["mood": "angry"], mentioning: "mood")
        try context.save()
        #expect(try ISample.count(in: context) == 1)
    }

    @Test func datesInEveryFormat() throws {
        let may1 = Date(timeIntervalSince1970: 1_714_521_600)  // 2024-05-01T00:00:00Z
        for text in [
            "2024-05-01", "2024-05-01T00:00:00Z", "2024-05-01T00:00:00", "2024-05-01 00:00:00",
            "2024-05-01T02:00:00+02:00", "2024-04-30T19:00:00-0500", "2024-05-01T00:00:00.000Z", "2024-05-01T00:00Z",
        ] {
            #expect(try sample(["when": text]).when == may1, "\(text)")
        }
        #expect(try sample(["when": "2024-05-01T00:00:00.25Z"]).when == may1.addingTimeInterval(0.25))
        let micro = try #require(try sample(["when": "2024-05-01T00:00:00.123456+00:00"]).when)
        #expect(abs(micro.timeIntervalSince1970 - 1_714_521_600.123456) < 1e-6, "every fractional digit a Double keeps")
        #expect(try sample(["when": 1_714_521_600]).when == may1, "without a format a number is Unix seconds")
        #expect(try sample(["seconds": "1714521600.5"]).seconds == may1.addingTimeInterval(0.5))
        #expect(try sample(["millis": 1_714_521_600_250]).millis == may1.addingTimeInterval(0.25))
        #expect(try sample(["local": "01/05/2024 02:00"]).local == may1, "Europe/Paris is UTC+2 in May")
        #expect(try sample(["day": "2024-05-01"]).day == may1, "a custom format without a zone is UTC")
        for bad in ["2024-13-01", "2024-02-30", "2024-05-01T25:00:00Z", "May 1st", "2024-05-01T00:00:00+2", "2024-05-01T00:00:00.Z"] {
            refuses(["when": bad], mentioning: "when")
        }
        refuses(["millis": "soon"], mentioning: "millis")
        refuses(["local": "2024-05-01"], mentioning: "local")
        refuses(["local": 5], mentioning: "local")
        refuses(["when": true], mentioning: "when")
    }

    @Test func errorsShowValuesOnlyWhenAllowed() throws {
        let error = expectError(.validationFailed) { try ISample.importObject(from: ["count": "secret-123"], in: context) }
        #expect(error?.message.contains("secret-123") == false, "\(error?.message ?? "")")
        #expect(error?.message.contains("a string is not an integer") == true, "\(error?.message ?? "")")
    }

    /// The rules Docs/Import.md states for dates and links, pinned.
    @Test func leapSecondsNumericDateStringsAndLinks() throws {
        refuses(["when": "2016-12-31T23:59:60Z"], mentioning: "when")
        refuses(["when": "2024-05-01T12:30:60Z"], mentioning: "when")
        refuses(["when": "1714521600"], mentioning: "when")  // .automatic: a string is ISO 8601 only
        #expect(try sample(["seconds": "1.7145216e9"]).seconds == Date(timeIntervalSince1970: 1_714_521_600))
        refuses(["seconds": "0x10"], mentioning: "seconds")
        refuses(["seconds": "1e400"], mentioning: "seconds")
        refuses(["when": Double.nan], mentioning: "when")
        // URL(string:) percent-encodes what it can; it refuses empty text and an unreadable host or port.
        #expect(try sample(["link": "not a url"]).link?.absoluteString == "not%20a%20url")
        for bad in ["", "http://x y.com", "http://[::1"] { refuses(["link": bad], mentioning: "link") }
    }
}
