import Foundation
import LiteRecord

/// The demo's entity. Written against the `Entity` protocol directly until the
/// `@Entity` macro lands; then it shrinks to a plain class with `@Entity`.
final class Note: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""
    var body = ""
    var stars = 0
    var createdAt = Date()

    static let attributes: [AttributeDescription] = [
        AttributeDescription("title", type: .string, options: [.indexed]),
        AttributeDescription("body", type: .string),
        AttributeDescription("stars", type: .int),
        AttributeDescription("createdAt", type: .date),
    ]

    init() {}
    init(title: String, body: String = "", stars: Int = 0) {
        self.title = title
        self.body = body
        self.stars = stars
    }

    init(row: Row) throws {
        title = try row.decode(String.self, at: 0)
        body = try row.decode(String.self, at: 1)
        stars = try row.decode(Int.self, at: 2)
        createdAt = try row.decode(Date.self, at: 3)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(title)
        case 1: try AttributeCoding.encode(body)
        case 2: try AttributeCoding.encode(stars)
        default: try AttributeCoding.encode(createdAt)
        }
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: title = try row.decode(String.self, at: 0)
        case 1: body = try row.decode(String.self, at: 1)
        case 2: stars = try row.decode(Int.self, at: 2)
        default: createdAt = try row.decode(Date.self, at: 3)
        }
    }
}
