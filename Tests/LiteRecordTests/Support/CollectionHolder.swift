import Foundation
import LiteRecord

/// A hand-written entity whose attributes are collections stored as JSON, for
/// the stored-collection predicate tests. `value` and `key` share their names
/// with columns of SQLite's `json_each`, which the translation must not
/// confuse with them.
final class CollectionHolder: Entity, DefaultInitializable {
    var recordState = RecordState()
    var name = ""
    var value = 0
    var key = ""
    var tags: [String] = []
    var maybeTags: [String]?
    var numbers: [Int] = []
    var bytes: [Int8] = []
    var doubles: [Double] = []
    var flags: [Bool] = []
    var ids: [UUID] = []
    var statuses: [Status] = []
    var levels: [Level] = []
    var tagSet: Set<String> = []
    /// Refused: JSON writes a Float at single precision.
    var weights: [Float] = []
    /// Refused: optional elements.
    var optionals: [String?] = []

    static let entityName = "CollectionHolder"

    static let attributes: [AttributeDescription] = [
        AttributeDescription("name", type: .string),
        AttributeDescription("value", type: .int),
        AttributeDescription("key", type: .string),
        AttributeDescription("tags", type: .json),
        AttributeDescription("maybeTags", type: .json, isOptional: true),
        AttributeDescription("numbers", type: .json),
        AttributeDescription("bytes", type: .json),
        AttributeDescription("doubles", type: .json),
        AttributeDescription("flags", type: .json),
        AttributeDescription("ids", type: .json),
        AttributeDescription("statuses", type: .json),
        AttributeDescription("levels", type: .json),
        AttributeDescription("tagSet", type: .json),
        AttributeDescription("weights", type: .json),
        AttributeDescription("optionals", type: .json),
    ]

    init() {}

    init(row: Row) throws {
        for index in Self.attributes.indices { try decodeAttribute(at: index, from: row) }
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(name)
        case 1: try AttributeCoding.encode(value)
        case 2: try AttributeCoding.encode(key)
        case 3: try AttributeCoding.encode(tags)
        case 4: try AttributeCoding.encodeOptional(maybeTags)
        case 5: try AttributeCoding.encode(numbers)
        case 6: try AttributeCoding.encode(bytes)
        case 7: try AttributeCoding.encode(doubles)
        case 8: try AttributeCoding.encode(flags)
        case 9: try AttributeCoding.encode(ids)
        case 10: try AttributeCoding.encode(statuses)
        case 11: try AttributeCoding.encode(levels)
        case 12: try AttributeCoding.encode(tagSet)
        case 13: try AttributeCoding.encode(weights)
        default: try AttributeCoding.encode(optionals)
        }
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: name = try row.decode(String.self, at: index)
        case 1: value = try row.decode(Int.self, at: index)
        case 2: key = try row.decode(String.self, at: index)
        case 3: tags = try row.decode([String].self, at: index)
        case 4: maybeTags = try row.decodeOptional([String].self, at: index)
        case 5: numbers = try row.decode([Int].self, at: index)
        case 6: bytes = try row.decode([Int8].self, at: index)
        case 7: doubles = try row.decode([Double].self, at: index)
        case 8: flags = try row.decode([Bool].self, at: index)
        case 9: ids = try row.decode([UUID].self, at: index)
        case 10: statuses = try row.decode([Status].self, at: index)
        case 11: levels = try row.decode([Level].self, at: index)
        case 12: tagSet = try row.decode(Set<String>.self, at: index)
        case 13: weights = try row.decode([Float].self, at: index)
        default: optionals = try row.decode([String?].self, at: index)
        }
    }

    static func attributeIndex(for keyPath: PartialKeyPath<CollectionHolder>) -> Int? {
        switch keyPath {
        case \CollectionHolder.name: 0
        case \CollectionHolder.value: 1
        case \CollectionHolder.key: 2
        case \CollectionHolder.tags: 3
        case \CollectionHolder.maybeTags: 4
        case \CollectionHolder.numbers: 5
        case \CollectionHolder.bytes: 6
        case \CollectionHolder.doubles: 7
        case \CollectionHolder.flags: 8
        case \CollectionHolder.ids: 9
        case \CollectionHolder.statuses: 10
        case \CollectionHolder.levels: 11
        case \CollectionHolder.tagSet: 12
        case \CollectionHolder.weights: 13
        case \CollectionHolder.optionals: 14
        default: nil
        }
    }
}

enum CollectionSeed {
    /// Elements chosen to trip up JSON and SQL: both Unicode spellings of
    /// "café", KELVIN SIGN, prefixes of other elements ("a" / "ab", "Null" /
    /// "Null\0byte"), NUL bytes, a literal backslash-u0000, JSON punctuation,
    /// quotes, escapes, CR LF, emoji, numbers as text, empty and blank.
    static let texts = [
        "swift", "Swift", "café", "cafe\u{301}", "Café", "Cafe\u{301}", "", " ", "a", "ab", "b", "K", "\u{212A}",
        "Null", "Null\u{0}byte", "\u{0}", "x\u{0}", "\\u0000", "quote\"", "back\\slash", "slash/", "new\nline",
        "a\r\nb", "\r", "tab\t", "\u{7F}", "\u{2028}", "😀", "中文", "1", "10", "[", "]", ",", "\"a\"", "null",
    ]

    static let numbers = [-3, -1, 0, 1, 2, 5, 7, 10, 12, 100, Int.max, Int.min]
    static let doubles = [0.0, -0.0, 1.0, 1.5, 0.1, 0.2, 0.30000000000000004, 1e300, -1e-300, 2.0, 1e16, 9_007_199_254_740_992, -7.25]
    static let ids = (0..<5).map { index in
        UUID(uuid: (UInt8(index * 40), 0xAB, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(index)))
    }

    static func holders(count: Int = 400, seed: UInt64 = 0xC011) -> [CollectionHolder] {
        var random = SeededGenerator(seed: seed)
        func pick<T>(_ pool: [T], upTo maximum: Int) -> [T] {
            (0..<Int.random(in: 0...maximum, using: &random)).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] }
        }
        return (0..<count).map { index in
            let holder = CollectionHolder()
            holder.name = texts[Int.random(in: 0..<texts.count, using: &random)]
            holder.value = numbers[Int.random(in: 0..<numbers.count, using: &random)]
            holder.key = texts[Int.random(in: 0..<texts.count, using: &random)]
            holder.tags = pick(texts, upTo: 5)
            // Duplicates on purpose, now and then.
            if let first = holder.tags.first, index % 5 == 0 { holder.tags.append(first) }
            holder.maybeTags = index % 3 == 0 ? nil : pick(texts, upTo: 3)
            holder.numbers = pick(numbers, upTo: 4)
            holder.bytes = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int8.random(in: .min ... .max, using: &random) }
            holder.doubles = pick(doubles, upTo: 3)
            if Bool.random(using: &random) { holder.doubles.append(Double.random(in: -10...10, using: &random)) }
            holder.flags = pick([true, false], upTo: 3)
            holder.ids = pick(ids, upTo: 2)
            holder.statuses = pick(Status.allCases, upTo: 3)
            holder.levels = pick(Level.allCases, upTo: 2)
            holder.tagSet = Set(holder.tags)
            holder.weights = [Float(index) / 10]
            holder.optionals = [nil, holder.name]
            return holder
        }
    }

    static func stack(count: Int = 400) throws -> RecordStack {
        let stack = try RecordStack(inMemoryWith: [CollectionHolder.self])
        let context = stack.newContext()
        for holder in holders(count: count) { context.insert(holder) }
        try context.save()
        return stack
    }
}
