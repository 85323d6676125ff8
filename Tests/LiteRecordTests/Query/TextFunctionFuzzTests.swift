import Foundation
import Testing
@testable import LiteRecord

/// A String-backed struct: compared by its raw value, and raw Strings are
/// equal by canonical equivalence.
struct FuzzCode: RawRepresentable, Codable, Hashable, Sendable {
    var rawValue: String
}

/// A Codable struct stored as JSON, compared by Swift's `==` in SQL.
struct FuzzLabel: Codable, Equatable, Sendable {
    var text: String
}

@Entity(name: "FuzzText")
final class FuzzText {
    var text = ""
    var tags: [String] = []
    var label: FuzzLabel = FuzzLabel(text: "")
    var code: FuzzCode = FuzzCode(rawValue: "")
    init() {}
}

/// Every SQL function and collation LiteRecord installs that reads text,
/// fed hostile text: NUL, combining marks, both spellings of accented
/// letters, Hangul syllables and jamo, emoji and ZWJ sequences, lone CR,
/// case-folding specials, long runs, and rows of bytes that are not UTF-8 at
/// all, written by raw SQL. Each function must never trap, and each query's
/// answer must be Swift's own evaluation of the same predicate (or sort)
/// over the fetched objects, which read invalid bytes as U+FFFD.
@Suite struct TextFunctionFuzzTests {
    static let seed: UInt64 = 0x5EED_7E57
    static let rowCount = 120
    static let needleCount = 80

    /// Pieces text is made of: each a trap for one rule or another.
    static let pieces = [
        "a", "B", "z", "K", "k", "\u{212A}", "é", "e\u{301}", "É", "E\u{301}", "\u{0}", "\u{301}", "\u{327}", "ß", "SS",
        "ss", "\u{1E9E}", "한", "\u{1112}\u{1161}\u{11AB}", "👍🏽", "👨‍👩‍👧", "\r", "\n", "\r\n", "ﬀ", "İ", "i\u{307}", "Σ",
        "σ", "ς", "ǅ", "ǆ", " ", "'", "%", "\u{345}", "ȷ", "\u{FFFD}",
    ]

    /// Byte strings that are not UTF-8: a lone lead byte, a NUL after an
    /// invalid byte, overlong forms, a lone continuation byte, a truncated
    /// four-byte sequence, an encoded surrogate, and a valid letter around them.
    static let invalidUTF8 = ["c3", "ff00", "c0af", "e080af", "80", "f09f98", "eda080", "43c3a9c3", "61ff62", "c3a900c3"]

    static func text(_ random: inout SeededGenerator) -> String {
        if Int.random(in: 0..<40, using: &random) == 0 {
            return String(repeating: pieces.randomElement(using: &random)!, count: Int.random(in: 50...400, using: &random))
        }
        return (0..<Int.random(in: 0...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A needle: half the time a run of some row's text (so matches happen),
    /// otherwise fresh text.
    static func needle(_ random: inout SeededGenerator, from texts: [String]) -> String {
        guard Bool.random(using: &random), let source = texts.randomElement(using: &random), !source.isEmpty else {
            return text(&random)
        }
        let scalars = Array(source.unicodeScalars)
        let start = Int.random(in: 0..<scalars.count, using: &random)
        let end = Int.random(in: start...min(scalars.count, start + 6), using: &random)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<end])
        return String(view)
    }

    /// A store of random rows plus the invalid ones, and the texts stored.
    static func makeStore(_ random: inout SeededGenerator) throws -> (RecordStack, [String]) {
        let stack = try RecordStack(inMemoryWith: [FuzzText.self])
        let context = stack.newContext()
        var texts: [String] = []
        for _ in 0..<rowCount {
            let row = FuzzText()
            row.text = text(&random)
            row.tags = (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) }
            row.label = FuzzLabel(text: text(&random))
            row.code = FuzzCode(rawValue: text(&random))
            context.insert(row)
            texts.append(row.text)
        }
        for bytes in invalidUTF8 {
            context.insert(FuzzText())
            texts.append(String(decoding: hex(bytes), as: UTF8.self))
        }
        try context.save()
        // Rows written by another program: bytes SQLite keeps as TEXT without
        // checking them.
        try stack.store.rawWrite("invalid UTF-8 rows") { connection in
            for (offset, bytes) in invalidUTF8.enumerated() {
                try connection.execute(
                    "UPDATE FuzzText SET text = CAST(? AS TEXT), code = CAST(? AS TEXT) WHERE rowid = ?",
                    [SQLValue.blob(hex(bytes)), SQLValue.blob(hex(bytes)), SQLValue.integer(Int64(rowCount + offset + 1))])
            }
        }
        return (stack, texts)
    }

