import Foundation
import Testing
@testable import LiteRecord

/// Any text a person types is a valid search: FTS5's syntax characters are
/// searched as plain words, never an error and never SQL.
@Suite struct SearchInputTests {
    let stack: RecordStack
    let context: RecordContext

    init() throws {
        stack = try RecordStack(inMemoryWith: [SearchArticle.self])
        context = stack.newContext()
        for (title, body) in [
            ("C++ (beta) release notes", "templates and near misses"),
            ("Column title: value", "NEAR the end, AND then NOT OR"),
            ("Quotes \"inside\" text", "it's an apostrophe"),
            ("Café résumé naïve", "e\u{301}le\u{300}ve"),
            ("日本語のテキスト", "Ελληνικά κείμενα"),
        ] {
            context.insert(SearchArticle(title, body))
        }
        try context.save()
    }

    private func titles(_ text: String) throws -> [String] {
        try SearchArticle.search(text, in: context).map(\.title)
    }

    @Test func syntaxCharactersAreSearchedAsWords() throws {
        #expect(try titles("C++ (beta") == ["C++ (beta) release notes"])
        #expect(try titles("(beta)") == ["C++ (beta) release notes"])
        let both: Set = ["C++ (beta) release notes", "Column title: value"]
        #expect(Set(try titles("NEAR(")) == both, "NEAR is a word, not the operator")
        #expect(try titles("NEAR( templates misses)") == ["C++ (beta) release notes"])
        #expect(try titles("NEAR(templates misses)").isEmpty, "the phrase 'near templates' does not occur")
        #expect(try titles("title:") == ["Column title: value"])
        #expect(try titles("title:value") == ["Column title: value"], "the phrase 'title value'")
        #expect(try titles("value:title").isEmpty, "the phrase 'value title' does not occur")
        #expect(try titles("title: value") == ["Column title: value"])
        #expect(Set(try titles("AND")) == both, "AND is a word")
        #expect(try titles("NOT") == ["Column title: value"], "NOT is a word")
        #expect(try titles("or") == ["Column title: value"], "a lower-case or is the word")
        #expect(try titles("\"OR\"") == ["Column title: value"], "a quoted OR is the word")
        #expect(try titles("\"inside") == ["Quotes \"inside\" text"], "an unbalanced quote quotes to the end")
        #expect(try titles("quotes \"inside text") == ["Quotes \"inside\" text"])
        #expect(try titles("it's") == ["Quotes \"inside\" text"])
        #expect(try titles("^templates") == ["C++ (beta) release notes"], "^ is not the initial-token operator")
        #expect(try titles("eleve") == ["Café résumé naïve"], "NFD text with combining marks")
        #expect(try titles("日本語のテキスト") == ["日本語のテキスト"])
        #expect(try titles("日本語*") == ["日本語のテキスト"])
        #expect(try titles("κείμενα") == ["日本語のテキスト"])
        #expect(try titles("'; DROP TABLE Article; --").isEmpty)
        #expect(try SearchArticle.count(in: context) == 5, "the table is still there")
    }

    /// A NUL followed by a combining mark is one `Character`, so a
    /// `Character`-level replacement missed it and FTS5, reading the query
    /// as a C string, stopped inside a quoted term (the seed 191992227 case
    /// of ``randomUserInputNeverThrows()``).
    @Test func aNulJoinedToACombiningMarkEndsNoTerm() throws {
        for text in ["\"@x\0\u{0301}beta@xC++-", "\"beta\0\u{0301}", "beta\0\u{0308} notes"] {
            #expect(throws: Never.self) { try SearchArticle.search(text, in: context) }
            #expect(SearchQuery(text).fts5?.unicodeScalars.contains("\0") != true)
        }
        #expect(try titles("\"beta\0\u{0301}") == ["C++ (beta) release notes"])
    }

    @Test func textWithNothingToSearchForFindsNothingWithoutAStatement() throws {
        for text in ["", "   ", "\"", "\"\"", "*", "-", "--", "++", "()", "-word", "-\"a phrase\" -x", "\u{301}", "...", "OR", "OR OR", "-x OR"] {
            let (found, statements) = try stack.recordingSQL { try SearchArticle.search(text, in: context) }
            #expect(found.isEmpty, "\(text.debugDescription)")
            #expect(statements.isEmpty, "\(text.debugDescription) ran \(statements)")
        }
    }

    @Test func theQueryTextIsAlwaysQuotedTerms() {
        #expect(SearchQuery("swift concurrency").fts5 == #""swift" AND "concurrency""#)
        #expect(SearchQuery("swift*").fts5 == #""swift"*"#)
        #expect(SearchQuery("\"a b\"* c").fts5 == #""a b"* AND "c""#)
        #expect(SearchQuery("a OR b c").fts5 == #"("a" OR "b") AND "c""#)
        #expect(SearchQuery("a -b -\"c d\"").fts5 == #"("a") NOT ("b" OR "c d")"#)
        #expect(SearchQuery("C++ (beta").fts5 == #""C++" AND "(beta""#)
        #expect(SearchQuery("say \"hi").fts5 == #""say" AND "hi""#)
        #expect(SearchQuery("a\"\"b").fts5 == #""a" AND "b""#, "quotes end a word")
        #expect(SearchQuery("x OR -y").fts5 == #"("x") NOT ("y")"#)
        #expect(SearchQuery("-x").fts5 == nil)
        #expect(SearchQuery("cafe\u{301}").fts5 == "\"caf\u{E9}\"", "normalized to NFC")
    }

    /// 1,000 strings of random user input — words, punctuation, quotes,
    /// operators, combining marks, control characters — none throws, and
    /// every result is a record whose text FTS5 itself matches.
    @Test func randomUserInputNeverThrows() async throws {
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        var random = TrialRandom(seed: seed)
        let pieces: [String] = [
            "swift", "C++", "beta", "notes", "café", "cafe\u{301}", "\u{301}", "\u{308}", "NEAR", "NEAR(", "AND", "OR", "NOT",
            "\"", "\"\"", "'", "(", ")", "*", "-", "^", ":", "title:", "{", "}", "[", "]", ",", ";", "--", "/*", "\\", "+", "%",
            "_", "\0", "\u{1}", "\t", "\n", " ", "  ", "日本語", "κείμενα", "🙂", "\u{200B}", "e\u{301}le\u{300}ve", "DROP", "?",
            "$1", "@x", "“", "”", "x*", "-x", "\"a b\"", "column", "value",
        ]
        for round in 0..<1000 {
            // A thousand searches are seconds of CPU on a loaded machine:
            // other suites' tasks get the cooperative threads in between.
            if round.isMultiple(of: 25) { await Task.yield() }
            let count = Int.random(in: 0...8, using: &random)
            var text = ""
            for _ in 0..<count {
                text += pieces[Int.random(in: 0..<pieces.count, using: &random)]
                if Bool.random(using: &random) { text += " " }
            }
            do {
                let found = try SearchArticle.search(text, in: context)
                #expect(found.count <= 5)
                if let match = SearchQuery(text).fts5 {
                    let direct = try stack.store.withConnection("matching") { try $0.searchRowIDs("Article", match) }
                    #expect(Set(found.compactMap(\.recordID?.rowID)) == Set(direct), "seed \(seed) round \(round): \(text.debugDescription)")
                } else {
                    #expect(found.isEmpty)
                }
            } catch {
                Issue.record("seed \(seed) round \(round): \(text.debugDescription) threw \(error)")
            }
        }
        #expect(try stack.searchIndexProblem("Article") == nil)
    }
}
