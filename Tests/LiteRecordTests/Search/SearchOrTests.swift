import Foundation
import Testing
@testable import LiteRecord

/// `OR` joins the two terms around it, and only two terms that must match
/// (Docs/Search.md): an `OR` at either end of the text, or beside a
/// `-word`, joins nothing and is ignored — it is never searched as the word
/// "or", and never joins terms across an exclusion.
@Suite struct SearchOrTests {
    let context: RecordContext
    let stack: RecordStack

    init() throws {
        stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        context = stack.newContext()
        for (title, body) in [
            ("swift one", "apples"), ("swift two", "bananas"), ("swift three", "cherries"),
            ("rust", "bananas and apples"), ("go", "cherries"),
        ] {
            context.insert(SearchArticle(title, body))
        }
        try context.save()
    }

    private func titles(_ text: String) throws -> Set<String> {
        Set(try SearchArticle.search(text, in: context).map(\.title))
    }

    @Test func aDanglingOrIsIgnored() throws {
        let swift: Set = ["swift one", "swift two", "swift three"]
        #expect(try titles("swift OR") == swift, "a trailing OR")
        #expect(try titles("OR swift") == swift, "a leading OR")
        #expect(try titles("swift OR OR") == swift)
        #expect(try titles("swift OR OR go") == swift.union(["go"]), "a doubled OR is one")
    }

    @Test func anOrBesideAnExclusionJoinsNothing() throws {
        #expect(try titles("swift OR -bananas") == ["swift one", "swift three"], "a OR -b is a -b")
        #expect(try titles("-bananas OR cherries") == ["swift three", "go"], "-b OR c is c -b")
        #expect(try titles("swift -bananas OR cherries") == ["swift three"], "a -b OR c is a c -b, not (a OR c) -b")
        #expect(try titles("swift OR go -cherries") == ["swift one", "swift two"], "(a OR b) -c")
    }

    @Test func theFTS5FormsSayTheSame() {
        #expect(SearchQuery("a OR").fts5 == #""a""#)
        #expect(SearchQuery("OR a").fts5 == #""a""#)
        #expect(SearchQuery("a OR -b").fts5 == #"("a") NOT ("b")"#)
        #expect(SearchQuery("-b OR c").fts5 == #"("c") NOT ("b")"#)
        #expect(SearchQuery("a -b OR c").fts5 == #"("a" AND "c") NOT ("b")"#)
        #expect(SearchQuery("a OR OR b").fts5 == #"("a" OR "b")"#)
        #expect(SearchQuery("OR").fts5 == nil)
        #expect(SearchQuery("a or b").fts5 == #""a" AND "or" AND "b""#, "lower-case or is a word")
    }
}
