import Foundation
public import Hummingbird
public import HummingbirdLiteRecord

/// A bookmark as the service sends it: plain values, `Sendable`, made inside
/// `read {}`/`write {}` so that no entity object leaves its context.
public struct BookmarkDTO: Codable, Sendable, Equatable {
    /// The row id, the `{id}` of `/bookmarks/{id}`.
    public var id: Int64
    public var url: String
    public var title: String
    public var note: String?
    public var visits: Int
    public var createdAt: Date
    public var folder: String?
    /// The tags' labels, sorted.
    public var tags: [String]
    /// The row version; the `ETag` is the id and the version.
    public var version: Int64

    /// Reads the values of `bookmark`, which must be saved.
    ///
    /// ```swift
    /// let dto = try BookmarkDTO(bookmark)
    /// ```
    ///
    /// - Throws: `HTTPError(.internalServerError)` for an unsaved bookmark.
    public init(_ bookmark: Bookmark) throws {
        guard let id = bookmark.recordID?.rowID, let version = bookmark.recordVersion else {
            throw HTTPError(.internalServerError, message: "a bookmark was not saved")
        }
        self.id = id
        url = bookmark.url
        title = bookmark.title
        note = bookmark.note
        visits = bookmark.visits
        createdAt = bookmark.createdAt
        folder = bookmark.folder?.name
        // Sorted: a defined order, the same whether the answer is made from
        // the objects a write changed or from a read of the store.
        tags = bookmark.tags.map(\.label).sorted()
        self.version = version
    }

    /// A bookmark with the given values (for other engines serving the same
    /// JSON, as Benchmarks/Server does).
    ///
    /// ```swift
    /// let dto = BookmarkDTO(id: 1, url: "https://a.example", title: "A", note: nil, visits: 0,
    ///                       createdAt: Date(), folder: "Inbox", tags: [], version: 2)
    /// ```
    public init(id: Int64, url: String, title: String, note: String?, visits: Int, createdAt: Date,
                folder: String?, tags: [String], version: Int64) {
        self.id = id
        self.url = url
        self.title = title
        self.note = note
        self.visits = visits
        self.createdAt = createdAt
        self.folder = folder
        self.tags = tags
        self.version = version
    }

    /// The `ETag` header value for this bookmark: `"7.3"` for version 3 of
    /// bookmark 7. The id makes it name this bookmark only, whatever another
    /// bookmark's version is.
    public var etag: String { entityTag.description }

    /// The bookmark's strong entity tag, id and version.
    public var entityTag: EntityTag { Self.entityTag(id: id, version: version) }

    /// The entity tag of version `version` of bookmark `id`.
    ///
    /// ```swift
    /// BookmarkDTO.entityTag(id: 7, version: 3).description   // "\"7.3\""
    /// ```
    public static func entityTag(id: Int64, version: Int64) -> EntityTag { EntityTag(id: id, version: version) }
}

extension BookmarkDTO: ResponseEncodable {}

/// What each `/events` event carries.
public struct BookmarkSummary: Codable, Sendable, Equatable {
    /// How many bookmarks are stored.
    public var count: Int
    /// The id of the newest bookmark (by `createdAt`), `nil` when none.
    public var newestID: Int64?

    /// A summary with the given values.
    ///
    /// ```swift
    /// let summary = BookmarkSummary(count: 3, newestID: 7)
    /// ```
    public init(count: Int, newestID: Int64?) {
        self.count = count
        self.newestID = newestID
    }
}

