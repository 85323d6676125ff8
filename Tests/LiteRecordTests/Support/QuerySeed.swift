import Foundation
import LiteRecord

/// A deterministic pseudo-random generator (SplitMix64), so every run seeds the
/// same objects and a failure can be reproduced.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum QuerySeed {
    /// Names chosen to trip up SQL: case, accents in both Unicode spellings,
    /// canonically equivalent singletons (KELVIN SIGN is "K" to Swift),
    /// numeric-looking text, quotes, SQL punctuation, NUL bytes, CR LF (one
    /// Character), emoji, CJK, empty and blank strings.
    static let names = [
        "Ann", "ann", "ANN", "Anna", "anne", "Åsa", "Zoë", "Zoe\u{308}", "zoe", "Émile", "E\u{301}mile", "émile",
        "Ørjan", "straße", "STRASSE", "K", "k", "\u{212A}", "\u{212A}elvin", "10", "9", "010", "1e3", "-1",
        "  spaced", "", " ", "a\r\nb", "a\nb", "\r", "中文", "日本語", "😀 smile", "O'Brien", "semi;colon",
        "dash--dash", "Null\u{0}byte", "İstanbul", "ǅemal", "ﬁne", "fine", "Ａnn", "Bee", "bee", "Zed", "zed",
        "Mallory", "eve", "Eve", "Ève", "cafe", "café", "cafe\u{301}", "A", "B", "a", "b", "_under", "~tilde",
    ]

    static let nicknames: [String?] = [nil, nil, nil, "Bee", "bee", "B", "", "Ann", "é", "e\u{301}", "Zoë", "zz", "m", "N", "mop", "中", "x\u{0}y"]

    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000.125)

    /// `count` objects with varied values; about a third of the optionals are nil.
    static func people(count: Int = 1_200, seed: UInt64 = 0x5EED) -> [QueryPerson] {
        var random = SeededGenerator(seed: seed)
        var people: [QueryPerson] = []
        for index in 0..<count {
            let person = QueryPerson()
            var name = names[Int.random(in: 0..<names.count, using: &random)]
            // Suffixes only where they cannot put a canonically equivalent
            // prefix in front of Swift's inconsistent `<` (see
            // `seededTextIsConsistentlyOrderedBySwift`).
            if Bool.random(using: &random), name.unicodeScalars.allSatisfy(\.isASCII), !name.hasPrefix("K") {
                name += String(Int.random(in: 0...120, using: &random))
            }
            person.name = name
            person.nickname = nicknames[Int.random(in: 0..<nicknames.count, using: &random)]
            person.age = Int.random(in: -5...120, using: &random)
            person.score = [0.0, -Double.leastNonzeroMagnitude, 1.5, -2.25, 1e300, -1e-300, 100].randomElement(using: &random) ?? 0
            if Bool.random(using: &random) { person.score = Double.random(in: -100...100, using: &random) }
            person.isActive = Bool.random(using: &random)
            person.birthday = base.addingTimeInterval(Double.random(in: -1e9...1e9, using: &random))
            var bytes: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes[0] = UInt8(truncatingIfNeeded: index)  // unique regardless of the random bytes
            bytes[1] = UInt8(truncatingIfNeeded: index >> 8)
            person.identifier = UUID(
                uuid: (
                    bytes[2], bytes[0], bytes[1], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            person.rank = Int.random(in: 0..<10, using: &random) < 4 ? nil : Int.random(in: -10...10, using: &random)
            person.status = Status.allCases.randomElement(using: &random) ?? .active
            person.small = Int8.random(in: Int8.min...Int8.max, using: &random)
            person.weight = Float.random(in: 0...100, using: &random)
            person.tags = Bool.random(using: &random) ? [] : ["t\(index % 7)"]
            person.price = Decimal(index) / 4
            person.flag = [nil, true, false].randomElement(using: &random) ?? nil
            person.level = Level.allCases.randomElement(using: &random) ?? .low
            people.append(person)
        }
        return people
    }

    /// An in-memory stack holding the seeded people.
    static func stack(count: Int = 1_200) throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: [QueryPerson.self, QueryTag.self])
        let context = stack.newContext()
        for person in people(count: count) { context.insert(person) }
        try context.save()
        return stack
    }
}
