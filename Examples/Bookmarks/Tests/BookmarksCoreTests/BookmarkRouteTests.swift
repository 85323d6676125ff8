import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// Every route with the statuses it answers for good requests, and 404 / 409
/// / 412 / 428, through the router (no socket).
@Suite struct BookmarkRouteTests {
    @Test func healthAnswers200() async throws {
        try await withService { client, _ in
            let response = try await client.send(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(text(response).contains("ok"))
        }
    }

    @Test func postCreatesBookmarkWithFolderTagsAndETag() async throws {
        try await withService { client, store in
            let response = try await client.send(
                uri: "/bookmarks", method: .post,
                body: json(#"{"url": "https://swift.org", "title": "Swift", "folder": "Dev", "tags": ["lang", "apple", "lang"], "note": "home"}"#))
            #expect(response.status == .created)
            let created = try decode(BookmarkDTO.self, response)
            #expect(created.url == "https://swift.org")
            #expect(created.title == "Swift")
            #expect(created.folder == "Dev")
            #expect(created.tags == ["apple", "lang"])   // sorted, as GET serves them
            #expect(created.note == "home")
            #expect(created.visits == 0)
            #expect(created.version == 2)
            #expect(response.headers[.eTag] == "\"\(created.id).2\"")
            #expect(response.headers[.location] == "/bookmarks/\(created.id)")
            #expect(try await store.counts() == StoreCounts(bookmarks: 1, folders: 1, tags: 2))
            // A second bookmark reuses the folder and the tag.
            try await post(client, url: "https://swift.org/blog", folder: "Dev", tags: ["lang"])
            #expect(try await store.counts() == StoreCounts(bookmarks: 2, folders: 1, tags: 2))
        }
    }

    @Test func duplicateURLAnswers409AndStoresNothing() async throws {
        try await withService { client, store in
            try await post(client, url: "https://a.example", tags: ["x"])
            let response = try await client.send(
                uri: "/bookmarks", method: .post,
                body: json(#"{"url": "https://a.example", "title": "Again", "folder": "Other", "tags": ["y"]}"#))
            #expect(response.status == .conflict)
            #expect(errorMessage(response).contains("https://a.example"))
            #expect(try await store.counts() == StoreCounts(bookmarks: 1, folders: 1, tags: 1))
        }
    }

    @Test func getByIDAnswersETagAnd404() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example", tags: ["t"])
            let response = try await client.send(uri: "/bookmarks/\(created.id)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] == "\"\(created.id).\(created.version)\"")
            #expect(try decode(BookmarkDTO.self, response) == created)
            let missing = try await client.send(uri: "/bookmarks/\(created.id + 100)", method: .get)
            #expect(missing.status == .notFound)
            let notANumber = try await client.send(uri: "/bookmarks/abc", method: .get)
            #expect(notANumber.status == .badRequest)
            #expect(errorMessage(notANumber).contains("'id'"))
        }
    }

    @Test func listFiltersByFolderTagAndTextAndSortsAndPages() async throws {
        try await withService { client, _ in
            try await post(client, url: "https://1.example", title: "Swift Concurrency", folder: "Dev", tags: ["swift", "async"])
            try await post(client, url: "https://2.example", title: "Rust book", folder: "Dev", tags: ["rust"])
            try await post(client, url: "https://3.example", title: "Cooking with SWIFT", folder: "Home", tags: ["food"])
            try await post(client, url: "https://4.example", title: "Swift on Server", folder: "Home", tags: ["swift"])

            func titles(_ query: String) async throws -> [String] {
                let response = try await client.send(uri: "/bookmarks\(query)", method: .get)
                #expect(response.status == .ok, "\(query): \(text(response))")
                return try decode([BookmarkDTO].self, response).map(\.title)
            }
            // Newest first by default.
            #expect(try await titles("") == ["Swift on Server", "Cooking with SWIFT", "Rust book", "Swift Concurrency"])
            #expect(try await titles("?folder=Dev&sort=title") == ["Rust book", "Swift Concurrency"])
            #expect(try await titles("?tag=swift&sort=id") == ["Swift Concurrency", "Swift on Server"])
            #expect(try await titles("?folder=Home&tag=swift") == ["Swift on Server"])
            // Case-insensitive on the title.
            #expect(try await titles("?q=swift&sort=id") == ["Swift Concurrency", "Cooking with SWIFT", "Swift on Server"])
            #expect(try await titles("?sort=id&limit=2&offset=1") == ["Rust book", "Cooking with SWIFT"])
            #expect(try await titles("?tag=nothing").isEmpty)
            // Tags and folder come with each bookmark.
            let response = try await client.send(uri: "/bookmarks?tag=async", method: .get)
            let first = try #require(try decode([BookmarkDTO].self, response).first)
            #expect(first.folder == "Dev")
            #expect(first.tags == ["async", "swift"])
        }
    }

    /// A search for a letter followed by NUL once took the server down (a
    /// trap inside the text search); any text is an ordinary search.
    @Test func hostileSearchTextAnswers200() async throws {
        try await withService { client, _ in
            try await post(client, url: "https://cafe.example", title: "Café", tags: ["x"])
            for query in ["%C3%A9%00", "%C3%B3%00", "%00", "e%CC%81%00", "%F0%9F%91%8D%C3%A9"] {
                let response = try await client.send(uri: "/bookmarks?q=\(query)", method: .get)
                #expect(response.status == .ok, "\(query): \(text(response))")
                #expect(try decode([BookmarkDTO].self, response).isEmpty, "\(query)")
            }
            let found = try await client.send(uri: "/bookmarks?q=CAF%C3%89", method: .get)
            #expect(try decode([BookmarkDTO].self, found).map(\.title) == ["Café"])
        }
    }

    @Test func listRejectsBadParametersNamingThem() async throws {
        try await withService { client, _ in
            for (query, name) in [("?limit=0", "'limit'"), ("?limit=x", "'limit'"), ("?offset=-1", "'offset'"), ("?sort=url", "'sort'")] {
                let response = try await client.send(uri: "/bookmarks\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                #expect(errorMessage(response).contains(name), "\(query): \(errorMessage(response))")
            }
        }
    }

    @Test func putWithMatchingIfMatchUpdatesAndMovesETag() async throws {
        try await withService { client, store in
            let created = try await post(client, url: "https://a.example", title: "Old", folder: "Inbox", tags: ["a"])
            let response = try await client.send(
                uri: "/bookmarks/\(created.id)", method: .put, headers: [.ifMatch: created.etag],
                body: json(#"{"url": "https://a.example", "title": "New", "folder": "Read later", "tags": ["b", "c"], "note": "n", "visits": 3}"#))
            #expect(response.status == .ok, "\(text(response))")
            let updated = try decode(BookmarkDTO.self, response)
            #expect(updated.title == "New")
            #expect(updated.folder == "Read later")
            #expect(updated.tags == ["b", "c"])
            #expect(updated.note == "n")
            #expect(updated.visits == 3)
            #expect(updated.url == "https://a.example")
            #expect(updated.version > created.version)
            // No validator on a PUT answer (RFC 9110 §9.3.4): the body's version names it.
            #expect(response.headers[.eTag] == nil)
            // What GET answers is what PUT answered.
            let fetched = try await client.send(uri: "/bookmarks/\(created.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == updated)
            #expect(try await store.counts() == StoreCounts(bookmarks: 1, folders: 2, tags: 3))
            // A PATCH with `note: null` clears the note; If-Match: * takes any version.
            let cleared = try await client.send(
                uri: "/bookmarks/\(created.id)", method: .patch, headers: [.ifMatch: "*"], body: json(#"{"note": null}"#))
            #expect(cleared.status == .ok)
            #expect(try decode(BookmarkDTO.self, cleared).note == nil)
        }
    }

    @Test func putWithStaleIfMatchAnswers412AndChangesNothing() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example", title: "Old")
            let first = try await client.send(
                uri: "/bookmarks/\(created.id)", method: .patch, headers: [.ifMatch: created.etag], body: json(#"{"title": "First"}"#))
            #expect(first.status == .ok)
            let current = try decode(BookmarkDTO.self, first)
            // A second client still holding the first ETag.
            let stale = try await client.send(
                uri: "/bookmarks/\(created.id)", method: .patch, headers: [.ifMatch: created.etag], body: json(#"{"title": "Second"}"#))
            #expect(stale.status == .preconditionFailed)
            #expect(stale.headers[.eTag] == current.etag)
            let fetched = try await client.send(uri: "/bookmarks/\(created.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == current)
        }
    }

    @Test func putWithoutIfMatchAnswers428AndChangesNothing() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example", title: "Old")
            let response = try await client.send(uri: "/bookmarks/\(created.id)", method: .put, body: json(#"{"title": "New"}"#))
            #expect(response.status == .preconditionRequired)
            #expect(errorMessage(response).contains("If-Match"))
            let fetched = try await client.send(uri: "/bookmarks/\(created.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == created)
        }
    }

    @Test func putAnswers404And409() async throws {
        try await withService { client, _ in
            let a = try await post(client, url: "https://a.example")
            try await post(client, url: "https://b.example")
            let missing = try await client.send(
                uri: "/bookmarks/\(a.id + 100)", method: .patch, headers: [.ifMatch: "\"\(a.id + 100).2\""], body: json(#"{"title": "x"}"#))
            #expect(missing.status == .notFound)
            let taken = try await client.send(
                uri: "/bookmarks/\(a.id)", method: .patch, headers: [.ifMatch: a.etag], body: json(#"{"url": "https://b.example"}"#))
            #expect(taken.status == .conflict)
            let fetched = try await client.send(uri: "/bookmarks/\(a.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == a)
        }
    }

    @Test func deleteAnswers204Then404() async throws {
        try await withService { client, store in
            let a = try await post(client, url: "https://a.example", tags: ["t"])
            try await post(client, url: "https://b.example", tags: ["t"])
            let response = try await client.send(uri: "/bookmarks/\(a.id)", method: .delete, headers: [.ifMatch: a.etag])
            #expect(response.status == .noContent)
            #expect(try await client.send(uri: "/bookmarks/\(a.id)", method: .get).status == .notFound)
            #expect(try await client.send(uri: "/bookmarks/\(a.id)", method: .delete, headers: [.ifMatch: "*"]).status == .notFound)
            // The folder and the shared tag stay.
            #expect(try await store.counts() == StoreCounts(bookmarks: 1, folders: 1, tags: 1))
        }
    }

    @Test func importInsertsAndUpdatesByURL() async throws {
        try await withService { client, store in
            try await post(client, url: "https://a.example", title: "Old A", folder: "Inbox")
            let body = #"""
            [
              {"url": "https://a.example", "title": "New A", "folder": "Inbox", "visits": 4},
              {"url": "https://b.example", "title": "B", "folder": {"name": "Imported"}, "tags": [{"label": "x"}, {"label": "y"}]},
              {"url": "https://c.example", "title": "C", "folder": "Inbox", "createdAt": "2024-05-01T10:00:00Z"}
            ]
            """#
            let response = try await client.send(uri: "/import", method: .post, body: json(body))
            #expect(response.status == .ok, "\(text(response))")
            #expect(try decode(ImportCounts.self, response) == ImportCounts(inserted: 2, updated: 1))
            #expect(try await store.counts() == StoreCounts(bookmarks: 3, folders: 2, tags: 2))
            let list = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?sort=id", method: .get))
            #expect(list.map(\.title) == ["New A", "B", "C"])
            #expect(list[0].visits == 4)
            #expect(list[0].folder == "Inbox")
            #expect(list[1].folder == "Imported")
            #expect(list[1].tags.sorted() == ["x", "y"])
            #expect(list[2].folder == "Inbox")
            #expect(list[2].createdAt == Date(timeIntervalSince1970: 1_714_557_600))
        }
    }
}
