import Foundation
public import LiteRecord

/// A folder: a unique name and the bookmarks filed in it. Deleting a folder
/// deletes its bookmarks (`.cascade`).
@Entity
public final class Folder {
    @Attribute(.unique) public var name = ""
    @Relationship(deleteRule: .cascade, inverse: \Bookmark.folder) public var bookmarks: [Bookmark] = []

    public init() {}
}

/// A bookmark: a unique URL, a title, an optional note, how often it was
/// visited, when it was added, its folder and its tags.
///
/// The URL is kept in a deletion's history tombstone, so that `GET /changes`
/// names a deleted bookmark by what a client knows it as.
@Entity
public final class Bookmark {
    @Attribute(.unique, .preserveValueOnDeletion) public var url = ""
    public var title = ""
    public var note: String?
    public var visits = 0
    @Attribute(.indexed, importKey: "createdAt", dateFormat: .iso8601) public var createdAt = Date()
    public var folder: Folder?
    @Relationship public var tags: [Tag] = []

    public init() {}
}

/// A tag, shared by every bookmark that carries it.
@Entity
public final class Tag {
    @Attribute(.unique) public var label = ""
    @Relationship(inverse: \Bookmark.tags) public var bookmarks: [Bookmark] = []

    public init() {}
}

/// The model the service stores.
public enum BookmarksModel {
    /// Every entity of the service, for `RecordStack(storeAt:entities:)`.
    public static var entities: [any Entity.Type] { [Folder.self, Bookmark.self, Tag.self] }
}
