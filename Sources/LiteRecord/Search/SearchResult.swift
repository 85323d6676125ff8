/// One record a full-text search found: the object, how well it matched, and
/// the matching passages of its searchable attributes.
///
/// ```swift
/// for hit in try Article.searchResults("swift", in: context) {
///     print(hit.object.title, hit.score, hit.snippet(of: \.body))   // "… with **Swift** 6 …"
/// }
/// ```
public struct SearchResult<T: Entity> {
    /// The record, as an object of the context searched.
    public let object: T
    /// How well the record matched: SQLite's BM25 relevance, negated so that
    /// higher is better (results come in decreasing score unless sort
    /// descriptors were given). Only comparable within one search.
    public let score: Double
    /// The snippets by attribute name, each match between ``markers``.
    let snippets: [String: String]
    /// The strings this search had FTS5 put around each match: random for
    /// every search, so that text which itself holds U+0001 or U+0002 (or
    /// any fixed marker) is never mistaken for one.
    let markers: SnippetMarkers

    /// The passage of the attribute at `keyPath` around the matches (about
    /// 16 words, `…` where text was cut), each matched word between `open`
    /// and `close`. Empty when the attribute is not `.searchable`, holds
    /// `nil`, or is empty.
    ///
    /// ```swift
    /// hit.snippet(of: \.body)                            // "… learn **Swift** concurrency …"
    /// hit.snippet(of: \.body, open: "<b>", close: "</b>")
    /// ```
    public func snippet(of keyPath: PartialKeyPath<T>, open: String = "**", close: String = "**") -> String {
        guard let index = T.attributeIndex(for: keyPath), T.attributes.indices.contains(index),
            let text = snippets[T.attributes[index].name]
        else { return "" }
        return markers.replacing(in: text, open: open, close: close)
    }
}

/// The pair of strings a search asks FTS5's `snippet()` to put around each
/// match: U+0001 and U+0002 around a random token, so stored text cannot
/// contain them by accident or on purpose.
struct SnippetMarkers: Sendable {
    let open: String
    let close: String

    init() {
        let token = String(UInt64.random(in: .min ... .max), radix: 36)
        open = "\u{1}\(token)\u{1}"
        close = "\u{2}\(token)\u{2}"
    }

    /// `text` with each `self.open` replaced by `open` and each `self.close`
    /// by `close`, compared scalar by scalar. Not `replacingOccurrences`: it
    /// compares `Character`s, and a marker followed by a combining mark that
    /// ends no word for `unicode61` (U+20DD, U+FE0F, …) was left in the text.
    func replacing(in text: String, open: String, close: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let openMarker = Array(self.open.unicodeScalars)
        let closeMarker = Array(self.close.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index...].starts(with: openMarker) {
                result.append(contentsOf: open.unicodeScalars)
                index += openMarker.count
            } else if scalars[index...].starts(with: closeMarker) {
                result.append(contentsOf: close.unicodeScalars)
                index += closeMarker.count
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }
}
