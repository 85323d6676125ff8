import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// Bodies must be JSON (a browser's cross-site `text/plain` POST never
/// reaches the store), and a body declared larger than the route takes is
/// refused before it is read, on a connection that then closes.
@Suite struct MediaTypeAndLimitTests {
    @Test func aBodyThatIsNotJSONIs415AndStoresNothing() async throws {
        try await withService { client, store in
            let existing = try await post(client, url: "https://kept.example", title: "Kept")
            let bookmark = #"{"url": "https://new.example", "title": "T", "folder": "F"}"#
            let imported = #"[{"url": "https://kept.example", "title": "Overwritten", "folder": "F"}]"#
            let cases: [(String, HTTPRequest.Method, String, HTTPFields)] = [
                ("/bookmarks", .post, bookmark, [.contentType: "text/plain"]),
                ("/bookmarks", .post, bookmark, [.contentType: "application/x-www-form-urlencoded"]),
                ("/bookmarks", .post, bookmark, [.contentType: "multipart/form-data; boundary=x"]),
                ("/import", .post, imported, [.contentType: "text/plain;charset=UTF-8"]),
                ("/bookmarks/\(existing.id)", .put, bookmark, [.contentType: "text/plain", .ifMatch: existing.etag]),
                ("/bookmarks/\(existing.id)", .patch, #"{"title": "Overwritten"}"#, [.contentType: "text/plain", .ifMatch: existing.etag]),
            ]
            for (uri, method, body, headers) in cases {
                let response = try await client.send(uri: uri, method: method, headers: headers, body: json(body))
                #expect(response.status == .unsupportedMediaType, "\(method) \(uri) \(headers)")
                #expect(errorMessage(response).contains("application/json"))
            }
            // No Content-Type at all is refused too.
            let untyped = try await client.execute(uri: "/bookmarks", method: .post, body: json(bookmark))
            #expect(untyped.status == .unsupportedMediaType)
            #expect(try await store.counts().bookmarks == 1)
            let fetched = try await client.send(uri: "/bookmarks/\(existing.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == existing)
            // JSON with parameters, or a +json type, is fine.
            let charset = try await client.send(uri: "/bookmarks", method: .post, headers: [.contentType: "application/json; charset=utf-8"],
                                                body: json(bookmark))
            #expect(charset.status == .created)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func anOversizedBodyIs413BeforeItIsReadAndTheConnectionCloses() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let app = Application(router: BookmarksApp.makeRouter(store: BookmarkStore(stack: stack)).router)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            for (path, limit) in [("/bookmarks", BookmarksApp.maximumBookmarkBody), ("/import", BookmarksApp.maximumImportBody)] {
                let connection = try RawConnection(port: port, timeout: 10)
                let declared = 100 * 1024 * 1024
                // The head and 1 KiB of a 100 MiB body: the answer must come
                // now, and the connection must close, with 99.99 MiB unsent.
                try await connection.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(declared)\r\n\r\n")
                try await connection.send(String(repeating: " ", count: 1024))
                let answer = try await connection.read()   // until the server closes
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
                // One answer only: nothing after it (Hummingbird's drain once
                // added a 400 for the cut-off body).
                #expect(answer.components(separatedBy: "HTTP/1.1 ").count == 2, "\(answer)")
                #expect(answer.contains("\(limit)"), "\(answer)")
            }
            #expect(try await stack.read { try Bookmark.count(in: $0) } == 0)
        }
    }

    /// The service `body` talks to over a socket, with write tokens set.
    func withLiveService(_ body: @Sendable (Int, RecordStack) async throws -> Void) async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        var options = BookmarksOptions()
        options.tokens = ["s3cret"]
        let app = Application(router: BookmarksApp.makeRouter(store: BookmarkStore(stack: stack), options: options).router)
        try await app.test(.live) { client in try await body(try #require(client.port), stack) }
    }

    /// The limit comes before the tokens' check and the routes: a 401, 404
    /// or 405 once answered a huge upload and then read all of it.
    @Test(.timeLimit(.minutes(1)))
    func anOversizedBodyIs413BeforeAuthenticationAndRouting() async throws {
        try await withLiveService { port, stack in
            for (method, path) in [("POST", "/bookmarks"), ("POST", "/no-such-route"), ("DELETE", "/import"), ("PUT", "/bookmarks/1")] {
                let connection = try RawConnection(port: port, timeout: 10)
                try await connection.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(100 * 1024 * 1024)\r\n\r\n")
                try await connection.send(String(repeating: " ", count: 1024))
                let answer = try await connection.read()   // until the server closes
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(method) \(path): \(answer)")
                #expect(answer.lowercased().contains("content-type: application/problem+json"), "\(answer)")
                #expect(answer.contains(#""status":413"#), "\(answer)")
            }
            #expect(try await stack.read { try Bookmark.count(in: $0) } == 0)
        }
    }

    /// A chunked body declares no length: it is counted as it arrives, and an
    /// answer that leaves some of it unread closes the connection instead of
    /// reading the rest.
    @Test(.timeLimit(.minutes(1)))
    func aChunkedBodyIsCountedAndAnAnswerLeavingItUnreadCloses() async throws {
        @Sendable func chunk(_ text: String) -> String { "\(String(text.utf8.count, radix: 16))\r\n\(text)\r\n" }
        let head = "Host: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        try await withLiveService { port, stack in
            // Refused by the tokens' check, a chunk sent of a body that never ends.
            let refused = try RawConnection(port: port, timeout: 10)
            try await refused.send("POST /bookmarks HTTP/1.1\r\n\(head)\r\n" + chunk(String(repeating: " ", count: 1024)))
            let unauthorized = try await refused.read()
            #expect(unauthorized.hasPrefix("HTTP/1.1 401"), "\(unauthorized)")
            #expect(unauthorized.lowercased().contains("connection: close"), "\(unauthorized)")

            // Past 64 KiB with a token: 413 as the bytes arrive, then closed.
            let large = try RawConnection(port: port, timeout: 10)
            try await large.send("POST /bookmarks HTTP/1.1\r\nAuthorization: Bearer s3cret\r\n\(head)\r\n")
            for _ in 0..<9 { try await large.send(chunk(String(repeating: " ", count: 8 * 1024))) }
            let tooLarge = try await large.read()
            #expect(tooLarge.hasPrefix("HTTP/1.1 413"), "\(tooLarge)")
            #expect(tooLarge.components(separatedBy: "HTTP/1.1 ").count == 2, "\(tooLarge)")

            // Read to its end, a chunked body keeps the connection for the next request.
            let kept = try RawConnection(port: port, timeout: 10)
            let bookmark = #"{"url": "https://chunked.example", "title": "T", "folder": "F"}"#
            try await kept.send("POST /bookmarks HTTP/1.1\r\nAuthorization: Bearer s3cret\r\n\(head)\r\n" + chunk(bookmark) + "0\r\n\r\n")
            let created = try await kept.read { $0.contains("https://chunked.example") }
            #expect(created.hasPrefix("HTTP/1.1 201"), "\(created)")
            try await kept.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let health = try await kept.read { $0.contains(#""status":"ok""#) }
            #expect(health.contains("HTTP/1.1 200"), "\(health)")
            #expect(try await stack.read { try Bookmark.count(in: $0) } == 1)
        }
    }
}
