import Foundation
import LiteRecord

// Hand-written entities with relationships: what the `@Entity` macro
// generates for `@Relationship` properties, spelled out, so that the core is
// tested without the macro.

/// An author: a to-many of books (inverse of `Book.author`, cascade).
final class RAuthor: Entity, DefaultInitializable {
    var recordState = RecordState()
    var name = ""

    static let entityName = "Author"
    static let attributes = [AttributeDescription("name", type: .string)]
    static let relationships = [
        RelationshipDescription("books", toMany: RBook.self, inverse: "author", deleteRule: .cascade)
    ]

    var books: [RBook] {
        get { relatedObjects(at: 0) }
        set { setRelatedObjects(newValue, at: 0) }
    }

    init() {}
    init(_ name: String) { self.name = name }
    init(row: Row) throws { name = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(name) }
    func decodeAttribute(at index: Int, from row: Row) throws { name = try row.decode(String.self, at: 0) }
    static func attributeIndex(for keyPath: PartialKeyPath<RAuthor>) -> Int? { keyPath == \RAuthor.name ? 0 : nil }
    static func relationshipIndex(for keyPath: PartialKeyPath<RAuthor>) -> Int? { keyPath == \RAuthor.books ? 0 : nil }
}

/// A book: a to-one author (inferred inverse) and a many-to-many of tags.
final class RBook: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""

    static let entityName = "Book"
    static let attributes = [AttributeDescription("title", type: .string)]
    static let relationships = [
        RelationshipDescription("author", toOne: RAuthor.self),
        RelationshipDescription("tags", toMany: RTag.self, inverse: "books"),
    ]

    var author: RAuthor? {
        get { relatedObject(at: 0) }
        set { setRelatedObject(newValue, at: 0) }
    }
    var tags: [RTag] {
        get { relatedObjects(at: 1) }
        set { setRelatedObjects(newValue, at: 1) }
    }

    init() {}
    init(_ title: String) { self.title = title }
    init(row: Row) throws { title = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(title) }
    func decodeAttribute(at index: Int, from row: Row) throws { title = try row.decode(String.self, at: 0) }
    static func attributeIndex(for keyPath: PartialKeyPath<RBook>) -> Int? { keyPath == \RBook.title ? 0 : nil }
    static func relationshipIndex(for keyPath: PartialKeyPath<RBook>) -> Int? {
        switch keyPath {
        case \RBook.author: 0
        case \RBook.tags: 1
        default: nil
        }
    }
}

/// A tag: the other side of `Book.tags`.
final class RTag: Entity, DefaultInitializable {
    var recordState = RecordState()
    var label = ""

    static let entityName = "Tag"
    static let attributes = [AttributeDescription("label", type: .string)]
    static let relationships = [RelationshipDescription("books", toMany: RBook.self)]

    var books: [RBook] {
        get { relatedObjects(at: 0) }
        set { setRelatedObjects(newValue, at: 0) }
    }

    init() {}
    init(_ label: String) { self.label = label }
    init(row: Row) throws { label = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(label) }
    func decodeAttribute(at index: Int, from row: Row) throws { label = try row.decode(String.self, at: 0) }
}

let relationshipEntities: [any Entity.Type] = [RAuthor.self, RBook.self, RTag.self]
