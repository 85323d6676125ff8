import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// Bad requests get the status the route table gives them and leave the
/// store exactly as it was: same counts, same bookmark, same version.
@Suite struct BadRequestTests {
    /// A store with one bookmark; `body` runs, then the store must still hold
    /// exactly that bookmark, at the same version.
    func expectUnchanged(
        _ body: @Sendable @escaping (any TestClientProtocol, BookmarkDTO) async throws -> Void
    ) async throws {
        try await withService { client, store in
            let existing = try await post(client, url: "https://kept.example", title: "Kept", folder: "Inbox", tags: ["t"])
            let before = try await store.counts()
            try await body(client, existing)
            #expect(try await store.counts() == before)
            // Compared as the service sends it (the JSON dates have whole seconds).
            let after = try await client.send(uri: "/bookmarks/\(existing.id)", method: .get)
            #expect(after.status == .ok)
            #expect(try decode(BookmarkDTO.self, after) == existing)
            #expect(after.headers[.eTag] == existing.etag)
        }
    }

    /// A query parameter sent twice has no one value: 400 naming it, not the
    /// first value read and the second ignored (`offset=&offset=9` listed
    /// from 0; Schemathesis sends such duplicates).
    @Test func aQueryParameterSentTwiceIs400NamingIt() async throws {
        try await expectUnchanged { client, _ in
            for (uri, name) in [("/bookmarks?limit=1&limit=2", "limit"), ("/bookmarks?offset=&offset=9", "offset"),
                                ("/bookmarks?tag=a&folder=F&tag=b", "tag"), ("/changes?since=latest&since=latest", "since"),
                                ("/changes?limit=5&limit=5", "limit"), ("/events?count=1&count=1", "count")] {
                let response = try await client.send(uri: uri, method: .get)
                #expect(response.status == .badRequest, "\(uri): \(response.status)")
                #expect(errorMessage(response).contains("'\(name)'"), "\(uri): \(errorMessage(response))")
            }
        }
    }

