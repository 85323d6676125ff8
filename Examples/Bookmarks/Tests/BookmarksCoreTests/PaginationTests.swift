import BookmarksCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The list pages by cursor, each page naming the next in a `Link` header
/// (RFC 8288), as `/changes` pages by token.
@Suite struct PaginationTests {
    /// The target of the `rel="next"` link, when there is one.
    func nextLink(_ response: TestResponse) -> String? {
        guard let value = response.headers[HTTPField.Name("Link")!] else { return nil }
        guard value.hasPrefix("<"), let end = value.firstIndex(of: ">"), value[end...].contains("rel=\"next\"") else { return nil }
        return String(value[value.index(after: value.startIndex)..<end])
    }

    /// Every page from `first` on, following the links.
    func allPages(_ client: any TestClientProtocol, from first: String) async throws -> [[BookmarkDTO]] {
        var pages: [[BookmarkDTO]] = []
        var uri: String? = first
        while let next = uri, pages.count < 50 {
            let response = try await client.send(uri: next, method: .get)
            #expect(response.status == .ok, "\(next): \(text(response))")
            pages.append(try decode([BookmarkDTO].self, response))
            uri = nextLink(response)
        }
        return pages
    }

    @Test func followingTheLinksServesEveryBookmarkOnceInOrder() async throws {
        try await withService { client, _ in
            for index in 0..<7 {
                try await post(client, url: "https://\(index).example", title: "T\(index % 3)", tags: index % 2 == 0 ? ["even"] : [])
            }
            for (query, limit) in [("sort=createdAt", 2), ("sort=title", 3), ("sort=-visits&tag=even", 2), ("sort=createdAt", 4), ("sort=-id", 3)] {
                let whole = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?\(query)&limit=500", method: .get))
                let pages = try await allPages(client, from: "/bookmarks?\(query)&limit=\(limit)")
                #expect(pages.flatMap { $0 }.map(\.id) == whole.map(\.id), "\(query)")
                #expect(pages.dropLast().allSatisfy { !$0.isEmpty })
            }
            // The link keeps the other parameters as sent.
            let first = try await client.send(uri: "/bookmarks?tag=even&limit=2", method: .get)
            let link = try #require(nextLink(first))
            #expect(link.hasPrefix("/bookmarks?tag=even&limit=2&cursor="), "\(link)")
            // A page that is not full is the last: no link.
            #expect(nextLink(try await client.send(uri: "/bookmarks?limit=500", method: .get)) == nil)
        }
    }

    @Test func aBookmarkAddedBeforeTheCursorDoesNotMoveTheNextPage() async throws {
        try await withService { client, _ in
            for index in 0..<4 { try await post(client, url: "https://\(index).example") }
            let first = try await client.send(uri: "/bookmarks?limit=2", method: .get)
            let firstPage = try decode([BookmarkDTO].self, first)
            let next = try #require(nextLink(first))
            // Newest first: the new one goes before the first page; by offset
            // the second page would repeat the first page's last bookmark.
            try await post(client, url: "https://new.example")
            let second = try decode([BookmarkDTO].self, try await client.send(uri: next, method: .get))
            #expect(second.count == 2)
            #expect(Set(second.map(\.id)).isDisjoint(with: firstPage.map(\.id)))
            #expect(!second.contains { $0.url == "https://new.example" })
        }
    }

    @Test func equalKeysAreServedOnceAcrossPages() async throws {
        try await withService { client, _ in
            let elements = (0..<7).map {
                #"{"url": "https://same-\#($0).example", "title": "Same", "folder": "F", "createdAt": "2026-01-01T00:00:00Z"}"#
            }
            let imported = try await client.send(uri: "/import", method: .post, body: json("[\(elements.joined(separator: ","))]"))
            #expect(imported.status == .ok, "\(text(imported))")
            for (query, limit) in [("sort=-createdAt", 2), ("sort=title", 3), ("sort=-visits", 1)] {
                let whole = try decode([BookmarkDTO].self, try await client.send(uri: "/bookmarks?\(query)&limit=500", method: .get))
                #expect(whole.count == 7)
                let pages = try await allPages(client, from: "/bookmarks?\(query)&limit=\(limit)")
                #expect(pages.flatMap { $0 }.map(\.id) == whole.map(\.id), "\(query)")
            }
        }
    }

    @Test func aCursorIsCheckedAgainstTheQuery() async throws {
        try await withService { client, _ in
            for index in 0..<3 { try await post(client, url: "https://\(index).example") }
            let link = try #require(nextLink(try await client.send(uri: "/bookmarks?limit=1", method: .get)))
            let cursor = try #require(link.split(separator: "cursor=").last)
            for uri in ["/bookmarks?limit=1&cursor=\(cursor)&offset=1", "/bookmarks?limit=1&sort=title&cursor=\(cursor)",
                        "/bookmarks?cursor=not-a-cursor", "/bookmarks?sort=id&cursor=\(cursor)"] {
                let response = try await client.send(uri: uri, method: .get)
                #expect(response.status == .badRequest, "\(uri): \(text(response))")
                #expect(errorMessage(response).contains("'cursor'"), "\(uri): \(text(response))")
            }
            // sort=id pages by offset: a predicate cannot name the row id.
            let byID = try await client.send(uri: "/bookmarks?sort=id&limit=2", method: .get)
            #expect(nextLink(byID) == "/bookmarks?sort=id&limit=2&offset=2")
        }
    }

    /// The seek compares the cursor's date with the stored one, so it must
    /// be the same `Double` to the last bit (seconds since 1970 rounded
    /// some, and a page skipped a bookmark).
    @Test func aCursorKeepsEveryBitOfADate() throws {
        for index in 0..<1_000 {
            let date = Date(timeIntervalSinceReferenceDate: 815_000_000 + Double(index) * 1.000_123_456_7)
            let cursor = BookmarkQuery.Cursor(sort: .createdAt, descending: index % 2 == 0, value: .date(date), skip: index)
            #expect(BookmarkQuery.Cursor(token: cursor.token) == cursor, "\(date.timeIntervalSinceReferenceDate)")
        }
    }
}
