public import LiteRecord
import Foundation

/// An entity tag (RFC 9110 §8.8.3): the value of an `ETag` header, and one
/// element of an `If-Match` or `If-None-Match` list.
///
/// ```swift
/// let tag = EntityTag(id: 7, version: 3)      // sent as "7.3"
/// print(tag.description)                      // "7.3", with its quotes
/// ```
public struct EntityTag: Hashable, Sendable, CustomStringConvertible {
    /// The characters between the quotes.
    public let opaqueTag: String
    /// Whether the tag was sent with the `W/` prefix.
    public let isWeak: Bool

    /// A tag with `opaqueTag` between its quotes, or `nil` when the text is
    /// not entity-tag characters (RFC 9110 `etagc`: a double quote, a space
    /// or a control character), which no header could carry.
    ///
    /// ```swift
    /// let strong = EntityTag("7.3")              // Optional("7.3")
    /// let weak = EntityTag("7.3", weak: true)    // W/"7.3"
    /// EntityTag("two words")                     // nil
    /// ```
    public init?(_ opaqueTag: String, weak: Bool = false) {
        guard opaqueTag.utf8.allSatisfy(Self.isTagByte) else { return nil }
        self.init(checked: opaqueTag, weak: weak)
    }

    /// The strong tag of a row's id and version, `"7.3"` for version 3 of
    /// row 7: never equal for two rows, and new at every save that changes
    /// the row (a version is ``LiteRecord/Entity/recordVersion``, an `Int64`).
    ///
    /// ```swift
    /// let tag = EntityTag(id: 7, version: 3)     // "7.3"
    /// ```
    public init(id: Int64, version: Int64) {
        self.init(checked: "\(id).\(version)", weak: false)
    }

    /// The strong tag of a saved object, ``init(id:version:)`` of its row id
    /// and version; `nil` for an object not saved yet (it has neither).
    ///
    /// ```swift
    /// let tag = try await stack.read { context in try Product.find(rowID: 7, in: context).flatMap { EntityTag(for: $0) } }
    /// ```
    public init?(for object: some Entity) {
        guard let id = object.recordID?.rowID, let version = object.recordVersion else { return nil }
        self.init(id: id, version: version)
    }

    /// A tag whose text is known to be entity-tag characters.
    init(checked opaqueTag: String, weak: Bool) {
        self.opaqueTag = opaqueTag
        self.isWeak = weak
    }

    /// The header form: `"7.3"`, or `W/"7.3"` for a weak tag.
    public var description: String { (isWeak ? "W/" : "") + "\"" + opaqueTag + "\"" }

    /// The strong comparison (RFC 9110 §8.8.3.2) that `If-Match` uses: both
    /// tags strong and their texts equal.
    ///
    /// ```swift
    /// EntityTag(id: 1, version: 2).strongMatches(EntityTag(id: 1, version: 2))   // true
    /// ```
    public func strongMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// The weak comparison that `If-None-Match` uses: the texts equal,
    /// whichever tag is weak.
    ///
    /// ```swift
    /// EntityTag("1")?.weakMatches(EntityTag(id: 1, version: 2))   // false
    /// ```
    public func weakMatches(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }

    /// `etagc` of RFC 9110: `!`, `#`…`~`, and bytes above 127.
    static func isTagByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80
    }
}

/// What an `If-Match` or `If-None-Match` header asks: `*` (any current
/// representation) or a list of entity tags.
///
/// ```swift
/// let condition = try EntityTagCondition(fieldValues: [#""1", "2""#], field: "If-Match")
/// ```
public enum EntityTagCondition: Hashable, Sendable {
    /// `*`: the resource exists.
    case any
    /// One of these tags.
    case tags([EntityTag])

    /// Parses every line of one header (a list may span several lines,
    /// RFC 9110 §5.3).
    ///
    /// ```swift
    /// let condition = try EntityTagCondition(fieldValues: ["*"], field: "If-Match")   // .any
    /// ```
    ///
    /// - Throws: an ``HTTPProblem`` with status 400 naming `field` for
    ///   anything that is not `*` or a list of quoted tags (a bare `2`, a
    ///   missing quote, `*` beside a tag).
    public init(fieldValues: [String], field: String) throws {
        let joined = fieldValues.joined(separator: ",")
        if joined.trimmingCharacters(in: .whitespaces) == "*" {
            self = .any
            return
        }
        guard let tags = Self.parseList(Array(joined.utf8)), !tags.isEmpty else {
            throw HTTPProblem(
                status: 400,
                detail: "header '\(field)' must be * or a list of quoted entity tags such as \"1.2\", not \(joined)"
            )
        }
        self = .tags(tags)
    }

    /// Whether `current` (the resource's tag, `nil` when it does not exist)
    /// satisfies the condition, by strong comparison (`If-Match`) or weak
    /// comparison (`If-None-Match`, which passes when this is false).
    ///
    /// ```swift
    /// EntityTagCondition.tags([EntityTag(id: 1, version: 2)]).matches(EntityTag(id: 1, version: 2), weakly: false)   // true
    /// ```
    public func matches(_ current: EntityTag?, weakly: Bool) -> Bool {
        guard let current else { return false }
        switch self {
        case .any:
            return true
        case .tags(let tags):
            return tags.contains { weakly ? $0.weakMatches(current) : $0.strongMatches(current) }
        }
    }

    /// `#entity-tag`: elements separated by commas and optional white space;
    /// empty elements are allowed and skipped. `nil` for anything else.
    static func parseList(_ bytes: [UInt8]) -> [EntityTag]? {
        let space: UInt8 = 0x20, tab: UInt8 = 0x09, comma: UInt8 = 0x2C, quote: UInt8 = 0x22
        var tags: [EntityTag] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == space || byte == tab || byte == comma {
                index += 1
                continue
            }
            var weak = false
            if byte == UInt8(ascii: "W"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                weak = true
                index += 2
            }
            guard index < bytes.count, bytes[index] == quote else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != quote {
                guard EntityTag.isTagByte(bytes[end]) else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            tags.append(EntityTag(checked: String(decoding: bytes[start..<end], as: UTF8.self), weak: weak))
            index = end + 1
            // After a tag: only white space, then a comma or the end.
            while index < bytes.count, bytes[index] == space || bytes[index] == tab { index += 1 }
            guard index == bytes.count || bytes[index] == comma else { return nil }
        }
        return tags
    }
}
