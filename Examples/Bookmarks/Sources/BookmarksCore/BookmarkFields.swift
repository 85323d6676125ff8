import Foundation
import Hummingbird
import LiteRecord

/// The checked fields of a `POST`, `PUT` or `PATCH`: made before the write
/// transaction starts (a bad field costs no transaction), applied inside it.
struct BookmarkFields: Sendable {
    var url: String?
    var title: String?
    var folder: String?
    var tags: [String]?
    /// `.none`: unchanged; `.some(nil)`: cleared.
    var note: String??
    var visits: Int?

    /// Every field, as `POST` and `PUT` take them: `url`, `title` and
    /// `folder` required; a missing `note` or `tags` is none, missing
    /// `visits` is 0.
    ///
    /// `/import` checks each element with this too, naming its fields by
    /// `names` (`[3].folder.name`).
    ///
    /// - Throws: 400 naming the field.
    init(replacing input: BookmarkInput, names: BookmarkFieldNames = .init()) throws {
        url = try BookmarkValidation.url(input.url, names("url"))
        title = try BookmarkValidation.required(input.title, names("title"))
        folder = try BookmarkValidation.required(input.folder, names.folder)
        tags = try BookmarkValidation.labels(input.tags ?? [], names("tags"), element: names.tag)
        note = .some(input.note ?? nil)
        visits = try BookmarkValidation.visits(input.visits, names("visits")) ?? 0
    }

    /// The fields `input` has, as `PATCH` takes them.
    ///
    /// - Throws: 400 naming the field.
    init(patching input: BookmarkInput) throws {
        url = try input.url.map { try BookmarkValidation.url($0, "url") }
        title = try input.title.map { try BookmarkValidation.required($0, "title") }
        folder = try input.folder.map { try BookmarkValidation.required($0, "folder") }
        tags = try input.tags.map { try BookmarkValidation.labels($0, "tags") { "tags[\($0)]" } }
        note = input.note
        visits = try BookmarkValidation.visits(input.visits, "visits")
    }

    /// Sets the fields on `bookmark`, making its folder and tags when new.
    ///
    /// - Throws: 409 when another bookmark has the URL.
    func apply(to bookmark: Bookmark, in context: RecordContext) throws {
        if let url, url != bookmark.url {
            if try Bookmark.exists(matching: #Predicate { $0.url == url }, in: context) {
                throw HTTPError(.conflict, message: "a bookmark with url '\(url)' exists")
            }
            bookmark.url = url
        }
        if let title { bookmark.title = title }
        if case .some(let note) = note { bookmark.note = note }
        if let visits { bookmark.visits = visits }
        if let folder {
            bookmark.folder = try Folder.findFirstOrCreate(byAttribute: "name", withValue: folder, in: context)
        }
        if let tags {
            bookmark.tags = try tags.map { try Tag.findFirstOrCreate(byAttribute: "label", withValue: $0, in: context) }
        }
    }
}

/// How a 400 names a bookmark's fields: `url` in a `POST`, `[3].url` for the
/// fourth element of an import, `[3].folder.name` and `[3].tags[1].label`
/// where the import sent the folder or a tag as an object.
struct BookmarkFieldNames: Sendable {
    /// Put before every name: `[3].`, or nothing.
    var prefix = ""
    /// The folder's name after the prefix: `folder` or `folder.name`.
    var folderKey = "folder"
    /// The indexes of the tags sent as `{"label": …}`.
    var labelObjects: Set<Int> = []

    func callAsFunction(_ name: String) -> String { prefix + name }

    var folder: String { prefix + folderKey }

    func tag(_ index: Int) -> String { prefix + "tags[\(index)]" + (labelObjects.contains(index) ? ".label" : "") }
}
