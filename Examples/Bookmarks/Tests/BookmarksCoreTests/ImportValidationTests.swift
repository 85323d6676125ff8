import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// `POST /import` checks every element with the rules of `POST /bookmarks`
/// before it writes anything: a bad element is a 400 naming it and its
/// field, and nothing of the import is stored.
@Suite struct ImportValidationTests {
    @Test func eachBadFieldIs400NamingElementAndFieldAndStoresNothing() async throws {
        let good = #"{"url": "https://good.example", "title": "Good", "folder": "F"}"#
        let cases: [(String, String)] = [
            (#"{"url": " ", "title": "", "visits": -5, "folder": "F"}"#, "[1].url"),
            (#"{"url": "/relative", "title": "T", "folder": "F"}"#, "[1].url"),
            (#"{"url": "ftp://files.example", "title": "T", "folder": "F"}"#, "[1].url"),
            (#"{"url": "https://x.example", "title": "", "folder": "F"}"#, "[1].title"),
            (#"{"url": "https://x.example", "folder": "F"}"#, "[1].title"),
            (#"{"url": "https://x.example", "title": "T", "folder": "F", "visits": -5}"#, "[1].visits"),
            (#"{"url": "https://x.example", "title": "T", "folder": "F", "visits": 1.5}"#, "[1].visits"),
            (#"{"url": "https://x.example", "title": "T"}"#, "[1].folder"),
            (#"{"url": "https://x.example", "title": "T", "folder": {"name": " "}}"#, "[1].folder.name"),
            (#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": ["ok", " "]}"#, "[1].tags[1]"),
            (#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": [{"label": ""}]}"#, "[1].tags[0].label"),
            (#"{"url": 7, "title": "T", "folder": "F"}"#, "[1].url"),
            ("3", "[1]"),
        ]
        try await withService { client, store in
            for (bad, field) in cases {
                let response = try await client.send(uri: "/import", method: .post, body: json("[\(good), \(bad)]"))
                #expect(response.status == .badRequest, "\(bad)")
                #expect(errorMessage(response).contains("'\(field)'"), "\(bad): \(errorMessage(response))")
                #expect(try await store.counts() == StoreCounts(bookmarks: 0, folders: 0, tags: 0), "\(bad)")
            }
            // The example from the field report, alone as an object.
            let single = try await client.send(uri: "/import", method: .post, body: json(#"{"url": " ", "title": "", "visits": -5}"#))
            #expect(single.status == .badRequest)
            #expect(try await store.counts().bookmarks == 0)
        }
    }

    @Test func capsOnTagsAndElementsAreEnforced() async throws {
        try await withService { client, store in
            let tags = (0...32).map { "\"t\($0)\"" }.joined(separator: ",")
            let manyTags = try await client.send(
                uri: "/import", method: .post,
                body: json(#"[{"url": "https://x.example", "title": "T", "folder": "F", "tags": [\#(tags)]}]"#))
            #expect(manyTags.status == .badRequest)
            #expect(errorMessage(manyTags).contains("32"))
            let postManyTags = try await client.send(
                uri: "/bookmarks", method: .post, body: json(#"{"url": "https://x.example", "title": "T", "folder": "F", "tags": [\#(tags)]}"#))
            #expect(postManyTags.status == .badRequest)
            let element = #"{"url": "https://x.example", "title": "T", "folder": "F"}"#
            let tooMany = try await client.send(
                uri: "/import", method: .post, body: json("[" + Array(repeating: element, count: 10_001).joined(separator: ",") + "]"))
            #expect(tooMany.status == .badRequest)
            #expect(errorMessage(tooMany).contains("10000"))
            #expect(try await store.counts().bookmarks == 0)
        }
    }

    @Test func postRefusesWhatImportRefuses() async throws {
        try await withService { client, store in
            for body in [#"{"url": "not a url", "title": "T", "folder": "F"}"#, #"{"url": "mailto:a@b.example", "title": "T", "folder": "F"}"#,
                         #"{"url": "https://x.example", "title": "T", "folder": "F", "visits": -1}"#] {
                let response = try await client.send(uri: "/bookmarks", method: .post, body: json(body))
                #expect(response.status == .badRequest, "\(body)")
            }
            #expect(try await store.counts().bookmarks == 0)
        }
    }
}