    static func hex(_ text: String) -> Data {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }

    @Test func everyTextFunctionAgreesWithSwiftAndNeverTraps() throws {
        var random = SeededGenerator(seed: Self.seed)
        let (stack, texts) = try Self.makeStore(&random)
        var fuzz = TextFuzz(context: stack.newContext(), seed: Self.seed)
        // The needle that took a server down first ("é" then NUL), then random ones.
        let needles = ["é\u{0}", "e\u{301}\u{0}"] + (0..<Self.needleCount).map { _ in Self.needle(&random, from: texts) }
        for (index, needle) in needles.enumerated() {
            let others = (1...3).map { needles[(index + $0 * 7) % needles.count] }
            try fuzz.predicates(needle: needle, others: others)
            try fuzz.textMatches(needle: needle)
            try fuzz.orders(needle: needle)
        }
        let line = "[text-functions] \(fuzz.functions.count) functions, \(fuzz.cases) cases, 0 traps, \(fuzz.mismatches.count) mismatches"
        print(line)
        #expect(fuzz.mismatches.isEmpty, "\(fuzz.mismatches.prefix(20).joined(separator: "\n"))")
        #expect(fuzz.functions.count == TextFuzz.functionNames.count)
        #expect(fuzz.perFunction.values.allSatisfy { $0 >= 10_000 }, "\(fuzz.perFunction)")
    }

    /// The decimal collation reads text that is no Decimal (written by another
    /// program) without trapping, and keeps its order total.
    @Test func theDecimalCollationOrdersAnyText() throws {
        let stack = try RecordStack(inMemoryWith: [FuzzText.self])
        let values = ["1", "-2.5", "abc", "", "1e400", "0x10", "NaN", "\u{0}", "10", "1.0"]
        let sorted = try stack.store.rawWrite("decimal collation") { connection -> [String] in
            try connection.execute("CREATE TEMP TABLE d (x TEXT)")
            for value in values { try connection.execute("INSERT INTO d (x) VALUES (?)", [.text(value)]) }
            try connection.execute("INSERT INTO d (x) VALUES (CAST(x'ff00c3' AS TEXT))")
            return try connection.rows("SELECT x FROM d ORDER BY x COLLATE \(SwiftComparison.decimalCollation)").map {
                if case .text(let text) = $0[0] { text } else { "?" }
            }
        }
        #expect(sorted.count == values.count + 1, "\(sorted)")
        // Read as `Decimal(string:)` reads them, as a fetched object would:
        // "0x10" is 0; text that is no Decimal follows every number.
        #expect(Array(sorted.prefix(2)) == ["-2.5", "0x10"])
        #expect(Set(sorted[2..<4]) == ["1", "1.0"])
        #expect(sorted[4] == "10")
    }
}

/// Runs each function's queries and compares them with Swift.
struct TextFuzz {
    static let functionNames: Set<String> = [
        SQLFunctions.swiftCollation, SQLFunctions.swiftOrderCollation, SQLFunctions.lexicalCollation,
        SQLFunctions.stringLess, SQLFunctions.contains, SQLFunctions.startsWith, SQLFunctions.characterCount,
        SQLFunctions.jsonString, SQLFunctions.caseInsensitiveEquals, SQLFunctions.caseInsensitiveContains,
        SQLFunctions.caseInsensitivePrefix, SQLFunctions.caseInsensitiveSuffix, SwiftComparison.equalFunction,
        SwiftComparison.containsFunction, SwiftComparison.readFunction,
    ]

    let context: RecordContext
    let seed: UInt64
    var objects: [FuzzText] = []
    var cases = 0
    var perFunction: [String: Int] = [:]
    var mismatches: [String] = []
    var functions: Set<String> { Set(perFunction.keys) }

    init(context: RecordContext, seed: UInt64) {
        self.context = context
        self.seed = seed
        objects = (try? FuzzText.findAll(in: context)) ?? []
    }

    private mutating func record(_ function: String, _ count: Int) {
        perFunction[function, default: 0] += count
        cases += count
    }

    /// The objects the predicate selects in SQL, against Swift's evaluation.
    mutating func check(_ function: String, _ name: String, _ predicate: Predicate<FuzzText>) throws {
        let found = Set(try FuzzText.findAll(matching: predicate, in: context).map(ObjectIdentifier.init))
        for object in objects {
            let expected = try predicate.evaluate(object)
            if found.contains(ObjectIdentifier(object)) != expected {
                mismatches.append(
                    "seed \(seed) \(function) \(name): row \(object.text.debugDescription) label \(object.label.text.debugDescription) code \(object.code.rawValue.debugDescription): Swift \(expected), SQL \(!expected)"
                )
            }
        }
        record(function, objects.count)
    }

