import Foundation

/// Turns the text a person typed into a search box into an FTS5 query that
/// is always valid (https://sqlite.org/fts5.html#full_text_query_syntax).
///
/// What the text may use:
/// - words: every one must match (`swift concurrency`);
/// - `"quoted words"`: a phrase, the words next to each other in that order;
///   a quote without its closing partner quotes to the end of the text;
/// - `word*` (or `"a phrase"*`): the last word is a prefix;
/// - `OR` in capitals between two terms: either matches (`swift OR rust
///   concurrency` is `(swift OR rust) AND concurrency` — unlike FTS5's own
///   precedence, what a search box user means). An `OR` that is not between
///   two terms that must match — at either end, beside a `-word` — is
///   ignored: `swift OR` is `swift`, `a -b OR c` is `a c -b`;
/// - `-word` (or `-"a phrase"`): records containing it are left out.
///
/// Everything else — `C++`, `(beta`, `NEAR(`, `title:`, `^`, `AND`, `NOT` —
/// is plain text: each term is emitted as an FTS5 string (in double quotes,
/// quotes inside doubled), which the tokenizer splits into words, so no
/// character can reach FTS5's syntax. A term without a letter or a digit
/// (`++`, `-`, `*`) is dropped.
///
/// A query with nothing to search for — empty, only punctuation, or only
/// `-word`s (FTS5's `NOT` needs something to subtract from) — has no FTS5
/// form: ``fts5`` is `nil`, and a search returns no records.
struct SearchQuery: Equatable {
    /// One phrase of the query.
    struct Term: Equatable {
        var text: String
        var isPrefix = false
        var isNegated = false

        /// `"text"` (with `*` for a prefix), quotes in the text doubled.
        var fts5: String {
            // Scalar by scalar, as the query was split: a quote followed
            // by a combining mark is one Character.
            var quoted = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                quoted.append(scalar)
                if scalar == "\"" { quoted.append(scalar) }
            }
            return "\"" + String(quoted) + "\"" + (isPrefix ? "*" : "")
        }
    }

    /// The terms every match must contain: each group is a list of
    /// alternatives joined by `OR`.
    private(set) var required: [[Term]] = []
    /// Terms no match may contain.
    private(set) var excluded: [Term] = []

    init(_ text: String) {
        // FTS5 reads its query as a C string: a NUL would end it mid-term.
        // Replaced scalar by scalar: a NUL followed by a combining mark is
        // one Character, which a String replacement does not match.
        let scalars = text.precomposedStringWithCanonicalMapping.unicodeScalars.map { $0 == "\0" ? " " : $0 }
        let normalized = String(String.UnicodeScalarView(scalars))
        // An OR joins the required term before it to the required term
        // after it; one with no required term on either side (at an end of
        // the text, beside a `-word`, after another OR) joins nothing and
        // is dropped — never searched as the word, never joining terms
        // across an exclusion.
        var pendingOr = false
        var afterRequired = false
        for item in Self.items(normalized) {
            switch item {
            case .or:
                pendingOr = pendingOr || afterRequired
                afterRequired = false
            case .term(let term) where term.isNegated:
                excluded.append(term)
                pendingOr = false
                afterRequired = false
            case .term(let term):
                if pendingOr {
                    required[required.count - 1].append(term)
                } else {
                    required.append([term])
                }
                pendingOr = false
                afterRequired = true
            }
        }
    }

    /// The FTS5 query, or `nil` when the text has nothing to search for.
    var fts5: String? {
        guard !required.isEmpty else { return nil }
        let positive = required.map { group in
            group.count == 1 ? group[0].fts5 : "(" + group.map(\.fts5).joined(separator: " OR ") + ")"
        }.joined(separator: " AND ")
        guard !excluded.isEmpty else { return positive }
        var negated = excluded
        for index in negated.indices { negated[index].isNegated = false }
        return "(\(positive)) NOT (\(negated.map(\.fts5).joined(separator: " OR ")))"
    }

    private enum Item {
        case term(Term)
        case or
    }

    /// The text split into terms: quoted phrases, and words separated by
    /// white space; terms without a letter or digit are dropped.
    private static func items(_ text: String) -> [Item] {
        var items: [Item] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if isSpace(scalars[index]) {
                index += 1
                continue
            }
            var negated = false
            if scalars[index] == "-", index + 1 < scalars.count, !isSpace(scalars[index + 1]) {
                negated = true
                index += 1
            }
            let item =
                isQuote(scalars[index])
                ? phrase(scalars, at: &index, negated: negated) : word(scalars, at: &index, negated: negated)
            if let item { items.append(item) }
        }
        return items
    }

    /// Reads the quoted phrase at `index` (a quote), to the closing quote or
    /// the end of the text, and a `*` after it; `nil` when it holds no word.
    private static func phrase(_ scalars: [Unicode.Scalar], at index: inout Int, negated: Bool) -> Item? {
        var end = index + 1
        while end < scalars.count && !isQuote(scalars[end]) { end += 1 }
        let phrase = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
        index = end + 1
        var isPrefix = false
        if index < scalars.count && scalars[index] == "*" {
            isPrefix = true
            index += 1
        }
        return hasWordCharacter(phrase) ? .term(Term(text: phrase, isPrefix: isPrefix, isNegated: negated)) : nil
    }

    /// Reads the word at `index`, to white space or a quote: `OR`, or a term
    /// (a prefix when it ends in `*`); `nil` when it holds no word.
    private static func word(_ scalars: [Unicode.Scalar], at index: inout Int, negated: Bool) -> Item? {
        var end = index
        while end < scalars.count && !isSpace(scalars[end]) && !isQuote(scalars[end]) { end += 1 }
        var word = String(String.UnicodeScalarView(scalars[index..<end]))
        index = end
        if word == "OR" && !negated { return .or }
        var isPrefix = false
        if word.hasSuffix("*") {
            while word.hasSuffix("*") { word.removeLast() }
            isPrefix = word.unicodeScalars.last.map(isWordCharacter) ?? false
        }
        return hasWordCharacter(word) ? .term(Term(text: word, isPrefix: isPrefix, isNegated: negated)) : nil
    }

    /// Whether the scalar separates words: white space, or NUL.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace || scalar == "\0" }

    /// Whether the scalar opens or closes a phrase: a straight or curly double quote.
    private static func isQuote(_ scalar: Unicode.Scalar) -> Bool { scalar == "\"" || scalar == "\u{201C}" || scalar == "\u{201D}" }

    /// Whether the text holds a character the `unicode61` tokenizer keeps in
    /// a token (a letter, a number, a private-use character); a term without
    /// one has no token to match.
    private static func hasWordCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isWordCharacter)
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }
}
