import Foundation

/// A case-insensitive condition on one text attribute: the typed route to
/// "contains 'dune', whatever the case" that `#Predicate` does not offer on
/// Linux (Foundation refuses `lowercased()` and `localizedStandardContains`
/// in predicates there).
///
/// ```swift
/// let hits = try Book.findAll(matching: .caseInsensitive(\.title, contains: "dune"), in: context)
///
/// var request = FetchRequest<Book>(predicate: #Predicate { $0.year > 1960 }, sortBy: [SortDescriptor(\.title)])
/// request.textMatches = [.caseInsensitive(\.author, hasPrefix: "frank")]
/// let books = try context.fetch(request)
/// ```
///
/// Text compares by Unicode's canonical caseless match, the same on every
/// platform: full Unicode case folding ("ÉCOLE" contains "école", "STRASSE"
/// equals "straße"), canonically equivalent spellings equal, diacritics
/// significant ("resume" does not match "résumé"), no locale rules
/// ("İstanbul" does not equal "istanbul"), matches on `Character`
/// boundaries. Any text is accepted, NUL and all. Plain ASCII is decided
/// byte by byte with the same result. An
/// empty pattern is contained in, and a prefix and suffix of, every text; a
/// `nil` optional matches nothing. No index is used: the test runs once per
/// candidate row, so combine it with a selective predicate on large tables.
public struct TextMatch<Root: Entity>: Sendable, CustomStringConvertible {
    typealias Operation = TextMatchOperation

    /// The attribute's index, or `nil` when the key path is not a stored attribute.
    let attributeIndex: Int?
    let keyPathDescription: String
    let operation: Operation
    let text: String

    private init(_ keyPath: PartialKeyPath<Root>, _ operation: Operation, _ text: String) {
        self.attributeIndex = Root.attributeIndex(for: keyPath)
        self.keyPathDescription = "\(keyPath)"
        self.operation = operation
        self.text = text
    }

    public var description: String { "\(keyPathDescription) \(operation.rawValue) \"\(text)\" (case-insensitive)" }

    /// Text equal to `text`, ignoring case.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String>, equals text: String) -> Self {
        Self(keyPath, .equals, text)
    }

    /// Text containing `text`, ignoring case.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String>, contains text: String) -> Self {
        Self(keyPath, .contains, text)
    }

    /// Text starting with `text`, ignoring case.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String>, hasPrefix text: String) -> Self {
        Self(keyPath, .hasPrefix, text)
    }

    /// Text ending with `text`, ignoring case.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String>, hasSuffix text: String) -> Self {
        Self(keyPath, .hasSuffix, text)
    }

    /// Optional text equal to `text`, ignoring case; `nil` never matches.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String?>, equals text: String) -> Self {
        Self(keyPath, .equals, text)
    }

    /// Optional text containing `text`, ignoring case; `nil` never matches.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String?>, contains text: String) -> Self {
        Self(keyPath, .contains, text)
    }

    /// Optional text starting with `text`, ignoring case; `nil` never matches.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String?>, hasPrefix text: String) -> Self {
        Self(keyPath, .hasPrefix, text)
    }

    /// Optional text ending with `text`, ignoring case; `nil` never matches.
    public static func caseInsensitive(_ keyPath: KeyPath<Root, String?>, hasSuffix text: String) -> Self {
        Self(keyPath, .hasSuffix, text)
    }

    /// `literecord_ci_…("Table"."column", ?)`, true exactly when the text matches.
    func condition() throws(LiteRecordError) -> (sql: String, arguments: [SQLValue]) {
        let attributes = Root.attributes
        guard let attributeIndex, attributes.indices.contains(attributeIndex), attributes[attributeIndex].type == .string else {
            throw LiteRecordError(
                .unsupportedPredicate,
                "\(Root.entityName): \(keyPathDescription) is not a stored String attribute, so it cannot be matched as text")
        }
        let column = SQLIdentifier(attributes[attributeIndex].name).qualified(by: SQLIdentifier.quote(Root.entityName))
        return ("\(operation.function)(\(column), ?)", [.text(text)])
    }

}

/// What a ``TextMatch`` tests.
enum TextMatchOperation: String, Sendable {
    case equals, contains, hasPrefix, hasSuffix

    /// The SQL function deciding this operation.
    var function: String {
        switch self {
        case .equals: SQLFunctions.caseInsensitiveEquals
        case .contains: SQLFunctions.caseInsensitiveContains
        case .hasPrefix: SQLFunctions.caseInsensitivePrefix
        case .hasSuffix: SQLFunctions.caseInsensitiveSuffix
        }
    }