/// What `POST /bookmarks`, `PUT /bookmarks/{id}` and `PATCH /bookmarks/{id}`
/// take. `POST` and `PUT` need `url`, `title` and `folder` (a `PUT` replaces
/// every field); for a `PATCH` every field is optional and a missing one
/// keeps its value.
public struct BookmarkInput: Decodable, Sendable, Equatable {
    /// An absolute http or https URL, unique among bookmarks.
    public var url: String?
    public var title: String?
    public var folder: String?
    /// The tags' labels, sorted.
    public var tags: [String]?
    /// Absent: unchanged (or none, for a new bookmark); `null` clears it.
    public var note: String??
    public var visits: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case url, title, folder, tags, note, visits }

    /// Decodes the fields one by one, so that a wrong type is reported by
    /// the decoder with the field's coding path.
    ///
    /// ```swift
    /// let input = try JSONDecoder().decode(BookmarkInput.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError` naming the field; `HTTPError(.badRequest)`
    ///   naming a field the input does not have (its schema says
    ///   `additionalProperties: false`: a misspelt field is refused, never
    ///   dropped silently).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let path = decoder.codingPath
        try Self.refuseUnknownFields(decoder)
        url = try BookmarkJSON.value(String.self, in: container, forKey: .url, at: path)
        title = try BookmarkJSON.value(String.self, in: container, forKey: .title, at: path)
        folder = try BookmarkJSON.value(String.self, in: container, forKey: .folder, at: path)
        tags = try BookmarkJSON.value([String].self, in: container, forKey: .tags, at: path)
        if container.contains(.note) {
            note = .some(try container.decodeNil(forKey: .note) ? nil : try container.decode(String.self, forKey: .note))
        } else {
            note = .none
        }
        visits = try BookmarkJSON.integer(in: container, forKey: .visits, at: decoder.codingPath)
    }

    /// 400 naming the first field of the body that is not one of the input's.
    private static func refuseUnknownFields(_ decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.stringValue))
        guard let other = fields.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) else { return }
        throw HTTPError(
            .badRequest,
            message: "field '\(BookmarkJSON.path(decoder.codingPath + [AnyKey(other)]))' is not one a bookmark has (\(CodingKeys.allCases.map(\.stringValue).joined(separator: ", ")))")
    }

    /// An input with the given fields, for tests and callers in Swift.
    ///
    /// ```swift
    /// let input = BookmarkInput(url: "https://swift.org", title: "Swift", folder: "Dev", tags: ["lang"])
    /// ```
    public init(url: String? = nil, title: String? = nil, folder: String? = nil, tags: [String]? = nil,
                note: String?? = .none, visits: Int? = nil) {
        self.url = url
        self.title = title
        self.folder = folder
        self.tags = tags
        self.note = note
        self.visits = visits
    }
}

/// Encoding and decoding for the service, with errors that name the field.
public enum BookmarkJSON {
    /// The encoder of every answer: ISO 8601 dates, sorted keys.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Decodes `T` from `data`, turning the decoder's errors into a 400 whose
    /// message names the field (`tags[1]`) or says the JSON is malformed.
    ///
    /// ```swift
    /// let input = try BookmarkJSON.decode(BookmarkInput.self, from: buffer)
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` naming the field.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw HTTPError(.badRequest, message: describe(error))
        }
    }

    /// A field that may be left out but is never `null`: only `note` takes
    /// `null` (it clears the note), so `"visits": null` or `"tags": null` is a
    /// 400 naming the field rather than read as "absent" — the schema gives
    /// those fields no `null`, and a `PUT` would otherwise reset them.
    ///
    /// - Throws: `HTTPError(.badRequest)` for `null`; `DecodingError` for a
    ///   wrong type.
    static func value<T: Decodable, Key: CodingKey>(_ type: T.Type, in container: KeyedDecodingContainer<Key>, forKey key: Key,
                                                    at path: [any CodingKey]) throws -> T? {
        try refuseNull(in: container, forKey: key, at: path)
        return try container.decodeIfPresent(type, forKey: key)
    }

    /// Throws a 400 naming the field when `key` is present and `null`.
    static func refuseNull<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key, at path: [any CodingKey]) throws {
        if container.contains(key), try container.decodeNil(forKey: key) {
            throw HTTPError(.badRequest, message: "field '\(self.path(path + [key]))' must not be null")
        }
    }

    /// An optional integer: anything else (`"4"`, `1.5`, `1e30`) is a 400
    /// naming the field (the decoder's own error for a number that is no
    /// `Int` names no field).
    static func integer<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key, at path: [any CodingKey]) throws -> Int? {
        try refuseNull(in: container, forKey: key, at: path)
        do {
            return try container.decodeIfPresent(Int.self, forKey: key)
        } catch {
            // A string, `1.5`, or a number past Int: the decoder's error for
            // the last two is not even a DecodingError.
            throw HTTPError(.badRequest, message: "field '\(self.path(path + [key]))' must be an integer")
        }
    }

    /// A person's sentence for a decoding error, naming the field.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "field '\(path(context.codingPath))' must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "field '\(path(context.codingPath))' must be \(typeName(type)), not null"
        case .keyNotFound(let key, let context):
            return "field '\(path(context.codingPath + [key]))' is missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            return "field '\(path(context.codingPath))' is invalid: \(context.debugDescription)"
        @unknown default:
            return "the body could not be read: \(error)"
        }
    }

    /// `tags[1]`, `folder`, `[3].url`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(body)" : text
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is [String].Type: "an array of strings"
        default:
            if String(describing: type).hasPrefix("Array") { "an array" } else
            if String(describing: type).hasPrefix("Dictionary") { "an object" } else { "a \(type)" }
        }
    }
}
