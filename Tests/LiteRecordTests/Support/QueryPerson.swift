import Foundation
import LiteRecord

/// A String-backed enum stored as its raw value.
enum Status: String, Codable, Sendable, CaseIterable {
    case active, inactive, pending
    case banned = "BANNED"
}

/// An Int-backed enum with an order of its own (not its raw value's).
enum Level: Int, Codable, Sendable, Comparable, CaseIterable {
    case high = 1, low = 2, medium = 3

    static func < (lhs: Level, rhs: Level) -> Bool {
        let order: [Level] = [.low, .medium, .high]
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}

/// A hand-written entity (the macro is not needed) with one attribute of every
/// kind a predicate can meet, for the query tests.
final class QueryPerson: Entity, DefaultInitializable {
    var recordState = RecordState()
    var name = ""
    var nickname: String?
    var age = 0
    var score = 0.0
    var isActive = false
    var birthday = Date(timeIntervalSinceReferenceDate: 0)
    var identifier = UUID()
    var rank: Int?
    var status = Status.active
    var small: Int8 = 0
    var weight: Float = 0
    var tags: [String] = []
    var price: Decimal = 0
    var flag: Bool?
    var level = Level.low
    /// Not stored: the query layer must refuse it.
    var scratch = 0

    static let entityName = "QueryPerson"

    static let attributes: [AttributeDescription] = [
        AttributeDescription("name", type: .string, options: [.indexed]),
        AttributeDescription("nickname", type: .string, isOptional: true),
        AttributeDescription("age", type: .int),
        AttributeDescription("score", type: .double),
        AttributeDescription("isActive", type: .bool),
        AttributeDescription("birthday", type: .date),
        AttributeDescription("identifier", type: .uuid, options: [.unique]),
        AttributeDescription("rank", type: .int, isOptional: true),
        AttributeDescription("status", type: .string),
        AttributeDescription("small", type: .int8),
        AttributeDescription("weight", type: .float),
        AttributeDescription("tags", type: .json),
        AttributeDescription("price", type: .decimal),
        AttributeDescription("flag", type: .bool, isOptional: true),
        AttributeDescription("level", type: .int),
    ]

    init() {}

    init(row: Row) throws {
        for index in Self.attributes.indices { try decodeAttribute(at: index, from: row) }
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(name)
        case 1: try AttributeCoding.encodeOptional(nickname)
        case 2: try AttributeCoding.encode(age)
        case 3: try AttributeCoding.encode(score)
        case 4: try AttributeCoding.encode(isActive)
        case 5: try AttributeCoding.encode(birthday)
        case 6: try AttributeCoding.encode(identifier)
        case 7: try AttributeCoding.encodeOptional(rank)
        case 8: try AttributeCoding.encode(status)
        case 9: try AttributeCoding.encode(small)
        case 10: try AttributeCoding.encode(weight)
        case 11: try AttributeCoding.encode(tags)
        case 12: try AttributeCoding.encode(price)
        case 13: try AttributeCoding.encodeOptional(flag)
        default: try AttributeCoding.encode(level)
        }
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: name = try row.decode(String.self, at: index)
        case 1: nickname = try row.decodeOptional(String.self, at: index)
        case 2: age = try row.decode(Int.self, at: index)
        case 3: score = try row.decode(Double.self, at: index)
        case 4: isActive = try row.decode(Bool.self, at: index)
        case 5: birthday = try row.decode(Date.self, at: index)
        case 6: identifier = try row.decode(UUID.self, at: index)
        case 7: rank = try row.decodeOptional(Int.self, at: index)
        case 8: status = try row.decode(Status.self, at: index)
        case 9: small = try row.decode(Int8.self, at: index)
        case 10: weight = try row.decode(Float.self, at: index)
        case 11: tags = try row.decode([String].self, at: index)
        case 12: price = try row.decode(Decimal.self, at: index)
        case 13: flag = try row.decodeOptional(Bool.self, at: index)
        default: level = try row.decode(Level.self, at: index)
        }
    }

    static func attributeIndex(for keyPath: PartialKeyPath<QueryPerson>) -> Int? {
        switch keyPath {
        case \QueryPerson.name: 0
        case \QueryPerson.nickname: 1
        case \QueryPerson.age: 2
        case \QueryPerson.score: 3
        case \QueryPerson.isActive: 4
        case \QueryPerson.birthday: 5
        case \QueryPerson.identifier: 6
        case \QueryPerson.rank: 7
        case \QueryPerson.status: 8
        case \QueryPerson.small: 9
        case \QueryPerson.weight: 10
        case \QueryPerson.tags: 11
        case \QueryPerson.price: 12
        case \QueryPerson.flag: 13
        case \QueryPerson.level: 14
        default: nil
        }
    }
}

/// A small entity with a unique attribute, for find-or-create.
final class QueryTag: Entity, DefaultInitializable {
    var recordState = RecordState()
    var label = ""
    var uses = 0
    var awakened = false

    static let entityName = "QueryTag"

    static let attributes: [AttributeDescription] = [
        AttributeDescription("label", type: .string, options: [.unique]),
        AttributeDescription("uses", type: .int),
    ]

    init() {}

    init(row: Row) throws {
        label = try row.decode(String.self, at: 0)
        uses = try row.decode(Int.self, at: 1)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        index == 0 ? try AttributeCoding.encode(label) : try AttributeCoding.encode(uses)
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        if index == 0 { label = try row.decode(String.self, at: 0) } else { uses = try row.decode(Int.self, at: 1) }
    }

    static func attributeIndex(for keyPath: PartialKeyPath<QueryTag>) -> Int? {
        switch keyPath {
        case \QueryTag.label: 0
        case \QueryTag.uses: 1
        default: nil
        }
    }

    func awakeFromInsert() { awakened = true; uses = 1 }
}
