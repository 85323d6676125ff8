import Foundation
import Hummingbird

/// Checks a `POST /import` body element by element with the rules of
/// `POST /bookmarks`, before anything is written, and hands `importObjects`
/// the same JSON with its texts trimmed.
enum ImportValidation {
    /// At most this many bookmarks in one import.
    static let maximumElements = 10_000

    /// The body with every element checked and its texts trimmed.
    ///
    /// - Throws: `HTTPError(.badRequest)` naming the element and field
    ///   (`[3].url`), for malformed JSON, or for more than ``maximumElements``.
    static func validated(_ data: Data) throws -> Data {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw HTTPError(.badRequest, message: "the body is not valid JSON")
        }
        let elements: [Any]
        let single: Bool
        switch root {
        case let array as [Any]: (elements, single) = (array, false)
        case let object as [String: Any]: (elements, single) = ([object], true)
        default: throw HTTPError(.badRequest, message: "the body must be a bookmark object or an array of them")
        }
        guard elements.count <= maximumElements else {
            throw HTTPError(.badRequest, message: "the import has \(elements.count) bookmarks; one import takes at most \(maximumElements)")
        }
        var checked: [[String: Any]] = []
        checked.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let prefix = single ? "" : "[\(index)]."
            guard let object = element as? [String: Any] else {
                throw HTTPError(.badRequest, message: "element '[\(index)]' must be an object")
            }
            checked.append(try bookmark(object, prefix))
        }
        return try JSONSerialization.data(withJSONObject: single ? checked[0] : checked)
    }

    /// One element, checked and trimmed.
    static func bookmark(_ object: [String: Any], _ prefix: String) throws -> [String: Any] {
        var result = object
        result["url"] = try BookmarkValidation.url(try text(object["url"], prefix + "url"), prefix + "url")
        result["title"] = try BookmarkValidation.required(try text(object["title"], prefix + "title"), prefix + "title")
        if let visits = object["visits"], !(visits is NSNull) {
            // A number, or a string of one (importObjects converts it).
            let integer = (visits as? String).flatMap { Int($0) } ?? (visits as? NSNumber).flatMap { Int(exactly: $0.doubleValue) }
            guard let integer else { throw HTTPError(.badRequest, message: "field '\(prefix)visits' must be an integer") }
            _ = try BookmarkValidation.visits(integer, prefix + "visits")
        }
        result["folder"] = try folder(object["folder"], prefix + "folder")
        if let tags = object["tags"], !(tags is NSNull) {
            result["tags"] = try self.tags(tags, prefix + "tags")
        }
        return result
    }

    /// A folder as a bare name or `{"name": …}`; required.
    static func folder(_ value: Any?, _ field: String) throws -> Any {
        if let object = value as? [String: Any] {
            var folder = object
            folder["name"] = try BookmarkValidation.required(try text(object["name"], field + ".name"), field + ".name")
            return folder
        }
        return try BookmarkValidation.required(try text(value, field), field)
    }

    /// Tags as bare labels or `[{"label": …}]`.
    static func tags(_ value: Any, _ field: String) throws -> [Any] {
        guard let array = value as? [Any] else { throw HTTPError(.badRequest, message: "field '\(field)' must be an array") }
        try BookmarkValidation.tagCount(array.count, field)
        return try array.enumerated().map { index, tag -> Any in
            let path = "\(field)[\(index)]"
            if let object = tag as? [String: Any] {
                var result = object
                result["label"] = try BookmarkValidation.required(try text(object["label"], path + ".label"), path + ".label")
                return result
            }
            return try BookmarkValidation.required(try text(tag, path), path)
        }
    }

    /// A string value; `nil` when absent or null; 400 for another type.
    static func text(_ value: Any?, _ field: String) throws -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let string as String: return string
        default: throw HTTPError(.badRequest, message: "field '\(field)' must be a string")
        }
    }
}
