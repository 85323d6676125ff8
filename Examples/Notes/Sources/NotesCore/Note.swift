import Foundation
public import LiteRecord

/// A note: its text, its tags and whether it is done.
///
/// The text is `.searchable`: the store keeps a full-text index of it, which
/// ``Notebook/search(_:)`` queries (see LiteRecord's `Docs/Search.md`).
///
/// Tags are a many-to-many relationship to ``Tag``: each tag is stored once,
/// and `#Predicate { $0.tags.contains { $0.name == tag } }` finds the notes
/// carrying one, in SQL.
@Entity
public final class Note {
    @Attribute(.searchable) public var text = ""
    @Attribute(.indexed) public var isDone = false
    public var createdAt = Date()
    @Relationship public var tags: [Tag] = []
    /// The first version's tags, a JSON array of strings in the column
    /// `tags`: kept (renamed) so that its stores open, and emptied by
    /// ``Notebook/adoptLegacyTags()``, which turns them into ``Tag``s.
    @Attribute(originalName: "tags") var legacyTags: [String] = []

    public init() {}

    public init(text: String) {
        self.text = text
    }

    /// The number the command line shows and takes: the store's row id.
    public var number: Int64? { recordID?.rowID }

    /// The tags' names, in the order the note carries them.
    public var tagNames: [String] { tags.map(\.name) }
}

/// A tag, shared by every note that carries it.
@Entity
public final class Tag {
    @Attribute(.unique) public var name = ""
    @Relationship(inverse: \Note.tags) public var notes: [Note] = []

    public init() {}
}
