import Foundation
import LiteRecordTesting
import Testing
@testable import LiteRecord

/// `Entity.search` and `searchResults`: what matches (case, diacritics,
/// NFC/NFD, prefixes, phrases, OR, `-word`), the order (BM25 with weights,
/// or sort descriptors), filters composed in one statement, paging, scores
/// and snippets.
@Suite struct SearchQueryTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        context = stack.newContext()
    }

    private func seed(_ articles: [SearchArticle]) throws {
        for article in articles { context.insert(article) }
        try context.save()
    }

    private func titles(_ text: String) throws -> [String] {
        try SearchArticle.search(text, in: context).map(\.title)
    }

    @Test func everyWordMustMatchAndTheResultIsRankedByRelevance() throws {
        try seed([
            SearchArticle("Cooking pasta", "Water, salt and swift boiling"),
            SearchArticle("Swift concurrency", "Actors and tasks in Swift"),
            SearchArticle("Gardening", "Nothing about programming"),
            SearchArticle("Concurrency in Go", "Goroutines, not swift at all, a long text about channels and more"),
        ])
        #expect(try titles("swift").first == "Swift concurrency", "two matches, one in the weighted title")
        #expect(Set(try titles("swift")) == ["Cooking pasta", "Swift concurrency", "Concurrency in Go"])
        #expect(Set(try titles("swift concurrency")) == ["Swift concurrency", "Concurrency in Go"], "both words")
        #expect(try titles("gardening programming") == ["Gardening"])
        #expect(try titles("kotlin").isEmpty)
    }

    @Test func theTitleWeightOrdersATitleMatchBeforeABodyMatch() throws {
        try seed([
            SearchArticle("Notes", "rust"),
            SearchArticle("rust", "Notes"),
        ])
        #expect(try titles("rust") == ["rust", "Notes"], "weight 3 on the title")
        let results = try SearchArticle.searchResults("rust", in: context)
        #expect(results.count == 2)
        #expect(results[0].score > results[1].score, "higher is better: \(results.map(\.score))")
        #expect(results.allSatisfy { $0.score > 0 })
    }

    @Test func caseAndDiacriticsAreIgnoredInNFCAndNFD() throws {
        let nfd = "Cafe\u{301} noir"
        try seed([
            SearchArticle("Café crème", "à Paris"),
            SearchArticle(nfd, "Ångström units"),
            SearchArticle("Coffee", "plain"),
        ])
        #expect(Set(try titles("cafe")) == ["Café crème", nfd])
        #expect(Set(try titles("CAFÉ")) == ["Café crème", nfd])
        #expect(Set(try titles("cafe\u{301}")) == ["Café crème", nfd], "an NFD query")
        #expect(try titles("CRÈME") == ["Café crème"])
        #expect(try titles("paris") == ["Café crème"])
        #expect(try titles("angstrom") == [nfd])
        #expect(try titles("A\u{30A}ngstro\u{308}m") == [nfd], "NFD query, NFC-stored text")
        // The NFD title was stored in NFC, so the index and the column agree.
        let stored = try stack.store.withConnection("reading") { try $0.scalar("SELECT title FROM Article WHERE title LIKE 'Caf%noir'") }
        #expect(stored == .text("Café noir".precomposedStringWithCanonicalMapping))
        #expect(try stack.searchIndexProblem("Article") == nil)
    }

    @Test func prefixesPhrasesOrAndExclusions() throws {
        try seed([
            SearchArticle("Programming Swift", "generic programming"),
            SearchArticle("Programs", "a program list"),
            SearchArticle("Swift programming", "the programming of birds"),
            SearchArticle("Birds", "swallows and swifts"),
        ])
        #expect(Set(try titles("program*")) == ["Programming Swift", "Programs", "Swift programming"])
        #expect(try titles("\"swift programming\"") == ["Swift programming"], "a phrase: adjacent, in order")
        #expect(Set(try titles("swift programming")) == ["Programming Swift", "Swift programming"])
        #expect(Set(try titles("swallows OR programs")) == ["Birds", "Programs"])
        #expect(Set(try titles("swallows OR programs list")) == ["Programs"], "(swallows OR programs) AND list")
        #expect(try titles("swift -birds") == ["Programming Swift"])
        #expect(Set(try titles("programming -\"generic programming\"")) == ["Swift programming"])
        #expect(try titles("-birds").isEmpty, "only exclusions: nothing to search for")
        #expect(Set(try titles("swift*")) == ["Programming Swift", "Swift programming", "Birds"])
    }

    @Test func aPredicateFilterComposesInOneStatement() throws {
        try seed([
            SearchArticle("Swift one", views: 10),
            SearchArticle("Swift two", views: 200),
            SearchArticle("Swift three", views: 300, draft: true),
            SearchArticle("Other", views: 500),
        ])
        let (found, statements) = try stack.recordingSQL {
            try SearchArticle.search("swift", matching: #Predicate { $0.views > 100 && !$0.draft }, in: context).map(\.title)
        }
        #expect(found == ["Swift two"])
        // FTS5's own reads of its shadow tables (`'main'.…`) are traced too.
        let ours = statements.filter { !$0.contains("'main'.") }
        #expect(ours.count == 1, "\(ours)")
        let sql = try #require(ours.first)
        #expect(sql.contains("MATCH ?"), "the query text is bound: \(sql)")
        let plan = try stack.store.withConnection("planning") { connection in
            try connection.rows("EXPLAIN QUERY PLAN \(sql)", [.text("\"swift\""), .integer(100)]).map { $0.last?.textValue ?? "" }
        }
        #expect(plan.contains { $0.contains("VIRTUAL TABLE INDEX") && $0.contains("literecord_search:Article") }, "\(plan)")
        #expect(plan.contains { $0.contains("SEARCH Article USING INTEGER PRIMARY KEY") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN Article") }, "the entity table is not scanned: \(plan)")
    }

    @Test func sortDescriptorsReplaceRelevanceAndLimitOffsetPage() throws {
        try seed((1...7).map { SearchArticle("Swift \($0)", "swift swift", views: ($0 * 37) % 10) })
        let byViews = try SearchArticle.search("swift", sortBy: [SortDescriptor(\.views, order: .reverse)], in: context)
        #expect(byViews.map(\.views) == byViews.map(\.views).sorted(by: >))
        let all = try SearchArticle.search("swift", in: context).map(\.title)
        #expect(all.count == 7)
        let page = try SearchArticle.search("swift", limit: 3, offset: 2, in: context).map(\.title)
        #expect(page == Array(all[2..<5]))
        #expect(try SearchArticle.search("swift", limit: 0, in: context).isEmpty)
        #expect(try SearchArticle.search("swift", limit: -4, in: context).isEmpty, "a negative limit counts as 0")
        #expect(try SearchArticle.search("swift", offset: -1, in: context).count == 7)
    }

    @Test func snippetsMarkTheMatchedWords() throws {
        try seed([SearchArticle("Learning Swift", "You can write Swift code on Linux with Swift Package Manager", views: 1)])
        let hit = try #require(try SearchArticle.searchResults("swift linux", in: context).first)
        #expect(hit.object.title == "Learning Swift")
        #expect(hit.snippet(of: \.title) == "Learning **Swift**")
        #expect(hit.snippet(of: \.body) == "You can write **Swift** code on **Linux** with **Swift** Package Manager")
        #expect(hit.snippet(of: \.body, open: "<b>", close: "</b>").contains("<b>Linux</b>"))
        #expect(hit.snippet(of: \.views) == "", "not a searchable attribute")
        let none = try #require(try SearchArticle.searchResults("learning", in: context).first)
        #expect(none.snippet(of: \.body) == "You can write Swift code on Linux with Swift Package Manager", "no match in the body")
    }

    @Test func searchReturnsTheContextsObjectsAndReadsOnlySavedText() throws {
        let article = SearchArticle("Saved title", "body")
        try seed([article])
        #expect(try SearchArticle.search("saved", in: context).first === article, "one object per record")
        article.title = "Edited title"
        #expect(try SearchArticle.search("edited", in: context).isEmpty, "unsaved text is not searched")
        let found = try SearchArticle.search("saved", in: context)
        #expect(found.first === article && article.title == "Edited title", "the unsaved edit is kept")
        context.insert(SearchArticle("Unsaved insert"))
        #expect(try SearchArticle.search("unsaved", in: context).isEmpty)
        try context.save()
        #expect(try SearchArticle.search("edited", in: context).map(\.title) == ["Edited title"])
        #expect(try SearchArticle.search("saved", in: context).isEmpty)
        #expect(try SearchArticle.search("unsaved", in: context).count == 1)
    }

    @Test func anEntityWithoutSearchableAttributesIsRefused() throws {
        let plain = try RecordStack(inMemoryWith: [SearchBlog.self, SearchPost.self])
        #expect {
            try SearchBlog.search("x", in: plain.newContext())
        } throws: { error in
            (error as? LiteRecordError)?.kind == .unknownAttribute && "\(error)".contains("@Attribute(.searchable)")
        }
    }
}

