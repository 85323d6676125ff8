import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// `POST /import` takes the keys it documents at every level and reads each
/// element as `POST /bookmarks` reads a bookmark.
@Suite struct ImportShapeTests {
    @Test func nestedBookmarksUnderAFolderOrATagAreRefused() async throws {
        try await withService { client, store in
            let cases: [(String, String)] = [
                (#"{"url": "https://a.example", "title": "A", "folder": {"name": "F", "bookmarks": [{"url": "javascript:alert(1)", "title": ""}]}}"#,
                 "'[0].folder.bookmarks'"),
                (#"{"url": "https://a.example", "title": "A", "folder": "F", "tags": [{"label": "t", "bookmarks": [{"url": "javascript:alert(1)", "title": ""}]}]}"#,
                 "'[0].tags[0].bookmarks'"),
                (#"{"url": "https://a.example", "title": "A", "folder": "F", "extra": 1}"#, "'[0].extra'"),
            ]
            for (element, field) in cases {
                let response = try await client.send(uri: "/import", method: .post, body: json("[\(element)]"))
                #expect(response.status == .badRequest, "\(element): \(text(response))")
                #expect(errorMessage(response).contains(field), "\(errorMessage(response))")
            }
            #expect(try await store.counts() == StoreCounts(bookmarks: 0, folders: 0, tags: 0))
        }
    }

    @Test func nestedElementsNeitherPassTheCapNorOverwriteNorCountNegative() async throws {
        try await withService { client, store in
            let existing = try await post(client, url: "https://kept.example", title: "Kept")
            let nested = #"{"url": "https://a.example", "title": "A", "folder": {"name": "F", "bookmarks": [{"url": "https://kept.example", "title": ""}, {"url": "https://n.example", "title": "N"}]}}"#
            let response = try await client.send(uri: "/import", method: .post, body: json("[\(nested)]"))
            #expect(response.status == .badRequest, "\(text(response))")
            let kept = try decode(BookmarkDTO.self, try await client.send(uri: "/bookmarks/\(existing.id)", method: .get))
            #expect(kept.title == "Kept")
            #expect(try await store.counts().bookmarks == 1)
            // A valid import's counts are never negative.
            let valid = try await client.send(uri: "/import", method: .post, body: json(#"[{"url": "https://kept.example", "title": "K2", "folder": "F"}, {"url": "https://b.example", "title": "B", "folder": "F"}]"#))
            #expect(try decode(ImportCounts.self, valid) == ImportCounts(inserted: 1, updated: 1))
        }
    }

    @Test func importAndPostReadTheSameTypes() async throws {
        try await withService { client, store in
            let note = try await client.send(uri: "/import", method: .post, body: json(#"[{"url": "https://a.example", "title": "A", "folder": "F", "note": 0}]"#))
            #expect(note.status == .badRequest, "\(text(note))")
            #expect(errorMessage(note).contains("'[0].note'"))
            let post = try await client.send(uri: "/bookmarks", method: .post, body: json(#"{"url": "https://a.example", "title": "A", "folder": "F", "note": 0}"#))
            #expect(post.status == .badRequest)
            #expect(try await store.counts().bookmarks == 0)
            let big = try await client.send(uri: "/import", method: .post, body: json(#"[{"url": "https://big.example", "title": "B", "folder": "F", "visits": 9223372036854775806}]"#))
            #expect(big.status == .ok, "\(text(big))")
            let list = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks", method: .get))
            #expect(list.first?.visits == 9_223_372_036_854_775_806)
        }
    }

    @Test func anImportsUpdateReplacesTheTags() async throws {
        try await withService { client, _ in
            func element(_ prefix: String) -> String {
                let tags = (0..<32).map { "\"\(prefix)\($0)\"" }.joined(separator: ",")
                return #"[{"url": "https://a.example", "title": "A", "folder": "F", "tags": [\#(tags)]}]"#
            }
            for prefix in ["x", "y"] {
                let response = try await client.send(uri: "/import", method: .post, body: json(element(prefix)))
                #expect(response.status == .ok, "\(text(response))")
            }
            let list = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks", method: .get))
            #expect(list.count == 1)
            #expect(list.first?.tags.count == 32)
            #expect(list.first?.tags.allSatisfy { $0.hasPrefix("y") } == true)
        }
    }

    @Test func urlsAreCheckedByRFC3986() async throws {
        try await withService { client, store in
            for url in ["http://a/ b", "http://a/%zz", "http://a/%4", "http://a:99999", "http://a:80x/", "http:///path", "http://a b.example/",
                        "https://bücher.example/", "http//a.example"] {
                let body = try JSONSerialization.data(withJSONObject: ["url": url, "title": "T", "folder": "F"])
                let posted = try await client.send(uri: "/bookmarks", method: .post, body: ByteBuffer(bytes: body))
                #expect(posted.status == .badRequest, "\(url): \(text(posted))")
                let imported = try await client.send(uri: "/import", method: .post, body: ByteBuffer(bytes: body))
                #expect(imported.status == .badRequest, "\(url): \(text(imported))")
            }
            #expect(try await store.counts().bookmarks == 0)
            for url in ["http://a:65535/p?q=1#f", "https://[::1]:8443/x", "http://user:pw@a.example/%C3%BC", "https://a.example"] {
                try await post(client, url: url)
            }
            // Scheme and host are stored in lower case; the rest as sent.
            let mixed = try await post(client, url: "HTTPS://Swift.ORG/Documentation/%c3%bc")
            #expect(mixed.url == "https://swift.org/Documentation/%c3%bc")
            let again = try await client.send(uri: "/bookmarks", method: .post, body: json(#"{"url": "https://SWIFT.org/Documentation/%c3%bc", "title": "T", "folder": "F"}"#))
            #expect(again.status == .conflict)
        }
    }

    @Test func sortMinusIdIsDescending() async throws {
        try await withService { client, _ in
            var ids: [Int64] = []
            for index in 0..<5 { ids.append(try await post(client, url: "https://\(index).example").id) }
            let all = try await client.send(uri: "/bookmarks?sort=-id", method: .get)
            #expect(all.status == .ok, "\(text(all))")
            #expect(try decode([BookmarkDTO].self, all).map(\.id) == ids.reversed())
            let page = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?sort=-id&limit=2&offset=1", method: .get))
            #expect(page.map(\.id) == [ids[3], ids[2]])
            let past = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?sort=-id&offset=9", method: .get))
            #expect(past.isEmpty)
            let tail = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?sort=-id&limit=3&offset=3", method: .get))
            #expect(tail.map(\.id) == [ids[1], ids[0]])
        }
    }
}
