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
    /// - Throws: 400 naming the field.
    init(replacing input: BookmarkInput) throws {
        url = try BookmarkValidation.url(input.url, "url")
        title = try BookmarkValidation.required(input.title, "title")
        folder = try BookmarkValidation.required(input.folder, "folder")
        tags = try BookmarkValidation.labels(input.tags ?? [], "tags")
        note = .some(input.note ?? nil)
        visits = try BookmarkValidation.visits(input.visits, "visits") ?? 0
    }

    /// The fields `input` has, as `PATCH` takes them.
    ///
    /// - Throws: 400 naming the field.
    init(patching input: BookmarkInput) throws {
        url = try input.url.map { try BookmarkValidation.url($0, "url") }
        title = try input.title.map { try BookmarkValidation.required($0, "title") }
        folder = try input.folder.map { try BookmarkValidation.required($0, "folder") }
        tags = try input.tags.map { try BookmarkValidation.labels($0, "tags") }
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
