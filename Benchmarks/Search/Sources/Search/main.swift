import Foundation
import LiteRecord
import SearchSQLite

// The `search` workload (Docs/Search.md). Usage: Search [articles] (100,000 by default).

/// An article with two searchable attributes (the title weighted 3) and a
/// category to filter by; written by hand, as the macro would write it.
final class Article: Entity {
    var recordState = RecordState()
    var title = ""
    var body = ""
    var category = 0

    static let entityName = "Article"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("title", type: .string, options: [.searchable], searchWeight: 3),
        AttributeDescription("body", type: .string, options: [.searchable]),
        AttributeDescription("category", type: .int),
    ]

    init() {}
    init(row: Row) throws {
        title = try row.decode(String.self, at: 0)
        body = try row.decode(String.self, at: 1)
        category = try row.decode(Int.self, at: 2)
    }
    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: .text(title)
        case 1: .text(body)
        default: .integer(Int64(category))
        }
    }
    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: title = try row.decode(String.self, at: 0)
        case 1: body = try row.decode(String.self, at: 1)
        default: category = try row.decode(Int.self, at: 2)
        }
    }
    static func attributeIndex(for keyPath: PartialKeyPath<Article>) -> Int? {
        switch keyPath {
        case \Article.title: 0
        case \Article.body: 1
        case \Article.category: 2
        default: nil
        }
    }
}

/// The same article without `.searchable`: what an insert or update costs
/// without the index.
final class PlainArticle: Entity {
    var recordState = RecordState()
    var title = ""
    var body = ""
    var category = 0

    static let entityName = "PlainArticle"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("title", type: .string),
        AttributeDescription("body", type: .string),
        AttributeDescription("category", type: .int),
    ]

    init() {}
    init(row: Row) throws {
        title = try row.decode(String.self, at: 0)
        body = try row.decode(String.self, at: 1)
        category = try row.decode(Int.self, at: 2)
    }
    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: .text(title)
        case 1: .text(body)
        default: .integer(Int64(category))
        }
    }
    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: title = try row.decode(String.self, at: 0)
        case 1: body = try row.decode(String.self, at: 1)
        default: category = try row.decode(Int.self, at: 2)
        }
    }
}

