import Foundation
import Testing
import LiteRecord

/// `SearchResult.snippet(of:)` replaces FTS5's marker characters scalar by
/// scalar: a marker followed by a combining mark forms one `Character` with
/// it, which a `Character`-level replacement does not see as the marker.
@Suite struct SearchSnippetMarkerTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        context = stack.newContext()
    }

    /// `unicode61` ends a word before a combining mark that is not a
    /// diacritic (U+20DD enclosing circle, U+FE0F variation selector,
    /// U+0903 Devanagari visarga): FTS5's close marker lands right before
    /// it. A diacritic (U+0301) is part of the word, the marker after it.
    @Test func aCombiningMarkAfterAMatchedWordKeepsTheMarkers() throws {
        context.insert(SearchArticle("brown\u{20DD} fox\u{FE0F} jumps", "the x\u{903}stays e\u{301}\u{301} lonely"))
        try context.save()
        let hit = try #require(try SearchArticle.searchResults("brown fox", in: context).first)
        let snippet = hit.snippet(of: \.title)
        #expect(snippet == "**brown**\u{20DD} **fox**\u{FE0F} jumps")
        #expect(!snippet.unicodeScalars.contains { $0 == "\u{1}" || $0 == "\u{2}" }, "no marker left: \(snippet.unicodeScalars.map(\.value))")
        let tagged = hit.snippet(of: \.title, open: "<b>", close: "</b>")
        #expect(tagged == "<b>brown</b>\u{20DD} <b>fox</b>\u{FE0F} jumps")

        let body = try #require(try SearchArticle.searchResults("x stays e", in: context).first).snippet(of: \.body, open: "[", close: "]")
        #expect(body == "the [x]\u{903}[stays] [e\u{301}\u{301}] lonely")
        #expect(!body.unicodeScalars.contains { $0 == "\u{1}" || $0 == "\u{2}" })
    }

    /// Marker strings that themselves start with a combining mark, or are
    /// empty, are inserted as given.
    @Test func anyMarkerTextIsInsertedAsGiven() throws {
        context.insert(SearchArticle("plain words here"))
        try context.save()
        let hit = try #require(try SearchArticle.searchResults("words", in: context).first)
        #expect(hit.snippet(of: \.title, open: "", close: "") == "plain words here")
        #expect(hit.snippet(of: \.title, open: "\u{301}<", close: ">\u{308}") == "plain \u{301}<words>\u{308} here")
    }

    /// Text that itself holds U+0001 or U+0002 keeps them: only the markers
    /// this search put around matches are replaced.
    @Test func storedMarkerCharactersStayText() throws {
        context.insert(SearchArticle("a\u{1}b swift\u{2}c", "x\u{2}\u{1}y"))
        try context.save()
        let hit = try #require(try SearchArticle.searchResults("swift", in: context).first)
        #expect(hit.snippet(of: \.title, open: "<", close: ">") == "a\u{1}b <swift>\u{2}c")
        #expect(hit.snippet(of: \.body, open: "<", close: ">") == "x\u{2}\u{1}y")
    }
}