    mutating func predicates(needle: String, others: [String]) throws {
        let list = [needle] + others
        let label = FuzzLabel(text: needle)
        let labels = list.map(FuzzLabel.init(text:))
        let code = FuzzCode(rawValue: needle)
        let codes = list.map(FuzzCode.init(rawValue:))
        let count = needle.count
        let described = "needle \(needle.debugDescription)"
        try check(SQLFunctions.swiftCollation, "text == \(described)", #Predicate { $0.text == needle })
        try check(SQLFunctions.swiftCollation, "list.contains(text), \(list.map(\.debugDescription))", #Predicate { list.contains($0.text) })
        try check(SQLFunctions.swiftCollation, "code == \(described)", #Predicate { $0.code == code })
        try check(SQLFunctions.swiftCollation, "codes.contains(code)", #Predicate { codes.contains($0.code) })
        try check(SQLFunctions.stringLess, "text < \(described)", #Predicate { $0.text < needle })
        try check(SQLFunctions.stringLess, "\(described) < text", #Predicate { needle < $0.text })
        try check(SQLFunctions.contains, "text.contains(\(described))", #Predicate { $0.text.contains(needle) })
        try check(SQLFunctions.contains, "\(described).contains(text)", #Predicate { needle.contains($0.text) })
        try check(SQLFunctions.startsWith, "text.starts(with: \(described))", #Predicate { $0.text.starts(with: needle) })
        try check(SQLFunctions.characterCount, "text.count == \(count)", #Predicate { $0.text.count == count })
        try check(SQLFunctions.jsonString, "tags.contains(\(described))", #Predicate { $0.tags.contains(needle) })
        try check(SwiftComparison.equalFunction, "label == \(described)", #Predicate { $0.label == label })
        try check(SwiftComparison.containsFunction, "labels.contains(label)", #Predicate { labels.contains($0.label) })
        try check(SwiftComparison.readFunction, "label.text == \(described)", #Predicate { $0.label.text == needle })
    }

    /// ``TextMatch``: SQL (with its ASCII fast path) against the Swift rule.
    mutating func textMatches(needle: String) throws {
        let operations: [(String, TextMatchOperation, TextMatch<FuzzText>)] = [
            (SQLFunctions.caseInsensitiveEquals, .equals, .caseInsensitive(\.text, equals: needle)),
            (SQLFunctions.caseInsensitiveContains, .contains, .caseInsensitive(\.text, contains: needle)),
            (SQLFunctions.caseInsensitivePrefix, .hasPrefix, .caseInsensitive(\.text, hasPrefix: needle)),
            (SQLFunctions.caseInsensitiveSuffix, .hasSuffix, .caseInsensitive(\.text, hasSuffix: needle)),
        ]
        for (function, operation, match) in operations {
            let found = Set(try FuzzText.findAll(matching: match, in: context).map(ObjectIdentifier.init))
            for object in objects where found.contains(ObjectIdentifier(object)) != operation.matches(object.text, needle) {
                mismatches.append("seed \(seed) \(match): row \(object.text.debugDescription)")
            }
            record(function, objects.count)
        }
    }

    /// `ORDER BY` under the order collation and the lexical one, over the
    /// rows a `<=` comparison with the needle selects (so each sort sees
    /// another set): adjacent rows must be in order by Swift's rules.
    mutating func orders(needle: String) throws {
        let sorts: [(String, SortDescriptor<FuzzText>, (String, String) -> Bool)] = [
            (SQLFunctions.swiftOrderCollation, SortDescriptor(\.text), { !Self.canonicalKey($1).lexicographicallyPrecedes(Self.canonicalKey($0)) }),
            (
                SQLFunctions.lexicalCollation, SortDescriptor(\.text, comparator: .lexical),
                { String.StandardComparator.lexical.compare($0, $1) != .orderedDescending }
            ),
        ]
        for (function, sort, inOrder) in sorts {
            let request = FetchRequest<FuzzText>(predicate: #Predicate { $0.text >= needle }, sortBy: [sort])
            let sorted = try context.fetch(request).map(\.text)
            for (a, b) in zip(sorted, sorted.dropFirst()) where !inOrder(a, b) {
                mismatches.append("seed \(seed) \(function): \(a.debugDescription) sorted before \(b.debugDescription)")
            }
            // Every row is compared with its neighbours; count the whole table
            // once per sort, since the `>=` filter compares every row too.
            record(function, objects.count)
        }
    }

    /// The NFC scalars of a text: Swift's `==` is equality of these, and the
    /// order collation orders by them.
    static func canonicalKey(_ text: String) -> [UInt32] {
        text.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
    }
}