    /// Whether `candidate` matches `text`: what the SQL function computes on
    /// text that is not plain ASCII, and what tests compare it with.
    ///
    /// Both texts are decomposed (NFD) and case folded (Unicode's full case
    /// folding, as `folding(options: .caseInsensitive, locale: nil)` gives it:
    /// "ß" folds to "ss", "ς" to "σ"), then compared as Swift compares
    /// `Character`s: canonically equivalent spellings are equal, a match
    /// starts and ends on `Character` boundaries, diacritics count. This is
    /// Unicode's canonical caseless match (D145). It deliberately does not call
    /// Foundation's `range(of:options:)` or `compare(_:options:)`: on Linux
    /// they trap on a needle holding NUL after a non-ASCII letter ("é\0"),
    /// and the text here comes from SQLite and from callers, so it can hold
    /// anything.
    func matches(_ candidate: String, _ text: String) -> Bool {
        if text.isEmpty { return self == .equals ? candidate.isEmpty : true }
        let (haystack, needle) = (Self.caseless(candidate), Self.caseless(text))
        if self == .equals { return haystack == needle }
        // Arrays of Characters, searched by Character `==`: no String.Index
        // arithmetic, and no overload that could reach Foundation's search.
        let (letters, pattern) = (Array(haystack), Array(needle))
        guard pattern.count <= letters.count else { return false }
        switch self {
        case .hasPrefix: return letters[..<pattern.count].elementsEqual(pattern)
        case .hasSuffix: return letters[(letters.count - pattern.count)...].elementsEqual(pattern)
        default:
            return (0...(letters.count - pattern.count)).contains { start in
                letters[start..<(start + pattern.count)].elementsEqual(pattern)
            }
        }
    }

    /// `text` decomposed and case folded: two texts are a caseless match
    /// exactly when these are canonically equivalent.
    static func caseless(_ text: String) -> String {
        text.decomposedStringWithCanonicalMapping.folding(options: .caseInsensitive, locale: nil)
    }
}

extension FetchRequest {
    /// The conditions of ``textMatches`` joined with the predicate's by `AND`.
    static func combine(
        _ condition: (sql: String?, arguments: [SQLValue]), with matches: [TextMatch<T>]
    ) throws(LiteRecordError) -> (sql: String?, arguments: [SQLValue]) {
        guard !matches.isEmpty else { return condition }
        var parts = condition.sql.map { ["(\($0))"] } ?? []
        var arguments = condition.arguments
        for match in matches {
            let (sql, values) = try match.condition()
            parts.append(sql)
            arguments += values
        }
        return (parts.joined(separator: " AND "), arguments)
    }
}

extension SQLFunctions {
    static let caseInsensitiveEquals = "literecord_ci_equals"
    static let caseInsensitiveContains = "literecord_ci_contains"
    static let caseInsensitivePrefix = "literecord_ci_prefix"
    static let caseInsensitiveSuffix = "literecord_ci_suffix"

    /// The functions behind ``TextMatch``: the canonical caseless match of
    /// ``TextMatchOperation/matches(_:_:)``, decided on bytes when both texts
    /// are plain ASCII (where case folding is exactly A–Z to a–z).
    static func installTextMatching(on connection: Connection) throws {
        let functions: [(String, TextMatchOperation)] = [
            (caseInsensitiveEquals, .equals), (caseInsensitiveContains, .contains),
            (caseInsensitivePrefix, .hasPrefix), (caseInsensitiveSuffix, .hasSuffix),
        ]
        for (name, operation) in functions {
            try connection.createFunction(name, argumentCount: 2) { arguments throws(FunctionError) in
                if arguments.isNull(0) { return .integer(0) }
                return try UTF8Text.search(arguments) { text, pattern in
                    operation.matches(text, pattern)
                } ascii: { text, pattern in
                    CaseFoldedASCII.matches(text, operation, pattern)
                }
            }
        }
    }
}

/// Case-insensitive tests on plain ASCII bytes.
enum CaseFoldedASCII {
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    static func equal(_ left: UnsafeRawBufferPointer.SubSequence, _ right: UnsafeRawBufferPointer) -> Bool {
        left.count == right.count && zip(left, right).allSatisfy { folded($0) == folded($1) }
    }

    static func matches(
        _ text: UnsafeRawBufferPointer, _ operation: TextMatchOperation,
        _ pattern: UnsafeRawBufferPointer
    ) -> Bool {
        if pattern.isEmpty { return operation == .equals ? text.isEmpty : true }
        guard pattern.count <= text.count else { return false }
        switch operation {
        case .equals: return equal(text[...], pattern)
        case .hasPrefix: return equal(text.prefix(pattern.count), pattern)
        case .hasSuffix: return equal(text.suffix(pattern.count), pattern)
        case .contains:
            for start in 0...(text.count - pattern.count)
            where equal(text[start..<(start + pattern.count)], pattern) {
                return true
            }
            return false
        }
    }
}