    @Test func malformedJSONAnswers400() async throws {
        try await expectUnchanged { client, _ in
            for body in [#"{"url": "https://x.example", "title": "#, "not json", "", "[1, 2"] {
                let response = try await client.send(uri: "/bookmarks", method: .post, body: json(body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(errorMessage(response).contains("JSON"), "\(body): \(errorMessage(response))")
            }
        }
    }

    /// A field the input does not have is refused, not dropped: the schema
    /// says `additionalProperties: false` (Schemathesis found a POST with an
    /// extra field answered 201).
    @Test func anUnknownFieldAnswers400NamingIt() async throws {
        try await expectUnchanged { client, existing in
            let post = #"{"url": "https://x.example", "title": "T", "folder": "F", " titõle": [1]}"#
            let created = try await client.send(uri: "/bookmarks", method: .post, body: json(post))
            #expect(created.status == .badRequest)
            #expect(errorMessage(created).contains("' tit\u{f5}le'"), "\(errorMessage(created))")
            let put = try await client.send(
                uri: "/bookmarks/\(existing.id)", method: .put, headers: [.ifMatch: existing.etag], body: json(#"{"title": "New", "version": 9}"#))
            #expect(put.status == .badRequest)
            #expect(errorMessage(put).contains("'version'"), "\(errorMessage(put))")
        }
    }

    @Test func wrongTypesAnswer400NamingTheField() async throws {
        try await expectUnchanged { client, _ in
            let cases: [(String, String)] = [
                (#"{"url": 5, "title": "T", "folder": "F"}"#, "'url'"),
                (#"{"url": "https://x.example", "title": ["T"], "folder": "F"}"#, "'title'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": "swift"}"#, "'tags'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": ["a", 2]}"#, "'tags[1]'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "visits": "many"}"#, "'visits'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "visits": 1.5}"#, "'visits'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "note": 1}"#, "'note'"),
                (#"{"url": "https://x.example", "folder": "F"}"#, "'title'"),
                (#"{"url": "https://x.example", "title": "  ", "folder": "F"}"#, "'title'"),
                (#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": [" "]}"#, "'tags[0]'"),
                (#"[{"url": "https://x.example"}]"#, "(body)"),
            ]
            for (body, field) in cases {
                let response = try await client.send(uri: "/bookmarks", method: .post, body: json(body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(errorMessage(response).contains(field), "\(body): \(errorMessage(response))")
            }
        }
    }

    /// Only `note` takes `null` (it clears the note). `null` for any other
    /// field is a 400 naming it, on every write route: read as "absent" a
    /// `POST` stored `"visits": null` as 0, which the schema does not allow
    /// (Schemathesis's stateful phase, CI seed 63).
    @Test func nullForAFieldOtherThanNoteAnswers400NamingIt() async throws {
        try await expectUnchanged { client, existing in
            let fields = ["url", "title", "folder", "tags", "visits"]
            func body(nulling field: String) -> String {
                var members = [#""url": "https://x.example""#, #""title": "T""#, #""folder": "F""#, #""tags": ["a"]"#, #""visits": 1"#]
                members[fields.firstIndex(of: field)!] = #""\#(field)": null"#
                return "{" + members.joined(separator: ", ") + "}"
            }
            for field in fields {
                let tag: HTTPFields = [.ifMatch: existing.etag]
                for (uri, method, headers, text) in [
                    ("/bookmarks", HTTPRequest.Method.post, HTTPFields(), body(nulling: field)),
                    ("/bookmarks/\(existing.id)", .put, tag, body(nulling: field)),
                    ("/bookmarks/\(existing.id)", .patch, tag, #"{"\#(field)": null}"#),
                    ("/import", .post, HTTPFields(), "[" + body(nulling: field) + "]"),
                ] {
                    let response = try await client.send(uri: uri, method: method, headers: headers, body: json(text))
                    #expect(response.status == .badRequest, "\(method) \(uri) \(text): \(response.status)")
                    let name = uri == "/import" ? "[0].\(field)" : field
                    #expect(errorMessage(response).contains("'\(name)' must not be null"), "\(method) \(uri): \(errorMessage(response))")
                }
            }
            let createdAt = try await client.send(
                uri: "/import", method: .post, body: json(#"[{"url": "https://x.example", "title": "T", "folder": "F", "createdAt": null}]"#))
            #expect(createdAt.status == .badRequest)
            #expect(errorMessage(createdAt).contains("'[0].createdAt' must not be null"), "\(errorMessage(createdAt))")
        }
    }

    @Test func wrongTypesInPutAnswer400AndKeepVersion() async throws {
        try await expectUnchanged { client, existing in
            let response = try await client.send(
                uri: "/bookmarks/\(existing.id)", method: .patch, headers: [.ifMatch: existing.etag],
                body: json(#"{"title": "New", "visits": true}"#))
            #expect(response.status == .badRequest)
            #expect(errorMessage(response).contains("'visits'"))
            let badETag = try await client.send(
                uri: "/bookmarks/\(existing.id)", method: .put, headers: [.ifMatch: "yesterday"], body: json(#"{"title": "New"}"#))
            #expect(badETag.status == .badRequest)
            #expect(errorMessage(badETag).contains("If-Match"))
        }
    }

    @Test func tenMegabyteBodyAnswers413() async throws {
        try await expectUnchanged { client, existing in
            let padding = String(repeating: "x", count: 10 * 1024 * 1024)
            let big = #"{"url": "https://big.example", "title": "\#(padding)", "folder": "F"}"#
            let post = try await client.send(uri: "/bookmarks", method: .post, body: json(big))
            #expect(post.status == .contentTooLarge)
            let put = try await client.send(
                uri: "/bookmarks/\(existing.id)", method: .put, headers: [.ifMatch: existing.etag], body: json(big))
            #expect(put.status == .contentTooLarge)
            let imported = try await client.send(uri: "/import", method: .post, body: json("[\(big)]"))
            #expect(imported.status == .contentTooLarge)
        }
    }

    @Test func unknownRouteAnswers404() async throws {
        try await expectUnchanged { client, _ in
            let get = try await client.send(uri: "/nothing", method: .get)
            #expect(get.status == .notFound)
            let nested = try await client.send(uri: "/bookmarks/1/extra", method: .get)
            #expect(nested.status == .notFound)
            let post = try await client.send(uri: "/nothing", method: .post, body: json(#"{"url": "https://x.example"}"#))
            #expect(post.status == .notFound)
        }
    }

    @Test func staleIfMatchAnswers412() async throws {
        try await expectUnchanged { client, existing in
            let response = try await client.send(
                uri: "/bookmarks/\(existing.id)", method: .put, headers: [.ifMatch: "\"\(existing.id).\(existing.version + 5)\""],
                body: json(#"{"title": "Lost update"}"#))
            #expect(response.status == .preconditionFailed)
            #expect(response.headers[.eTag] == existing.etag)
        }
    }

    @Test func badImportAnswers400NamingElementAndKeyPathAndStoresNothing() async throws {
        try await expectUnchanged { client, _ in
            // The second element's visits cannot be a number: the first,
            // valid element is not stored either.
            let body = #"[{"url": "https://new.example", "title": "New", "folder": "F"}, {"url": "https://kept.example", "title": "Changed", "folder": "F", "visits": {"n": 1}}]"#
            let response = try await client.send(uri: "/import", method: .post, body: json(body))
            #expect(response.status == .badRequest)
            let message = errorMessage(response)
            #expect(message.contains("visits"), "\(message)")
            #expect(message.contains("1"), "\(message)")
            let malformed = try await client.send(uri: "/import", method: .post, body: json("[{"))
            #expect(malformed.status == .badRequest)
        }
    }
}
