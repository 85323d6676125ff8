import Foundation
public import LiteRecord

/// A note: its text, its tags and whether it is done.
///
/// Tags are a stored collection of strings (a JSON array in the store), which
/// a predicate can search with `$0.tags.contains(tag)`. When LiteRecord's
/// relationships land they become a many-to-many to a `Tag` entity.
@Entity
public final class Note {
    public var text = ""
    public var tags: [String] = []
    @Attribute(.indexed) public var isDone = false
    public var createdAt = Date()

    public init() {}

    public init(text: String, tags: [String] = []) {
        self.text = text
        self.tags = tags
    }

    /// The number the command line shows and takes: the store's row id.
    public var number: Int64? { recordID?.rowID }
}