/// The main-context forms, on the default stack.
@Suite(.inMemoryStack(entities: [SearchArticle.self]))
@MainActor struct SearchMainContextTests {
    @Test func searchAndSearchResultsWithoutIn() throws {
        try SearchArticle("Main context search", "text").save()
        try SearchArticle("Something else", "text").save()
        #expect(try SearchArticle.search("main").map(\.title) == ["Main context search"])
        #expect(try SearchArticle.search("text", matching: #Predicate { $0.title != "Something else" }, limit: 5).count == 1)
        let hits = try SearchArticle.searchResults("context")
        #expect(hits.map { $0.snippet(of: \.title) } == ["Main **context** search"])
    }
}

/// A model that asks for search where it cannot have it is refused with a
/// clear message (the macro refuses it at compile time; a hand-written
/// entity reaches `Model`).
@Suite struct SearchModelTests {
    final class Counter: Entity {
        var recordState = RecordState()
        static let attributes: [AttributeDescription] = [AttributeDescription("count", type: .int, options: [.searchable])]
        init(row: Row) throws {}
        func encodeAttribute(at index: Int) throws -> SQLValue { .integer(0) }
        func decodeAttribute(at index: Int, from row: Row) throws {}
    }

    final class Ranked: Entity {
        var recordState = RecordState()
        static let attributes: [AttributeDescription] = [AttributeDescription("rank", type: .string, options: [.searchable])]
        init(row: Row) throws {}
        func encodeAttribute(at index: Int) throws -> SQLValue { .text("") }
        func decodeAttribute(at index: Int, from row: Row) throws {}
    }

    final class Weighted: Entity {
        var recordState = RecordState()
        static let attributes: [AttributeDescription] = [
            AttributeDescription("title", type: .string, options: [.searchable], searchWeight: -1)
        ]
        init(row: Row) throws {}
        func encodeAttribute(at index: Int) throws -> SQLValue { .text("") }
        func decodeAttribute(at index: Int, from row: Row) throws {}
    }

    @Test(arguments: [
        (Counter.self as any Entity.Type, "'count' is .searchable but stores int"),
        (Ranked.self, "'rank' cannot be .searchable"),
        (Weighted.self, "search weight -1.0"),
    ])
    func refused(type: any Entity.Type, message: String) {
        #expect {
            try Model(entities: [type])
        } throws: { error in
            (error as? LiteRecordError)?.kind == .invalidModel && "\(error)".contains(message)
        }
    }
}
