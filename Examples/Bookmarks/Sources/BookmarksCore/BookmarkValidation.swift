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

    /// `value`, trimmed, when it is an absolute `http` or `https` URI as RFC
    /// 3986 writes one (``HTTPURL``), with its scheme and host in lower case;
    /// 400 otherwise.
    static func url(_ value: String?, _ field: String) throws -> String {
        let text = try required(value, field)
        do {
            return try HTTPURL.normalized(text)
        } catch let error as HTTPURL.Refusal {
            throw HTTPError(.badRequest, message: "field '\(field)' must be an absolute http or https URL (RFC 3986), not '\(text)': \(error.reason)")
        }
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
    /// label or more than ``maximumTags``. `element` names the field of one
    /// label (`tags[1]`, `[3].tags[1].label`).
    static func labels(_ tags: [String], _ field: String, element: (Int) -> String) throws -> [String] {
        try tagCount(tags.count, field)
        var seen = Set<String>()
        var labels: [String] = []
        for (index, tag) in tags.enumerated() {
            let label = try required(tag, element(index))
            if seen.insert(label).inserted { labels.append(label) }
        }
        return labels
    }
}
