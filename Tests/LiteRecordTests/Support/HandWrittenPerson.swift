import Foundation
import LiteRecord

/// An entity written by hand, without the macro: proof that the core depends
/// only on the `Entity` protocol. It does not track its own changes, so saves
/// find them by comparing against the values last read.
final class HandWrittenPerson: Entity, DefaultInitializable {
    var recordState = RecordState()
    var identifier = UUID()
    var name = ""
    var age = 0
    var email: String?
    var awakeCount = 0
    var willSaveCount = 0
    var rejectName: String?

    static let entityName = "Person"

    static let attributes: [AttributeDescription] = [
        AttributeDescription("identifier", type: .uuid, options: [.unique]),
        AttributeDescription("name", type: .string, options: [.indexed]),
        AttributeDescription("age", type: .int),
        AttributeDescription("email", type: .string, isOptional: true),
    ]

    init() {}

    init(name: String, age: Int, email: String? = nil) {
        self.name = name
        self.age = age
        self.email = email
    }

    init(row: Row) throws {
        identifier = try row.decode(UUID.self, at: 0)
        name = try row.decode(String.self, at: 1)
        age = try row.decode(Int.self, at: 2)
        email = try row.decodeOptional(String.self, at: 3)
    }

    func encodeAttribute(at index: Int) throws -> SQLValue {
        switch index {
        case 0: try AttributeCoding.encode(identifier)
        case 1: try AttributeCoding.encode(name)
        case 2: try AttributeCoding.encode(age)
        default: try AttributeCoding.encodeOptional(email)
        }
    }

    func decodeAttribute(at index: Int, from row: Row) throws {
        switch index {
        case 0: identifier = try row.decode(UUID.self, at: 0)
        case 1: name = try row.decode(String.self, at: 1)
        case 2: age = try row.decode(Int.self, at: 2)
        default: email = try row.decodeOptional(String.self, at: 3)
        }
    }

    static func attributeIndex(for keyPath: PartialKeyPath<HandWrittenPerson>) -> Int? {
        switch keyPath {
        case \HandWrittenPerson.identifier: 0
        case \HandWrittenPerson.name: 1
        case \HandWrittenPerson.age: 2
        case \HandWrittenPerson.email: 3
        default: nil
        }
    }

    func awakeFromInsert() { awakeCount += 1 }
    func willSave() { willSaveCount += 1 }

    struct Rejected: Error {}

    func validateForSave() throws {
        if let rejectName, name == rejectName { throw Rejected() }
    }
}
