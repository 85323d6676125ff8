import BookmarksCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The OpenAPI document says what the routes accept as the routes decide it:
/// each value a rule of the document refuses, the route answers 400, and each
/// it allows, the route takes. What Schemathesis (`make example-server`)
/// found where the two differed.
@Suite struct OpenAPIConformanceTests {
    /// The document as JSON.
    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
    }

    /// Follows `path` (keys, or indexes into arrays) through the document.
    static func node(_ path: [Any]) throws -> Any? {
        var current: Any? = try document()
        for step in path {
            if let key = step as? String { current = (current as? [String: Any])?[key] }
            if let index = step as? Int { current = (current as? [Any])?[index] }
        }
        return current
    }

    /// Whether `value` matches a JSON Schema `pattern` (unanchored, as JSON
    /// Schema applies it).
    static func matches(_ pattern: String, _ value: String) throws -> Bool {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }

    /// The pattern of a header's `anyOf: [{const: "*"}, {pattern}]` schema.
    static func headerAllows(_ parameter: String, _ value: String) throws -> Bool {
        let branches = try #require(try node(["components", "parameters", parameter, "schema", "anyOf"]) as? [[String: Any]])
        if value == branches[0]["const"] as? String { return true }
        return try matches(try #require(branches[1]["pattern"] as? String), value)
    }

    /// If-Match and If-None-Match: what the document's pattern allows is
    /// exactly what the route does not answer 400 (it was any string: `0`
    /// and an empty value were documented, and refused).
    @Test func entityTagHeadersAreDocumentedAsTheRoutesParseThem() async throws {
        let values = [
            "*", "\"1.2\"", "W/\"1.2\"", "\"a\", W/\"b\"", ",\"a\",, \"b\",", "\"\"", "\t\"x\"\t", "\"é\"",
            "", "0", "1.2", "\"a", "a\"", "W/1", "\"a\" \"b\"", "*, \"a\"", "\"a b\"", "w/\"a\"",
        ]
        try await withService { client, _ in
            for value in values {
                for (header, parameter) in [(HTTPField.Name.ifMatch, "IfMatch"), (.ifNoneMatch, "IfNoneMatch")] {
                    var headers = HTTPFields()
                    headers.append(HTTPField(name: header, value: value))
                    let response = try await client.send(uri: "/bookmarks", method: .get, headers: headers)
                    let documented = try Self.headerAllows(parameter, value)
                    #expect(documented == (response.status != .badRequest), "\(header) '\(value)': \(response.status), documented: \(documented)")
                }
            }
        }
    }

    /// A title, folder or tag of white space alone is 400 on every way in;
    /// the document said `minLength: 1`, which allows `"\u{a0}"`.
    @Test func blankTextIsDocumentedAsRefused() async throws {
        let input = try #require(try Self.node(["components", "schemas", "BookmarkInput", "properties", "title", "pattern"]) as? String)
        let element = try #require(try Self.node(["components", "schemas", "ImportElement", "properties", "title", "pattern"]) as? String)
        #expect(input == element)
        try await withService { client, _ in
            for (index, title) in ["\u{a0}", " ", "\t\n", "\u{2003}\u{3000}", "x", " x ", "\u{a0}y"].enumerated() {
                let body = try JSONSerialization.data(withJSONObject: ["url": "https://blank\(index).example", "title": title, "folder": "F"])
                let response = try await client.send(uri: "/bookmarks", method: .post, body: ByteBuffer(bytes: body))
                let documented = try Self.matches(input, title)
                #expect(documented == (response.status == .created), "title \(title.unicodeScalars.map { $0.value }): \(response.status)")
                let imported = try await client.send(uri: "/import", method: .post, body: ByteBuffer(bytes: body))
                #expect(documented == (imported.status == .ok), "import title \(title.unicodeScalars.map { $0.value }): \(imported.status)")
            }
        }
    }

    /// `/import` takes what `POST /bookmarks` takes: url, title and folder
    /// required (the document required only url, and allowed an empty one).
    @Test func importElementsAreDocumentedWithPostsRules() async throws {
        let required = try #require(try Self.node(["components", "schemas", "ImportElement", "required"]) as? [String])
        #expect(Set(required) == ["url", "title", "folder"])
        try await withService { client, _ in
            for missing in ["url", "title", "folder"] {
                var object = ["url": "https://import.example", "title": "T", "folder": "F"]
                object[missing] = nil
                let body = try JSONSerialization.data(withJSONObject: [object])
                let response = try await client.send(uri: "/import", method: .post, body: ByteBuffer(bytes: body))
                #expect(response.status == .badRequest, "without \(missing): \(response.status)")
            }
        }
    }

    /// DELETE answers 400 for a malformed If-Match: documented (it was not).
    @Test func deleteDocumentsItsBadRequest() async throws {
        let responses = Set(try #require(try Self.node(["paths", "/bookmarks/{id}", "delete", "responses"]) as? [String: Any]).keys)
        try await withService { client, _ in
            let created = try await post(client, url: "https://delete.example")
            let response = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifMatch: "1.2"])
            #expect(response.status == .badRequest)
            #expect(responses.contains("\(response.status.code)"), "DELETE's \(response.status.code) is not in the document")
        }
    }

    /// `GET /changes?since=`: the document's pattern allows a token's form and
    /// `latest`; the route answers 400 for anything else.
    @Test func sinceIsDocumentedAsTheRouteReadsIt() async throws {
        let parameters = try #require(try Self.node(["paths", "/changes", "get", "parameters"]) as? [[String: Any]])
        let since = try #require(parameters.first { $0["name"] as? String == "since" })
        let pattern = try #require((since["schema"] as? [String: Any])?["pattern"] as? String)
        try await withService { client, _ in
            for value in ["latest", "1-abc", "42-9f2c61d0a4b8e7f1", "u)", "42", "-1-ab", "1-XYZ", "1.5-ab", "latest2"] {
                let response = try await client.send(uri: "/changes?since=\(value)", method: .get)
                let documented = try Self.matches(pattern, value)
                #expect(documented == (response.status != .badRequest), "since=\(value): \(response.status)")
            }
        }
    }

    /// `/events`' stream is documented event by event (Schemathesis reads an
    /// event stream's schema as each event's): the names and the data the
    /// route sends.
    @Test func eventsAreDocumentedAsSent() async throws {
        let schema = try #require(try Self.node(["paths", "/events", "get", "responses", "200", "content", "text/event-stream", "schema"]) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        let names = try #require((properties["event"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(names) == ["snapshot", "bookmarks"])
        let data = try #require((properties["data"] as? [String: Any])?["contentSchema"] as? [String: Any])
        let fields = Set(try #require(data["properties"] as? [String: Any]).keys)
        try await withService { client, _ in
            let response = try await client.send(uri: "/events?count=1", method: .get)
            let line = try #require(text(response).split(separator: "\n").first { $0.hasPrefix("data: ") })
            let sent = try #require(try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any])
            #expect(Set(sent.keys) == fields)
            #expect(text(response).contains("event: snapshot"))
        }
    }
}
