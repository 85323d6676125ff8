import Foundation
import Hummingbird

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
    public var tags: [String]
    /// The row version, also sent as the `ETag`.
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
        tags = bookmark.tags.map(\.label)
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

    /// The `ETag` header value for this bookmark: its version, quoted.
    public var etag: String { BookmarkJSON.etag(version) }
}

/// What `POST /bookmarks` and `PUT /bookmarks/{id}` take. For a `PUT` every
/// field is optional and a missing one keeps its value.
public struct BookmarkInput: Decodable, Sendable, Equatable {
    public var url: String?
    public var title: String?
    public var folder: String?
    public var tags: [String]?
    /// Absent: unchanged (or none, for a new bookmark); `null` clears it.
    public var note: String??
    public var visits: Int?

    enum CodingKeys: String, CodingKey { case url, title, folder, tags, note, visits }

    /// Decodes the fields one by one, so that a wrong type is reported by
    /// the decoder with the field's coding path.
    ///
    /// ```swift
    /// let input = try JSONDecoder().decode(BookmarkInput.self, from: data)
    /// ```
    ///
    /// - Throws: `DecodingError` naming the field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        folder = try container.decodeIfPresent(String.self, forKey: .folder)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        if container.contains(.note) {
            note = .some(try container.decodeNil(forKey: .note) ? nil : try container.decode(String.self, forKey: .note))
        } else {
            note = .none
        }
        visits = try container.decodeIfPresent(Int.self, forKey: .visits)
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

    /// `"7"` for version 7: a strong entity tag.
    ///
    /// ```swift
    /// BookmarkJSON.etag(3)   // "\"3\""
    /// ```
    public static func etag(_ version: Int64) -> String { "\"\(version)\"" }

    /// The version an `If-Match` value names: `"7"`, `W/"7"` or `7`; `nil`
    /// for `*` (any version) and for anything else.
    ///
    /// ```swift
    /// BookmarkJSON.version(ifMatch: "\"3\"")   // 3
    /// ```
    public static func version(ifMatch value: String) -> Int64? {
        var text = Substring(value.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        return Int64(text)
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
