import Foundation
import Testing
@testable import LiteRecord

/// Case-insensitive search without `lowercased()` (which Foundation's
/// `#Predicate` refuses on Linux): what SQL returns is the canonical caseless match,
/// text by text.
@Suite struct TextMatchTests {
    @Entity
    final class Book {
        var title = ""
        var subtitle: String?
        var year = 0
        @Transient var scratch = ""
        init() {}
        init(_ title: String, subtitle: String? = nil, year: Int = 2000) {
            self.title = title
            self.subtitle = subtitle
            self.year = year
        }
    }

    static let titles = [
        "Dune", "DUNE MESSIAH", "children of dune", "Dunes", "dune", "", "École", "ÉCOLE", "e\u{301}cole",
        "Ecole", "Straße", "STRASSE", "\u{212A}elvin", "kelvin", "Résumé", "resume", "ΣΊΣΥΦΟΣ", "σίσυφος",
        "a\r\nb", "A\nB", "İstanbul", "istanbul",
    ]
    static let patterns = [
        "dune", "DUNE", "une", "", "école", "ECOLE", "strasse", "straße", "kelvin", "résumé", "RESUME", "σίσυφος",
        "\r\n", "\n", "istanbul", "x",
    ]

    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [Book.self])
        context = stack.newContext()
        for (index, title) in Self.titles.enumerated() {
            context.insert(Book(title, subtitle: index.isMultiple(of: 3) ? nil : title, year: 1950 + index))
        }
        try context.save()
    }

    private func titles(_ request: FetchRequest<Book>) throws -> [String] {
        try context.fetch(request).map(\.title)
    }

    @Test(arguments: patterns)
    func everyOperationAgreesWithFoundation(pattern: String) throws {
        let operations: [(TextMatchOperation, TextMatch<Book>)] = [
            (.equals, .caseInsensitive(\.title, equals: pattern)),
            (.contains, .caseInsensitive(\.title, contains: pattern)),
            (.hasPrefix, .caseInsensitive(\.title, hasPrefix: pattern)),
            (.hasSuffix, .caseInsensitive(\.title, hasSuffix: pattern)),
        ]
        for (operation, match) in operations {
            let expected = Self.titles.filter { operation.matches($0, pattern) }
            let found = try Book.findAll(matching: match, in: context).map(\.title)
            #expect(found == expected, "\(match)")
        }
    }

    @Test func theRulesAreFoundationsOwn() {
        #expect(TextMatchOperation.contains.matches("ÉCOLE", "école"))
        #expect(TextMatchOperation.equals.matches("e\u{301}cole", "\u{C9}COLE"))
        #expect(!TextMatchOperation.equals.matches("Résumé", "resume"), "diacritics count")
        #expect(TextMatchOperation.contains.matches("anything", ""))
        #expect(!TextMatchOperation.equals.matches("anything", ""))
    }

    @Test func optionalTextNeverMatchesNil() throws {
        let found = try Book.findAll(matching: .caseInsensitive(\.subtitle, contains: ""), in: context)
        #expect(found.count == Self.titles.indices.filter { !$0.isMultiple(of: 3) }.count)
        #expect(found.allSatisfy { $0.subtitle != nil })
        let dune = try Book.findAll(matching: .caseInsensitive(\.subtitle, hasPrefix: "DUNE"), in: context)
        #expect(dune.map(\.title) == Self.titles.enumerated().filter { !$0.offset.isMultiple(of: 3) && TextMatchOperation.hasPrefix.matches($0.element, "DUNE") }.map(\.element))
    }

    @Test func combinesWithAPredicateSortingAndLimits() throws {
        var request = FetchRequest<Book>(
            predicate: #Predicate { $0.year > 1950 }, sortBy: [SortDescriptor(\.title)], fetchLimit: 2)
        request.textMatches = [.caseInsensitive(\.title, contains: "dune"), .caseInsensitive(\.title, hasSuffix: "E")]
        // "Dune" (1950) fails the predicate; "DUNE MESSIAH" and "Dunes" the suffix.
        #expect(try titles(request) == ["children of dune", "dune"])
        #expect(try context.count(request) == 2)
        request.textMatches.append(.caseInsensitive(\.title, hasPrefix: "CHILDREN"))
        #expect(try titles(request) == ["children of dune"])
        request.textMatches.append(.caseInsensitive(\.title, hasPrefix: "x"))
        #expect(try context.exists(request) == false)
    }

    @Test func theSearchTextIsBoundNeverSpliced() throws {
        let hostile = "' OR 1=1 --"
        let (found, statements) = try stack.recordingSQL {
            try Book.findAll(matching: .caseInsensitive(\.title, contains: hostile), in: context)
        }
        #expect(found.isEmpty)
        #expect(statements.allSatisfy { !$0.contains("OR 1=1") })
    }

    @Test func aKeyPathThatIsNotStoredTextIsRefused() throws {
        let error = expectError(.unsupportedPredicate) {
            try Book.findAll(matching: .caseInsensitive(\.scratch, contains: "x"), in: context)
        }
        #expect(error?.message.contains("not a stored String attribute") == true)
    }
}
