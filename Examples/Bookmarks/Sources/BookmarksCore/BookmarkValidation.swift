import Foundation
import Hummingbird

/// The rules every way in — `POST`, `PUT`, `PATCH` and `/import` — applies
/// to a bookmark's fields, with a 400 that names the field.
enum BookmarkValidation {
    /// At most this many tags on one bookmark.
    static let maximumTags = 32

    /// `value`, trimmed; 400 when it is missing or empty. `field` is the name
    /// the message uses (`title`, `[3].title`).
    static func required(_ value: String?, _ field: String) throws -> String {
        guard let value else { throw HTTPError(.badRequest, message: "field '\(field)' is missing") }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw HTTPError(.badRequest, message: "field '\(field)' must not be empty") }
        return trimmed
    }

    /// `value`, trimmed, when it is an absolute `http` or `https` URL with a
    /// host; 400 otherwise.
    static func url(_ value: String?, _ field: String) throws -> String {
        let text = try required(value, field)
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else {
            throw HTTPError(.badRequest, message: "field '\(field)' must be an absolute http or https URL, not '\(text)'")
        }
        return text
    }

    /// 400 for more than ``maximumTags`` tags.
    static func tagCount(_ count: Int, _ field: String) throws {
        guard count <= maximumTags else {
            throw HTTPError(.badRequest, message: "field '\(field)' has \(count) tags; a bookmark takes at most \(maximumTags)")
        }
    }

    /// `visits`, when it is not negative.
    static func visits(_ value: Int?, _ field: String) throws -> Int? {
        if let value, value < 0 { throw HTTPError(.badRequest, message: "field '\(field)' must not be negative") }
        return value
    }

    /// Trimmed labels without duplicates, in the order given; 400 for an empty
    /// label or more than ``maximumTags``.
    static func labels(_ tags: [String], _ field: String) throws -> [String] {
        try tagCount(tags.count, field)
        var seen = Set<String>()
        var labels: [String] = []
        for (index, tag) in tags.enumerated() {
            let label = try required(tag, "\(field)[\(index)]")
            if seen.insert(label).inserted { labels.append(label) }
        }
        return labels
    }
}