/// SplitMix64: the same text on every run.
struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
let categories = 10
var random = Generator(state: 31)
let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "do", "fe", "gu", "ha", "jo", "be", "cy", "wu", "xe"]
// 20,000 words; a skewed choice makes a few common and most rare, as in prose.
let vocabulary = (0..<20_000).map { index -> String in
    var word = ""
    var value = index
    repeat {
        word += syllables[value % syllables.count]
        value /= syllables.count
    } while value > 0
    return word + (index % 7 == 0 ? "é" : "")
}
@MainActor func word() -> String {
    let u = Double.random(in: 0..<1, using: &random)
    return vocabulary[min(vocabulary.count - 1, Int(Double(vocabulary.count) * u * u * u))]
}
let texts: [(title: String, body: String, category: Int)] = (0..<count).map { index in
    ((0..<6).map { _ in word() }.joined(separator: " "),
     (0..<60).map { _ in word() }.joined(separator: " "),
     index % categories)
}
// The same titles with 25-word bodies (31 words a record): how the cost of
// `.searchable` on insert depends on the length of the text.
let shortTexts: [(title: String, body: String, category: Int)] = texts.map { text in
    (text.title, text.body.split(separator: " ").prefix(25).joined(separator: " "), text.category)
}
// Queries: words of middling frequency, one or two of them.
let queries: [(text: String, words: [String], category: Int)] = (0..<200).map { index in
    let words = (0..<(index < 100 ? 1 : 2)).map { _ in vocabulary[Int.random(in: 60..<1500, using: &random)] }
    return (words.joined(separator: " "), words, index % categories)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("search-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
var storeNumber = 0
@MainActor func freshStore() -> URL {
    storeNumber += 1
    return folder.appendingPathComponent("store\(storeNumber).sqlite")
}

@MainActor func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

@MainActor func report(_ label: String, _ value: Double, _ note: String = "") {
    print(String(format: "%-62@ %10.1f ms  %@", label as NSString, value, note as NSString))
}

print("search workload: \(count) articles (6-word titles, 60-word bodies, \(vocabulary.count) words), 200 searches (100 of one word, 100 of two) each filtered to one of \(categories) categories, limit 20")
print("SQLite \(String(cString: sqlite3_libversion()))")

// MARK: insert and update, with and without .searchable

@MainActor func insertAndUpdate<T: Entity>(
    _ type: T.Type, _ texts: [(title: String, body: String, category: Int)],
    make: (String, String, Int) -> T, retitle: (T, String) -> Void
) throws -> (insert: Double, update: Double) {
    var bestInsert = Double.infinity
    var bestUpdate = Double.infinity
    for _ in 0..<3 {
        let url = freshStore()
        let stack = try RecordStack(storeAt: url, entities: [T.self])
        let context = stack.newContext()
        bestInsert = min(bestInsert, try milliseconds {
            for text in texts { context.insert(make(text.title, text.body, text.category)) }
            try context.save()
        })
        let objects = try T.findAll(in: context)
        bestUpdate = min(bestUpdate, try milliseconds {
            for (index, object) in objects.enumerated() where index % 10 == 0 {
                retitle(object, texts[(index + 1) % texts.count].title)
            }
            try context.save()
        })
        try stack.close()
    }
    return (bestInsert, bestUpdate)
}

@MainActor func makePlain(_ title: String, _ body: String, _ category: Int) -> PlainArticle {
    let article = PlainArticle()
    (article.title, article.body, article.category) = (title, body, category)
    return article
}
@MainActor func makeSearchable(_ title: String, _ body: String, _ category: Int) -> Article {
    let article = Article()
    (article.title, article.body, article.category) = (title, body, category)
    return article
}
// MARK: raw C: what FTS5 itself costs

/// The schema LiteRecord makes for `Article`: its table and its index's
/// external-content FTS5 table (same columns, same tokenizer), read from a
/// store LiteRecord created. The triggers are left out: raw C indexes each row
/// itself, as a C program keeping an external-content index does.
@MainActor func articleSchema() throws -> (table: String, index: String) {
    let url = freshStore()
    try RecordStack(storeAt: url, entities: [Article.self]).close()
    let db = try RawDatabase(path: url.path)
    let table = try db.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'Article'")
    let index = try db.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    guard table.hasPrefix("CREATE TABLE"), index.contains("fts5(") else {
        print("LiteRecord's Article schema was not found: \(table) / \(index)")
        exit(1)
    }
    return (table, index)
}

/// Raw C inserting the rows in one transaction, best of 3 fresh stores, with
/// LiteRecord's pragmas (WAL, `synchronous = NORMAL`): the row into `Article`
/// and, when `indexed`, its title and body into the FTS5 table under the
/// row's id: what FTS5 costs with nothing around it.
@MainActor func rawInsert(_ texts: [(title: String, body: String, category: Int)], indexed: Bool) throws -> Double {
    let schema = try articleSchema()
    var best = Double.infinity
    for _ in 0..<3 {
        let db = try RawDatabase(path: freshStore().path, create: true)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try db.execute(schema.table)
        if indexed { try db.execute(schema.index) }
        let insert = try db.prepare("INSERT INTO Article(Z_OPT, title, body, category) VALUES (1, ?1, ?2, ?3)")
        let index = indexed ? try db.prepare("INSERT INTO \"literecord_search:Article\"(rowid, title, body) VALUES (?1, ?2, ?3)") : nil
        best = min(best, try milliseconds {
            try db.execute("BEGIN")
            for text in texts {
                insert.bind(text.title, at: 1)
                insert.bind(text.body, at: 2)
                insert.bind(Int64(text.category), at: 3)
                try insert.run()
                guard let index else { continue }
                index.bind(sqlite3_last_insert_rowid(db.handle), at: 1)
                index.bind(text.title, at: 2)
                index.bind(text.body, at: 3)
                try index.run()
            }
            try db.execute("COMMIT")
        })
        let rows = try db.scalarInt("SELECT count(*) FROM Article")
        let indexedRows = indexed ? try db.scalarInt("SELECT count(*) FROM \"literecord_search:Article\"('\(texts[0].title.split(separator: " ")[0])')") : 1
        guard rows == texts.count, indexedRows > 0 else {
            print("raw C's insert left \(rows) rows, \(indexedRows) found")
            exit(1)
        }
    }
    return best
}

let rawPlain = try rawInsert(texts, indexed: false)
let rawIndexed = try rawInsert(texts, indexed: true)
let rawShortPlain = try rawInsert(shortTexts, indexed: false)
let rawShortIndexed = try rawInsert(shortTexts, indexed: true)

let plain = try insertAndUpdate(PlainArticle.self, texts, make: makePlain, retitle: { $0.title = $1 })
let searchable = try insertAndUpdate(Article.self, texts, make: makeSearchable, retitle: { $0.title = $1 })
let shortPlain = try insertAndUpdate(PlainArticle.self, shortTexts, make: makePlain, retitle: { $0.title = $1 })
let shortSearchable = try insertAndUpdate(Article.self, shortTexts, make: makeSearchable, retitle: { $0.title = $1 })
print("")
report("raw C: insert \(count) rows", rawPlain)
report("raw C: insert \(count) rows and index title and body (FTS5)", rawIndexed, String(format: "%.2f× raw C's insert", rawIndexed / rawPlain))
report("raw C, short text: insert \(count) rows", rawShortPlain)
report("raw C, short text: insert \(count) rows and index them (FTS5)", rawShortIndexed, String(format: "%.2f× raw C's insert", rawShortIndexed / rawShortPlain))
report("insert \(count), no searchable attribute", plain.insert)
report("insert \(count), title and body .searchable", searchable.insert,
       String(format: "%.2f× plain, %.2f× raw C with FTS5 (target ≤ 1.2×)", searchable.insert / plain.insert, searchable.insert / rawIndexed))
report("update \(count / 10) titles, no searchable attribute", plain.update)
report("update \(count / 10) titles, .searchable", searchable.update, String(format: "%.2f×", searchable.update / plain.update))
report("short text (6 + 25 words): insert \(count), plain", shortPlain.insert)
report("short text (6 + 25 words): insert \(count), .searchable", shortSearchable.insert,
       String(format: "%.2f× plain, %.2f× raw C with FTS5 (target ≤ 1.2×)", shortSearchable.insert / shortPlain.insert, shortSearchable.insert / rawShortIndexed))
report("short text (6 + 25 words): update \(count / 10) titles, plain", shortPlain.update)
report("short text (6 + 25 words): update \(count / 10) titles, .searchable", shortSearchable.update, String(format: "%.2f×", shortSearchable.update / shortPlain.update))

// MARK: search

let url = freshStore()
do {
    let stack = try RecordStack(storeAt: url, entities: [Article.self])
    let context = stack.newContext()
    for text in texts {
        let article = Article()
        (article.title, article.body, article.category) = (text.title, text.body, text.category)
        context.insert(article)
    }
    try context.save()
    try stack.close()
}

struct Found {
    var id: Int64
    var title: String
    var body: String
    var category: Int
}

let raw = try RawDatabase(path: url.path)
let fts = "\"literecord_search:Article\""
let rawSearch = try raw.prepare("""
    SELECT Article.Z_PK, Article.title, Article.body, Article.category FROM \(fts) JOIN Article ON Article.Z_PK = \(fts).rowid
    WHERE \(fts) MATCH ?1 AND Article.category = ?2 ORDER BY bm25(\(fts), 3.0, 1.0), Article.Z_PK LIMIT 20
    """)
let likeOne = try raw.prepare("""
    SELECT Z_PK, title, body, category FROM Article WHERE category = ?1 AND (title LIKE ?2 OR body LIKE ?2) LIMIT 20
    """)
let likeTwo = try raw.prepare("""
    SELECT Z_PK, title, body, category FROM Article
    WHERE category = ?1 AND (title LIKE ?2 OR body LIKE ?2) AND (title LIKE ?3 OR body LIKE ?3) LIMIT 20
    """)

@MainActor func rows(_ statement: RawStatement) throws -> [Found] {
    var found: [Found] = []
    while try statement.step() {
        found.append(Found(id: statement.int64(0), title: statement.text(1), body: statement.text(2), category: Int(statement.int64(3))))
    }
    statement.reset()
    return found
}

@MainActor func rawRound() throws -> [[Int64]] {
    try queries.map { query in
        // The same FTS5 query LiteRecord sends: each word quoted, all required.
        rawSearch.bind(query.words.map { "\"\($0)\"" }.joined(separator: " AND "), at: 1)
        rawSearch.bind(Int64(query.category), at: 2)
        return try rows(rawSearch).map(\.id)
    }
}

@MainActor func likeRound() throws -> Int {
    var total = 0
    for query in queries {
        let statement = query.words.count == 1 ? likeOne : likeTwo
        statement.bind(Int64(query.category), at: 1)
        for (position, word) in query.words.enumerated() { statement.bind("%\(word)%", at: Int32(position + 2)) }
        total += try rows(statement).count
    }
    return total
}

let stack = try RecordStack(storeAt: url, entities: [Article.self])
@MainActor func literecordRound() throws -> [[Int64]] {
    // A new context per round: every object is read from its row, as the
    // raw C round reads every row into a struct.
    let context = stack.newContext()
    return try queries.map { query in
        let category = query.category
        return try Article.search(query.text, matching: #Predicate { $0.category == category }, limit: 20, in: context)
            .compactMap(\.recordID?.rowID)
    }
}

let expected = try rawRound()
let ours = try literecordRound()
guard expected == ours else {
    print("LiteRecord's results differ from raw C's")
    exit(1)
}
let hits = expected.map(\.count).reduce(0, +)
var times: [String: Double] = [:]
for _ in 0..<5 {
    times["raw", default: .infinity] = min(times["raw", default: .infinity], try milliseconds { _ = try rawRound() })
    times["literecord", default: .infinity] = min(times["literecord", default: .infinity], try milliseconds { _ = try literecordRound() })
}
var likeHits = 0
times["like"] = try milliseconds { likeHits = try likeRound() }
print("")
report("200 searches, raw C on the FTS5 table", times["raw"]!, "(\(hits) results)")
report("200 searches, LiteRecord Article.search", times["literecord"]!, String(format: "%.2f× raw C (target ≤ 1.5×)", times["literecord"]! / times["raw"]!))
report("200 searches, LIKE '%word%' scan (raw C)", times["like"]!, String(format: "%.0f× raw C FTS5 (%d results, unranked)", times["like"]! / times["raw"]!, likeHits))
try stack.close()
