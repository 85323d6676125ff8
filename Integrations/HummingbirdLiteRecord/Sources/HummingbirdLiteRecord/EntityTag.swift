public import Hummingbird
public import LiteRecord
import Foundation

/// An entity tag (RFC 9110 §8.8.3): the value of an `ETag` header, and one
/// element of an `If-Match` or `If-None-Match` list.
///
/// ```swift
/// let tag = EntityTag(id: 7, version: 3)      // sent as "7.3"
/// response.headers[.eTag] = tag.description
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
    /// try await stack.read { context in try Todo.find(rowID: 7, in: context).flatMap { EntityTag(for: $0) } }
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
    /// EntityTag("1")?.weakMatches(EntityTag("1", weak: true)!)   // true
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
/// let condition = try EntityTagCondition(fieldValues: ["\"1\", \"2\""], field: "If-Match")
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
    /// let condition = try EntityTagCondition(fieldValues: request.headers[values: .ifMatch], field: "If-Match")
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` naming `field` for anything that is
    ///   not `*` or a list of quoted tags (a bare `2`, a missing quote, `*`
    ///   beside a tag).
    public init(fieldValues: [String], field: String) throws {
        let joined = fieldValues.joined(separator: ",")
        if joined.trimmingCharacters(in: .whitespaces) == "*" {
            self = .any
            return
        }
        guard let tags = Self.parseList(Array(joined.utf8)), !tags.isEmpty else {
            throw HTTPError(
                .badRequest,
                message: "header '\(field)' must be * or a list of quoted entity tags such as \"1.2\", not \(joined)"
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

    /// Throws the 412 a state-changing request gets when the condition does
    /// not name `current` strongly (`nil`: the resource does not exist),
    /// carrying the current `ETag` so the client can read again.
    ///
    /// ```swift
    /// try condition.requireMatch(EntityTag(id: 7, version: 3))
    /// ```
    ///
    /// - Throws: `HTTPError(.preconditionFailed)` with `message`, or a
    ///   sentence naming the current ETag.
    public func requireMatch(_ current: EntityTag?, message: String? = nil) throws {
        guard !matches(current, weakly: false) else { return }
        var headers = HTTPFields()
        if let current { headers[.eTag] = current.description }
        let now = current.map { "its current ETag is \($0)" } ?? "it does not exist"
        throw HTTPError(.preconditionFailed, headers: headers, message: message ?? "If-Match names no current representation: \(now)")
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

extension Request {
    /// The request's `If-Match` condition, `nil` when it has none.
    ///
    /// ```swift
    /// let condition = try request.ifMatch()
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func ifMatch() throws -> EntityTagCondition? {
        let values = headers[values: .ifMatch]
        return values.isEmpty ? nil : try EntityTagCondition(fieldValues: values, field: "If-Match")
    }

    /// The request's `If-None-Match` condition, `nil` when it has none.
    ///
    /// ```swift
    /// let condition = try request.ifNoneMatch()
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func ifNoneMatch() throws -> EntityTagCondition? {
        let values = headers[values: .ifNoneMatch]
        return values.isEmpty ? nil : try EntityTagCondition(fieldValues: values, field: "If-None-Match")
    }

    /// Checks `If-Match` against the resource's current tag (`nil`: the
    /// resource does not exist), as a state-changing method must (RFC 9110
    /// §13.1.1): strong comparison, `*` matching any existing resource. No
    /// header passes unless `required`.
    ///
    /// ```swift
    /// try request.checkIfMatch(current: EntityTag(id: id, version: version), required: true)
    /// ```
    ///
    /// - Throws: `HTTPError(.preconditionRequired)` (428) when `required` and
    ///   the header is absent; `.preconditionFailed` (412) carrying the
    ///   current `ETag` when no tag matches; `.badRequest` for a malformed
    ///   header.
    public func checkIfMatch(current: EntityTag?, required: Bool = false) throws {
        guard let condition = try ifMatch() else {
            if required {
                throw HTTPError(
                    .preconditionRequired,
                    message: "\(method) \(uri.path) needs an If-Match header with the ETag of what it changes"
                )
            }
            return
        }
        try condition.requireMatch(current)
    }

    /// Whether a `GET` or `HEAD` should answer 304 Not Modified: the
    /// request's `If-None-Match` names `current` (weak comparison) or is `*`.
    ///
    /// ```swift
    /// if try request.isNotModified(current: tag) { return Response.notModified(tag) }
    /// ```
    ///
    /// - Throws: `HTTPError(.badRequest)` for a malformed header.
    public func isNotModified(current: EntityTag) throws -> Bool {
        try ifNoneMatch()?.matches(current, weakly: true) ?? false
    }
}

extension Response {
    /// A 304 Not Modified carrying `tag` as its `ETag`, and no body.
    ///
    /// ```swift
    /// return Response.notModified(EntityTag(id: 7, version: 3))
    /// ```
    public static func notModified(_ tag: EntityTag) -> Response {
        Response(status: .notModified, headers: [.eTag: tag.description])
    }
}
