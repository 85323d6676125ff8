import Foundation
import Hummingbird

/// Reads a `POST /import` body and checks every element with the rules of
/// `POST /bookmarks` (``BookmarkFields/init(replacing:names:)``, the same
/// decoder and the same checks), before anything is written.
///
/// Only the keys the route documents are taken, at every level: a bookmark
/// has `url`, `title`, `folder`, `tags`, `note`, `visits` and `createdAt`; a
/// folder sent as an object has `name` only, a tag sent as an object `label`
/// only. Anything else is a 400 naming it, so no nested object reaches
/// `importObjects` (which would follow a folder's `bookmarks` and import
/// them unchecked).
enum ImportValidation {
    /// At most this many bookmarks in one import.
    static let maximumElements = 10_000

    /// One checked element: the fields as `PUT` sets them, and `createdAt`
    /// when it was sent.
    struct Element: Sendable {
        var fields: BookmarkFields
        var createdAt: String?

        /// What `importObjects` gets: every field (a missing `note` is
        /// `null`, `visits` 0, `tags` none, as for `PUT`), the folder and
        /// tags as bare keys.
        var object: [String: Any] {
            var object: [String: Any] = [
                "url": fields.url ?? "", "title": fields.title ?? "", "folder": fields.folder ?? "",
                "visits": fields.visits ?? 0, "tags": fields.tags ?? [],
            ]
            if case .some(let note) = fields.note { object["note"] = note ?? NSNull() }
            if let createdAt { object["createdAt"] = createdAt }
            return object
        }
    }

    /// The body's elements, each checked.
    ///
    /// - Throws: `HTTPError(.badRequest)` naming the element and field
    ///   (`[3].url`, `[3].folder.bookmarks`), for malformed JSON, or for more
    ///   than ``maximumElements``.
    static func validated(_ data: Data) throws -> [Element] {
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let decoded: [ImportElement]
        switch first {
        case UInt8(ascii: "["): decoded = try BookmarkJSON.decode([ImportElement].self, from: data)
        case UInt8(ascii: "{"): decoded = [try BookmarkJSON.decode(ImportElement.self, from: data)]
        case nil: throw HTTPError(.badRequest, message: "the body is not valid JSON")
        default: throw HTTPError(.badRequest, message: "the body must be a bookmark object or an array of them")
        }
        guard decoded.count <= maximumElements else {
            throw HTTPError(.badRequest, message: "the import has \(decoded.count) bookmarks; one import takes at most \(maximumElements)")
        }
        return try decoded.map { element in
            Element(fields: try BookmarkFields(replacing: element.input, names: element.names), createdAt: element.createdAt)
        }
    }
}

/// One element of an import as sent, before its fields are checked: the
/// JSON types of `POST /bookmarks` (a `note` of `0` is refused, `visits`
/// takes any integer), plus the shapes MagicalRecord's import takes.
struct ImportElement: Decodable {
    var input = BookmarkInput()
    var createdAt: String?
    var names = BookmarkFieldNames()

    static let keys = ["url", "title", "folder", "tags", "note", "visits", "createdAt"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        names.prefix = decoder.codingPath.isEmpty ? "" : BookmarkJSON.path(decoder.codingPath) + "."
        try AnyKey.refuseOthers(container, allowing: Self.keys, at: decoder.codingPath)
        func key(_ name: String) -> AnyKey { AnyKey(name) }
        let path = decoder.codingPath
        input.url = try BookmarkJSON.value(String.self, in: container, forKey: key("url"), at: path)
        input.title = try BookmarkJSON.value(String.self, in: container, forKey: key("title"), at: path)
        if let folder = try BookmarkJSON.value(Named.self, in: container, forKey: key("folder"), at: path) {
            input.folder = folder.text
            if folder.wasObject { names.folderKey = "folder.name" }
        }
        if let tags = try BookmarkJSON.value([Named].self, in: container, forKey: key("tags"), at: path) {
            input.tags = tags.map(\.text)
            names.labelObjects = Set(tags.indices.filter { tags[$0].wasObject })
        }
        if container.contains(key("note")) {
            input.note = .some(try container.decodeNil(forKey: key("note")) ? nil : try container.decode(String.self, forKey: key("note")))
        }
        input.visits = try BookmarkJSON.integer(in: container, forKey: key("visits"), at: decoder.codingPath)
        createdAt = try BookmarkJSON.value(String.self, in: container, forKey: key("createdAt"), at: path)
    }

    /// A folder or a tag: a bare string, or an object with one key,
    /// `name` for a folder and `label` for a tag.
    struct Named: Decodable {
        var text: String
        var wasObject: Bool

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                (self.text, wasObject) = (text, false)
                return
            }
            let key = decoder.codingPath.last?.intValue == nil ? "name" : "label"
            let container: KeyedDecodingContainer<AnyKey>
            do {
                container = try decoder.container(keyedBy: AnyKey.self)
            } catch {
                throw HTTPError(.badRequest, message: "field '\(BookmarkJSON.path(decoder.codingPath))' must be a string or an object with '\(key)'")
            }
            try AnyKey.refuseOthers(container, allowing: [key], at: decoder.codingPath)
            // Missing or empty: BookmarkFields says so, naming `….\(key)`.
            (text, wasObject) = (try container.decodeIfPresent(String.self, forKey: AnyKey(key)) ?? "", true)
        }
    }
}

/// Any key of a JSON object, to see every key an element has.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// 400 naming the first key of `container` that is not in `allowed`.
    static func refuseOthers(_ container: KeyedDecodingContainer<AnyKey>, allowing allowed: [String], at path: [any CodingKey]) throws {
        guard let other = container.allKeys.map(\.stringValue).sorted().first(where: { !allowed.contains($0) }) else { return }
        throw HTTPError(
            .badRequest,
            message: "field '\(BookmarkJSON.path(path + [AnyKey(other)]))' is not one /import takes here (\(allowed.joined(separator: ", ")))")
    }
}
