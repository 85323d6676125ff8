import Foundation
@testable import LiteRecord

/// 100,000 items, each with 0–4 tags out of 50 and a category out of 50.
final class Item: Entity, DefaultInitializable {
    var recordState = RecordState()
    var category = ""
    var rank = 0
    var tags: [String] = []

    static let entityName = "Item"
    static let attributes: [AttributeDescription] = [
        AttributeDescription("category", type: .string, options: [.indexed]),
        AttributeDescription("rank", type: .int, options: [.indexed]),
        AttributeDescription("tags", type: .json),
    ]

    init() {}
    init(row: Row) throws {
        category = try row.decode(String.self, at: 0)
        rank = try row.decode(Int.self, at: 1)
        tags = try row.decode([String].self, at: 2)
    }
    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(category)
        case 1: try AttributeCoding.encode(rank)
        default: try AttributeCoding.encode(tags)
        }
    }
    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: category = try row.decode(String.self, at: 0)
        case 1: rank = try row.decode(Int.self, at: 1)
        default: tags = try row.decode([String].self, at: 2)
        }
    }
    static func attributeIndex(for keyPath: PartialKeyPath<Item>) -> Int? {
        switch keyPath {
        case \Item.category: 0
        case \Item.rank: 1
        case \Item.tags: 2
        default: nil
        }
    }
}

let rows = 100_000
let url = FileManager.default.temporaryDirectory.appendingPathComponent("collection-bench-\(getpid()).sqlite")
defer {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}
let stack = try RecordStack(storeAt: url, entities: [Item.self])
var random = SystemRandomNumberGenerator()
let words = (0..<50).map { "tag\($0)" }
do {
    let context = stack.newContext()
    for index in 0..<rows {
        let item = Item()
        item.category = "cat\(index % 50)"
        item.rank = index % 50
        item.tags = (0..<Int.random(in: 0...4, using: &random)).map { _ in words.randomElement(using: &random) ?? "" }
        context.insert(item)
    }
    try context.save()
}

func time(_ label: String, _ body: () throws -> Int) rethrows {
    _ = try body()  // warm-up: statement prepared, pages cached
    var best = Double.infinity
    var result = 0
    for _ in 0..<7 {
        let start = DispatchTime.now().uptimeNanoseconds
        result = try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    print(String(format: "%-44@ %8.2f ms  (%d rows)", label as NSString, best, result))
}

let context = stack.newContext()
let tag = "tag7"
let category = "cat7"
let rank = 7
let contains = #Predicate<Item> { $0.tags.contains(tag) }
let containsWhere = #Predicate<Item> { $0.tags.contains { $0.starts(with: "tag7") } }
let byCategory = #Predicate<Item> { $0.category == category }
let byRank = #Predicate<Item> { $0.rank == rank }
print("best of 7 runs, \(rows) rows, release build, SQLite \(Connection.sqliteVersion)")
try time("count  tags.contains(\"tag7\")") { try Item.count(matching: contains, in: context) }
try time("count  tags.contains { starts(with: tag7) }") { try Item.count(matching: containsWhere, in: context) }
try time("count  category == \"cat7\" (Swift collation)") { try Item.count(matching: byCategory, in: context) }
try time("count  rank == 7 (indexed integer)") { try Item.count(matching: byRank, in: context) }
try time("findAll tags.contains(\"tag7\")") { try Item.findAll(matching: contains, in: context).count }
try time("findAll category == \"cat7\"") { try Item.findAll(matching: byCategory, in: context).count }
try time("findAll rank == 7") { try Item.findAll(matching: byRank, in: context).count }

for (label, predicate) in [("tags.contains", contains), ("category ==", byCategory), ("rank ==", byRank)] {
    let (condition, arguments) = try PredicateTranslator.condition(predicate)
    let sql = "SELECT COUNT(*) FROM \"Item\" WHERE \(condition ?? "1")"
    let plan = try stack.store.withConnection("plan") { connection in
        try connection.rows("EXPLAIN QUERY PLAN " + sql, arguments).map { row in if case .text(let text)? = row.last { text } else { "" } }
    }
    print("\n\(label): \(sql)\n  plan: \(plan.joined(separator: " | "))")
}
