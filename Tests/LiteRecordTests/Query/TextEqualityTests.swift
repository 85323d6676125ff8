import Foundation
import Testing
@testable import LiteRecord

/// Every string comparison LiteRecord offers agrees with Swift's `==` and
/// `<`: "Café" typed precomposed (NFC) and decomposed (NFD) are one title
/// whichever entry point looks for it.
@Suite @MainActor struct TextEqualityTests {
    @Entity
    final class Shelf {
        var title = ""  // plain text: compared with the Swift collation
        @Attribute(.unique) var code = ""  // unique: stored in NFC
        @Attribute(.indexed) var author = ""  // indexed: stored in NFC
        init() {}
        init(title: String, code: String, author: String) {
            self.title = title
            self.code = code
            self.author = author
        }
    }

    nonisolated static let nfc = "Caf\u{E9}"
    nonisolated static let nfd = "Cafe\u{301}"
    /// The Kelvin sign is canonically equivalent to "K", not just another form of it.
    nonisolated static let kelvin = "\u{212A}elvin"

    let stack: RecordStack
    var context: RecordContext { stack.mainContext }

    init() throws {
        stack = try RecordStack(inMemoryWith: [Shelf.self])
    }

    private func store(_ title: String, code: String, author: String) throws {
        context.insert(Shelf(title: title, code: code, author: author))
        try context.save()
    }

    @Test func theTwoFormsDifferInBytesButAreEqualInSwift() {
        #expect(Self.nfc == Self.nfd)
        #expect(Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
        #expect(Self.kelvin == "Kelvin")
    }

    @Test(arguments: [(nfc, nfd), (nfd, nfc), (kelvin, "Kelvin"), ("Kelvin", kelvin)])
    func findFirstByAttributeMatchesEveryColumnKind(stored: String, looked: String) async throws {
        try store(stored, code: stored, author: stored)
        for attribute in ["title", "code", "author"] {
            let found = try Shelf.findFirst(byAttribute: attribute, withValue: looked, in: context)
            #expect(found != nil, "findFirst(byAttribute: \(attribute)) missed a canonically equal value")
            #expect(try Shelf.find(byAttribute: attribute, withValue: looked, in: context).count == 1)
        }
        // And the predicate route gives the same answer.
        #expect(try Shelf.count(matching: #Predicate { $0.title == looked }, in: context) == 1)
        #expect(try Shelf.count(matching: #Predicate { $0.code == looked }, in: context) == 1)
    }

    @Test func byAttributeDoesNotMatchDifferentText() throws {
        try store(Self.nfc, code: Self.nfc, author: Self.nfc)
        for attribute in ["title", "code", "author"] {
            #expect(try Shelf.findFirst(byAttribute: attribute, withValue: "Cafe", in: context) == nil)
            #expect(try Shelf.findFirst(byAttribute: attribute, withValue: "caf\u{E9}", in: context) == nil)
        }
    }

    @Test func findFirstOrCreateFindsTheOtherFormInsteadOfCreatingADuplicate() throws {
        try store("first", code: Self.nfc, author: "a")
        let found = try Shelf.findFirstOrCreate(byAttribute: "code", withValue: Self.nfd, in: context)
        #expect(found.title == "first")
        #expect(try Shelf.count(in: context) == 1)

        let created = try Shelf.findFirstOrCreate(byAttribute: "title", withValue: Self.nfd, in: context)
        #expect(try Shelf.count(in: context) == 2)
        #expect(try Shelf.findFirstOrCreate(byAttribute: "title", withValue: Self.nfc, in: context) === created)
        #expect(try Shelf.count(in: context) == 2)
    }

    @Test func aUniqueAttributeRefusesTheOtherFormOfAStoredValue() throws {
        try store("first", code: Self.nfc, author: "a")
        context.insert(Shelf(title: "second", code: Self.nfd, author: "b"))
        #expect {
            try context.save()
        } throws: { error in
            (error as? LiteRecordError)?.kind == .constraintViolation
        }
        #expect(context.hasChanges, "the refused change stays in the context")
    }

    @Test func uniqueAndIndexedTextIsStoredInNFCAndReadsBackEqual() throws {
        try store(Self.nfd, code: Self.nfd, author: Self.nfd)
        let stored =
            try context.reading("reading raw") { connection in
                try connection.rows("SELECT \"title\", \"code\", \"author\" FROM \"Shelf\"", [])
            }.first ?? []
        #expect(stored == [.text(Self.nfd), .text(Self.nfc), .text(Self.nfc)], "only unique and indexed text is normalized")
        let fresh = stack.newContext()
        let shelf = try #require(try Shelf.findAll(in: fresh).first)
        #expect(shelf.code == Self.nfd, "Swift's == holds after the round trip")
    }

    /// A fetch skips re-reading an object whose row is still at the version
    /// it has; a save that stored the other form of its text marks it, so the
    /// saving context's next fetch still reads back the stored bytes.
    @Test func refetchInTheSavingContextReadsBackTheStoredForm() throws {
        try store(Self.kelvin, code: Self.kelvin, author: "plain")
        let shelf = try #require(try Shelf.findAll(in: context).first)
        #expect(Array(shelf.code.utf8) == Array("Kelvin".utf8), "the unique code reads back as stored, in NFC")
        #expect(Array(shelf.title.utf8) == Array(Self.kelvin.utf8), "plain text is stored as given")
        #expect(!shelf.recordState.isStale)
        shelf.author = Self.nfd
        try context.save()
        #expect(shelf.recordState.isStale)
        _ = try Shelf.findAll(in: context)
        #expect(Array(shelf.author.utf8) == Array(Self.nfc.utf8))
        #expect(!shelf.recordState.isStale)
    }

    @Test func changingAUniqueValueToTheOtherFormIsStoredInNFC() throws {
        try store("t", code: "plain", author: "a")
        let shelf = try #require(try Shelf.findFirst(byAttribute: "code", withValue: "plain", in: context))
        shelf.code = Self.nfd
        try context.save()
        #expect(try Shelf.findFirst(byAttribute: "code", withValue: Self.nfc, in: stack.newContext()) != nil)
    }

    @Test func indexedLookupsStillUseTheIndex() throws {
        let plan = try context.reading("explaining") { connection in
            try connection.rows("EXPLAIN QUERY PLAN SELECT * FROM \"Shelf\" WHERE \"author\" = ?", [.text("x")])
        }
        let details = plan.compactMap { row -> String? in
            if case .text(let detail)? = row.last { return detail }
            return nil
        }
        #expect(details.contains { $0.contains("USING INDEX") }, "\(details)")
    }

    @Test func sortingByNameFollowsSwiftsOrder() throws {
        let titles = ["f", Self.nfd, "e", "Z", "\u{E9}a", "e\u{301}b", "a"]
        for (index, title) in titles.enumerated() {
            context.insert(Shelf(title: title, code: "\(index)", author: title))
        }
        try context.save()
        let expected = titles.sorted()
        for attribute in ["title", "author"] {
            let sorted = try Shelf.findAll(sortedBy: attribute, in: context).map(\.title)
            #expect(sorted == expected, "findAll(sortedBy: \(attribute))")
        }
        let byDescriptor = try Shelf.findAll(sortedBy: [comparableOrder(\Shelf.title)], in: context).map(\.title)
        #expect(byDescriptor == expected)
    }
}
