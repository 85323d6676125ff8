import Foundation
import Testing
@testable import LiteRecord

/// The Swift-string collations, whose ASCII cases are decided in C: every
/// pair must compare as Swift compares it, including text that is ASCII up
/// to a combining mark that changes the character before it.
@Suite struct CollationTests {
    /// ASCII, ASCII prefixes, and combining marks right after, or one byte
    /// after, the first difference.
    static let texts: [String] = [
        "", "a", "b", "A", "Z", "~", "ab", "abc", "abd", "ab\u{301}", "a\u{301}", "a\u{301}b", "aa\u{301}",
        "\u{E1}", "\u{E1}b", "e\u{301}x", "ez", "ex", "\u{E9}", "e", "e\u{301}", "K", "\u{212A}", "Ka",
        "\u{212A}a", "a\u{0}b", "a\u{0}", "n\u{303}", "\u{F1}", "nz", "o\u{308}\u{301}", "o\u{301}\u{308}",
        "aaaaaaaaaaaaaaaa\u{301}", "aaaaaaaaaaaaaaab", "Zoe\u{308}", "Zoë", "Zoey", "zoe",
        // Eight bytes at a time in C: differences and marks at the edges of
        // the first and second eight-byte words.
        "abcdefgh", "abcdefghi", "abcdefgh\u{301}", "abcdefg\u{301}h", "abcdefgha\u{301}", "abcdefghij",
        "abcdefghIj", "abcdefgh\u{0}x", "abcdefg\u{E9}", "abcdefge\u{301}", "abcdefgHij", "abcdefghijklmnop",
        "abcdefghijklmnoq", "abcdefghijklmnop\u{301}", "abcdefghijklmno\u{301}p", "abcdefghijklmnopq",
    ]

    private func connection() throws -> Connection {
        let db = try Connection(path: nil)
        try SQLFunctions.install(on: db)
        return db
    }

    private func compare(_ db: Connection, _ collation: String, _ a: String, _ b: String) throws -> Int {
        let sql = "SELECT CASE WHEN ?1 < ?2 COLLATE \(collation) THEN -1 WHEN ?1 = ?2 COLLATE \(collation) THEN 0 ELSE 1 END"
        guard case .integer(let result)? = try db.scalar(sql, [.text(a), .text(b)]) else {
            Issue.record("no result for \(a.debugDescription) vs \(b.debugDescription)")
            return 0
        }
        return Int(result)
    }

    /// The order `ORDER BY` promises: NFC-normalized scalars.
    private func nfcOrder(_ a: String, _ b: String) -> Int {
        let (x, y) = (Array(a.precomposedStringWithCanonicalMapping.utf8), Array(b.precomposedStringWithCanonicalMapping.utf8))
        return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
    }

    @Test func orderCollationAgreesWithNFCOrderOnEveryPair() throws {
        let db = try connection()
        for a in Self.texts {
            for b in Self.texts {
                #expect(
                    try compare(db, SQLFunctions.swiftOrderCollation, a, b) == nfcOrder(a, b),
                    "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test func equalityCollationAgreesWithSwiftOnEveryPair() throws {
        let db = try connection()
        for a in Self.texts {
            for b in Self.texts {
                let equal = try compare(db, SQLFunctions.swiftCollation, a, b) == 0
                #expect(equal == (a == b), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test func orderByMatchesSwiftSortingOfNFCText() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t (s TEXT)")
        for text in Self.texts { try db.execute("INSERT INTO t (s) VALUES (?)", [.text(text)]) }
        let statement = try db.cachedStatement("SELECT s FROM t ORDER BY s COLLATE \(SQLFunctions.swiftOrderCollation), rowid")
        var sorted: [String] = []
        while try statement.step() { sorted.append(statement.string(at: 0)) }
        statement.reset()
        let expected = Self.texts.enumerated().sorted { left, right in
            let order = nfcOrder(left.element, right.element)
            return order != 0 ? order < 0 : left.offset < right.offset
        }.map(\.element)
        #expect(sorted == expected)
    }
}
