import Foundation
import LiteRecord

/// A note with an attribute of each kind a set-based update meets: searchable
/// text (stored in NFC), a unique one, numbers, an optional, a stored list,
/// a `Codable` value that is not `Equatable`, a transient property and a
/// to-one relationship.
@Entity(name: "UANote")
final class UANote {
    @Attribute(.searchable) var title = ""
    @Attribute(.unique) var slug = ""
    var stars = 0
    var archived = false
    var score = 0.0
    var reviewer: String?
    var labels: [String] = []
    var extra: UAExtra = UAExtra()
    @Transient var scratch = 0
    @Relationship var folder: UAFolder?
    /// Computed: not stored.
    var summary: String {
        get { "\(title) (\(stars))" }
        set { title = newValue }
    }

    init() {}

    init(_ title: String, slug: String, stars: Int = 0) {
        self.title = title
        self.slug = slug
        self.stars = stars
    }
}

/// Stored as JSON; not `Equatable`, so a setter always counts it as changed.
struct UAExtra: Codable, Sendable {
    var note = ""
}

@Entity(name: "UAFolder")
final class UAFolder {
    var name = ""
    @Relationship(inverse: \UANote.folder) var notes: [UANote] = []
    init() {}
}

/// Saves run `willSave()` on each object.
@Entity(name: "UAStamped")
final class UAStamped {
    var title = ""
    var saves = 0
    init() {}
    func willSave() { saves += 1 }
}

/// Saves run `validateForSave()` on each object.
@Entity(name: "UAChecked")
final class UAChecked {
    var title = ""
    init() {}
    func validateForSave() throws {}
}

/// A hand-written entity whose column is `NOT NULL` while its property is
/// optional (a description that disagrees with the type): storing `nil` is
/// refused by SQLite, for a save and a set-based update alike.
final class UALoose: Entity, DefaultInitializable {
    var recordState = RecordState()
    var note: String? = ""

    static let entityName = "UALoose"
    static let attributes = [AttributeDescription("note", type: .string)]

    init() {}
    init(row: Row) throws { note = try row.decodeOptional(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encodeOptional(note) }
    func decodeAttribute(at index: Int, from row: Row) throws { note = try row.decodeOptional(String.self, at: 0) }

    static func attributeIndex(for keyPath: PartialKeyPath<UALoose>) -> Int? {
        keyPath == \UALoose.note ? 0 : nil
    }
}

/// A hand-written entity that implements `validateForSave()` and says so.
final class UAHandChecked: Entity, DefaultInitializable {
    var recordState = RecordState()
    var title = ""

    static let entityName = "UAHandChecked"
    static let attributes = [AttributeDescription("title", type: .string)]
    static var saveHooks: SaveHooks { [.validateForSave] }

    init() {}
    init(row: Row) throws { title = try row.decode(String.self, at: 0) }
    func encodeAttribute(at index: Int) throws -> SQLValue { try AttributeCoding.encode(title) }
    func decodeAttribute(at index: Int, from row: Row) throws { title = try row.decode(String.self, at: 0) }
    func validateForSave() throws {}

    static func attributeIndex(for keyPath: PartialKeyPath<UAHandChecked>) -> Int? {
        keyPath == \UAHandChecked.title ? 0 : nil
    }
}
