import Foundation

// The values of a note other than its text (ModelEntities.swift): one of
// every stored kind of Docs/GettingStarted.md, and a `.unique` code. Each is compared as
// it is stored — a `Double` bit for bit (−0.0 is not 0.0), a `String` by its
// Unicode scalars ("e\u{301}" is not "é") — as the setters do
// (AttributeCoding.isChange): a value saved must read back exactly (Docs/GettingStarted.md).

/// One value of a note besides its text.
enum MField: Int, CaseIterable, Sendable, CustomStringConvertible {
    case count, rank, score, label, stamp, blob, code
    /// A stored collection: `[String]`, stored as JSON.
    case words
    /// The `.searchable` text (ModelRunner+Features.swift searches it).
    case summary
    var description: String { ["count", "rank", "score", "label", "stamp", "blob", "code", "words", "summary"][rawValue] }
}

struct MValues: Equatable, Sendable, CustomStringConvertible {
    var count = 0
    var rank: Int?
    var score = 0.0
    var label = ""
    var stamp = Date(timeIntervalSince1970: 0)
    var blob: Data?
    var code: String?
    var words: [String] = []
    var summary = ""

    /// The candidates an edit picks from: extremes and values that `==`
    /// would call equal to another candidate.
    static let counts = [0, -1, Int.max, Int.min, 42]
    static let ranks: [Int?] = [nil, 0, -7, Int.max]
    static let scores = [0.0, -0.0, 1e300, -1e300, 0.1, .leastNonzeroMagnitude]
    static let labels = ["", "\u{E9}", "e\u{301}", "A\u{30A}ngstr\u{F6}m", "\u{1F600}"]
    static let stamps = [0.0, -1e9, 1_700_000_000.25, 1.5].map { Date(timeIntervalSince1970: $0) }
    static let blobs: [Data?] = [nil, Data(), Data([0, 255, 1])]
    /// Few codes, so that two notes meet on one.
    static let codes: [String?] = [nil, "A", "B"]
    /// Equal under Swift's `==` but not as stored ("é" in two forms).
    static let wordLists: [[String]] = [[], ["a"], ["a", "b"], ["", "\u{E9}"], ["e\u{301}"]]
    /// In NFC, the form searchable text is stored in (Docs/Search.md), so
    /// that a value reads back with its bytes; searches ask in both forms.
    static let summaries = ["", "Caf\u{E9} au lait", "CAF\u{C9} noir, e-mail", "\u{C5}ngstr\u{F6}m", "\u{E9}t\u{E9} 2024"]

    /// The values an edit sets, from three random numbers: `which` says
    /// which fields change (a bit per field), `pick` which candidates.
    func edited(which: UInt32, pick: UInt32) -> MValues {
        var next = self
        func chosen<T>(_ list: [T], _ field: MField) -> T? {
            guard which & (1 << UInt32(field.rawValue)) != 0 else { return nil }
            return list[Int((pick >> UInt32(field.rawValue * 3)) % UInt32(list.count))]
        }
        if let value = chosen(Self.counts, .count) { next.count = value }
        if let value = chosen(Self.ranks, .rank) { next.rank = value }
        if let value = chosen(Self.scores, .score) { next.score = value }
        if let value = chosen(Self.labels, .label) { next.label = value }
        if let value = chosen(Self.stamps, .stamp) { next.stamp = value }
        if let value = chosen(Self.blobs, .blob) { next.blob = value }
        if let value = chosen(Self.codes, .code) { next.code = value }
        if let value = chosen(Self.wordLists, .words) { next.words = value }
        if let value = chosen(Self.summaries, .summary) { next.summary = value }
        return next
    }

    /// Whether `field` differs between `self` and `other`, as stored.
    func differs(_ other: MValues, _ field: MField) -> Bool {
        switch field {
        case .count: count != other.count
        case .rank: rank != other.rank
        case .score: score.bitPattern != other.score.bitPattern
        case .label: !label.unicodeScalars.elementsEqual(other.label.unicodeScalars)
        case .stamp: stamp.timeIntervalSince1970.bitPattern != other.stamp.timeIntervalSince1970.bitPattern
        case .blob: blob != other.blob
        case .code: code != other.code
        case .words: !words.elementsEqual(other.words) { $0.unicodeScalars.elementsEqual($1.unicodeScalars) }
        case .summary: !summary.unicodeScalars.elementsEqual(other.summary.unicodeScalars)
        }
    }

    /// `self` with `field` taken from `other`.
    func taking(_ field: MField, from other: MValues) -> MValues {
        var next = self
        switch field {
        case .count: next.count = other.count
        case .rank: next.rank = other.rank
        case .score: next.score = other.score
        case .label: next.label = other.label
        case .stamp: next.stamp = other.stamp
        case .blob: next.blob = other.blob
        case .code: next.code = other.code
        case .words: next.words = other.words
        case .summary: next.summary = other.summary
        }
        return next
    }

    func changedFields(from other: MValues) -> Set<MField> { Set(MField.allCases.filter { differs(other, $0) }) }

    static func == (a: MValues, b: MValues) -> Bool { a.changedFields(from: b).isEmpty }

    var description: String {
        let label = self.label.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
        return
            "count \(count) rank \(rank.map(String.init) ?? "nil") score \(score) label \"\(label)\" stamp \(stamp.timeIntervalSince1970) blob \(blob.map { Array($0) }.map(String.init(describing:)) ?? "nil") code \(code ?? "nil")"
            + (summary.isEmpty ? "" : " summary \"\(summary)\"")
            + (words.isEmpty ? "" : " words \(words.map { $0.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() })")
    }
}
