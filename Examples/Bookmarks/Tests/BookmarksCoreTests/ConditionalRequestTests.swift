import BookmarksCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// Every route of one bookmark evaluates all its preconditions in RFC 9110
/// §13.2.2's order, and every write needs `If-Match`.
@Suite struct ConditionalRequestTests {
    @Test func aGetWithAStaleIfMatchIs412() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let stale = try await client.send(uri: "/bookmarks/\(created.id)", method: .get, headers: [.ifMatch: "\"\(created.id).1\""])
            #expect(stale.status == .preconditionFailed, "\(text(stale))")
            #expect(stale.headers[.eTag] == created.etag)
            let current = try await client.send(uri: "/bookmarks/\(created.id)", method: .get, headers: [.ifMatch: created.etag])
            #expect(current.status == .ok)
            // If-Match first: a stale If-Match is 412 even when If-None-Match would be 304.
            var both = HTTPFields()
            both[.ifMatch] = "\"\(created.id).1\""
            both[.ifNoneMatch] = created.etag
            #expect(try await client.send(uri: "/bookmarks/\(created.id)", method: .get, headers: both).status == .preconditionFailed)
        }
    }

    @Test func aWriteWhoseIfNoneMatchNamesTheCurrentTagIs412() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example", title: "Kept")
            var headers = HTTPFields()
            headers[.ifMatch] = created.etag
            headers[.ifNoneMatch] = created.etag
            let patch = try await client.send(uri: "/bookmarks/\(created.id)", method: .patch, headers: headers, body: json(#"{"title": "Changed"}"#))
            #expect(patch.status == .preconditionFailed, "\(text(patch))")
            headers[.ifNoneMatch] = "*"
            let delete = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: headers)
            #expect(delete.status == .preconditionFailed, "\(text(delete))")
            let now = try decode(BookmarkDTO.self, try await client.send(uri: "/bookmarks/\(created.id)", method: .get))
            #expect(now == created)
        }
    }

    /// The collection routes evaluate their preconditions too: `GET
    /// /bookmarks` has a tag of its bytes, `POST /bookmarks` targets that
    /// collection, `/import` has no representation.
    @Test func theListHasATagItsConditionalRequestsAreEvaluatedAgainst() async throws {
        try await withService { client, _ in
            try await post(client, url: "https://a.example")
            let list = try await client.send(uri: "/bookmarks", method: .get)
            let tag = try #require(list.headers[.eTag], "GET /bookmarks has no ETag")
            #expect(!tag.hasPrefix("W/"))
            let repeated = try await client.send(uri: "/bookmarks", method: .get)
            #expect(repeated.headers[.eTag] == tag)
            let notModified = try await client.send(uri: "/bookmarks", method: .get, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.headers[.eTag] == tag)
            #expect(try await client.send(uri: "/bookmarks", method: .get, headers: [.ifNoneMatch: "*"]).status == .notModified)
            #expect(try await client.send(uri: "/bookmarks", method: .head, headers: [.ifNoneMatch: tag]).status == .notModified)
            let stale = try await client.send(uri: "/bookmarks", method: .get, headers: [.ifMatch: #""l-0000000000000000""#])
            #expect(stale.status == .preconditionFailed, "\(text(stale))")
            // Another page is another representation with a tag of its own.
            let other = try await client.send(uri: "/bookmarks?tag=none", method: .get)
            #expect(other.headers[.eTag] != nil && other.headers[.eTag] != tag)
            // A write changes the list's bytes, so its tag.
            try await post(client, url: "https://b.example")
            let changed = try await client.send(uri: "/bookmarks", method: .get, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok)
            #expect(changed.headers[.eTag] != tag)
        }
    }

    @Test func collectionWritesEvaluateTheirPreconditions() async throws {
        try await withService { client, store in
            let bookmark = #"{"url": "https://new.example", "title": "T", "folder": "F"}"#
            // The collection exists: If-None-Match: * is false.
            let exists = try await client.send(uri: "/bookmarks", method: .post, headers: [.ifNoneMatch: "*"], body: json(bookmark))
            #expect(exists.status == .preconditionFailed, "\(text(exists))")
            let tag = try #require(try await client.send(uri: "/bookmarks", method: .get).headers[.eTag])
            // A stale If-Match: the list changed since the client read it.
            try await post(client, url: "https://other.example")
            let stale = try await client.send(uri: "/bookmarks", method: .post, headers: [.ifMatch: tag], body: json(bookmark))
            #expect(stale.status == .preconditionFailed, "\(text(stale))")
            #expect(stale.headers[.eTag] != nil && stale.headers[.eTag] != tag)
            #expect(try await store.counts().bookmarks == 1)
            // The current tag, or *, holds.
            let current = try #require(try await client.send(uri: "/bookmarks", method: .get).headers[.eTag])
            let created = try await client.send(uri: "/bookmarks", method: .post, headers: [.ifMatch: current], body: json(bookmark))
            #expect(created.status == .created, "\(text(created))")
            let imported = #"[{"url": "https://imported.example", "title": "I", "folder": "F"}]"#
            // /import has no representation: If-Match fails, If-None-Match: * holds.
            for condition in [#""l-0000000000000000""#, "*"] {
                let refused = try await client.send(uri: "/import", method: .post, headers: [.ifMatch: condition], body: json(imported))
                #expect(refused.status == .preconditionFailed, "If-Match: \(condition): \(text(refused))")
            }
            #expect(try await store.counts().bookmarks == 2)
            let accepted = try await client.send(uri: "/import", method: .post, headers: [.ifNoneMatch: "*"], body: json(imported))
            #expect(accepted.status == .ok, "\(text(accepted))")
            #expect(try await store.counts().bookmarks == 3)
        }
    }

    @Test func aDeleteWithoutIfMatchIs428LikePutAndPatch() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let bare = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete)
            #expect(bare.status == .preconditionRequired, "\(text(bare))")
            let onlyNoneMatch = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifNoneMatch: "*"])
            #expect(onlyNoneMatch.status == .preconditionRequired)
            #expect(try await client.send(uri: "/bookmarks/\(created.id)", method: .get).status == .ok)
            let deleted = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifMatch: created.etag])
            #expect(deleted.status == .noContent)
        }
    }

    @Test func headIsServedWithTheHeadersOfGetAndAllowListsIt() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let head = try await client.send(uri: "/bookmarks/\(created.id)", method: .head)
            #expect(head.status == .ok, "\(text(head))")
            #expect(head.headers[.eTag] == created.etag)
            #expect(head.body.readableBytes == 0)
            let notModified = try await client.send(uri: "/bookmarks/\(created.id)", method: .head, headers: [.ifNoneMatch: created.etag])
            #expect(notModified.status == .notModified)
            #expect(try await client.send(uri: "/bookmarks", method: .head).status == .ok)
            #expect(try await client.send(uri: "/health", method: .head).status == .ok)
            let wrong = try await client.send(uri: "/bookmarks/\(created.id)", method: .post, body: json("{}"))
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "DELETE, GET, HEAD, PATCH, PUT")
        }
    }
}

/// A write answers what `GET` would serve, byte for byte, and a `PUT` answer
/// carries no validator.
@Suite struct WriteAnswerTests {
    @Test func writeAnswersAreTheBytesGetServes() async throws {
        try await withService { client, _ in
            let body = json(#"{"url": "https://a.example", "title": "A", "folder": "F", "tags": ["zeta", "alpha", "mid"]}"#)
            let created = try await client.send(uri: "/bookmarks", method: .post, body: body)
            #expect(created.status == .created)
            let dto = try decode(BookmarkDTO.self, created)
            let fetched = try await client.send(uri: "/bookmarks/\(dto.id)", method: .get)
            #expect(fetched.headers[.eTag] == created.headers[.eTag])
            #expect(text(fetched) == text(created))

            let patched = try await client.send(uri: "/bookmarks/\(dto.id)", method: .patch, headers: [.ifMatch: dto.etag],
                                                body: json(#"{"tags": ["b", "a", "c"]}"#))
            #expect(patched.status == .ok)
            let afterPatch = try await client.send(uri: "/bookmarks/\(dto.id)", method: .get)
            #expect(patched.headers[.eTag] == afterPatch.headers[.eTag])
            #expect(text(patched) == text(afterPatch))

            let put = try await client.send(uri: "/bookmarks/\(dto.id)", method: .put, headers: [.ifMatch: try #require(afterPatch.headers[.eTag])],
                                            body: json(#"{"url": "https://a.example", "title": " Trimmed ", "folder": "F", "tags": ["y", "x"]}"#))
            #expect(put.status == .ok)
            // The stored bookmark is not the body sent: no ETag (RFC 9110 §9.3.4).
            #expect(put.headers[.eTag] == nil)
            let afterPut = try await client.send(uri: "/bookmarks/\(dto.id)", method: .get)
            #expect(text(put) == text(afterPut))
        }
    }
}

/// What a client is told beside the status.
@Suite struct AnswerDetailTests {
    @Test func locationIsUnderTheMountedPath() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let router = Router(context: BookmarksRequestContext.self)
        router.addRoutes(BookmarkController<BookmarksRequestContext>(store: BookmarkStore(stack: stack)).endpoints, atPath: "/api/v2/bookmarks")
        try await Application(router: router).test(.router) { client in
            let created = try await client.send(uri: "/api/v2/bookmarks", method: .post,
                                                body: json(#"{"url": "https://a.example", "title": "A", "folder": "F"}"#))
            #expect(created.status == .created)
            let id = try decode(BookmarkDTO.self, created).id
            #expect(created.headers[.location] == "/api/v2/bookmarks/\(id)")
        }
    }

    @Test func errorsAreProblemDetailsKeepingTheMessage() async throws {
        try await withService { client, _ in
            let response = try await client.send(uri: "/bookmarks/99", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect(object["type"] as? String == "about:blank")
            #expect(object["title"] as? String == "Not Found")
            #expect(object["status"] as? Int == 404)
            #expect(object["detail"] as? String == "no bookmark 99")
            #expect(errorMessage(response) == "no bookmark 99")
            #expect(response.headers[HTTPField.Name("X-Request-ID")!] != nil)
        }
    }

    @Test func aPatch415SaysWhatPatchTakes() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let response = try await client.send(uri: "/bookmarks/\(created.id)", method: .patch,
                                                 headers: [.ifMatch: created.etag, .contentType: "application/merge-patch+xml"], body: json("{}"))
            #expect(response.status == .unsupportedMediaType)
            #expect(response.headers[HTTPField.Name("Accept-Patch")!] == "application/json")
        }
    }

    @Test func aWrongToken401SaysInvalidToken() async throws {
        var options = BookmarksOptions()
        options.tokens = ["right-token"]
        try await withService(options: options) { client, _ in
            let body = json(#"{"url": "https://a.example", "title": "T", "folder": "F"}"#)
            let wrong = try await client.send(uri: "/bookmarks", method: .post, headers: [.authorization: "Bearer wrong-token"], body: body)
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true, "\(wrong.headers)")
            // No credentials at all: no error code (RFC 6750 §3.1).
            let none = try await client.send(uri: "/bookmarks", method: .post, body: body)
            #expect(none.headers[.wwwAuthenticate]?.contains("error=") == false)
        }
    }
}

/// A read replica sends writes to the primary with a redirect that keeps the
/// method, or answers 421 when it does not know the primary.
@Suite struct ReplicaWriteRedirectTests {
    func router(primary: URL?) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ReadReplicaMiddleware(primary: primary))
        router.get("/bookmarks/:id") { _, _ in "read" }
        router.delete("/bookmarks/:id") { _, _ in HTTPResponse.Status.noContent }
        return router
    }

    @Test func aWriteIsRedirectedWith307KeepingTheMethod() async throws {
        let app = Application(router: router(primary: URL(string: "http://10.0.0.5:8080/")))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/bookmarks/3?x=1", method: .delete)
            #expect(response.status == .temporaryRedirect)
            #expect(response.headers[.location] == "http://10.0.0.5:8080/bookmarks/3?x=1")
            #expect(response.headers[.retryAfter] == nil)
            #expect(try await client.execute(uri: "/bookmarks/3", method: .get).status == .ok)
        }
    }

    @Test func withoutAPrimaryAWriteIs421() async throws {
        let app = Application(router: router(primary: nil))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/bookmarks/3", method: .delete)
            #expect(response.status == .misdirectedRequest)
            #expect(response.headers[.location] == nil)
        }
    }
}

/// The feeds can be closed to the public, and a query's work is bounded.
@Suite struct ReadLimitTests {
    @Test func readTokensGuardTheFeedsOnly() async throws {
        var options = BookmarksOptions()
        options.readTokens = ["reader"]
        options.tokens = ["writer"]
        try await withService(options: options) { client, _ in
            for path in ["/changes", "/events?count=1"] {
                let open = try await client.send(uri: path, method: .get)
                #expect(open.status == .unauthorized, "\(path)")
                let read = try await client.send(uri: path, method: .get, headers: [.authorization: "Bearer reader"])
                #expect(read.status == .ok, "\(path)")
            }
            let writer = try await client.send(uri: "/changes", method: .get, headers: [.authorization: "Bearer writer"])
            #expect(writer.status == .ok)
            // The bookmarks and the health check stay open to reads.
            #expect(try await client.send(uri: "/bookmarks", method: .get).status == .ok)
            #expect(try await client.send(uri: "/health", method: .get).status == .ok)
        }
    }

    @Test func offsetAndSearchTextAreBounded() async throws {
        try await withService { client, _ in
            let far = try await client.send(uri: "/bookmarks?offset=100001", method: .get)
            #expect(far.status == .badRequest)
            #expect(errorMessage(far).contains("'offset'"))
            let long = try await client.send(uri: "/bookmarks?q=" + String(repeating: "a", count: 201), method: .get)
            #expect(long.status == .badRequest)
            #expect(errorMessage(long).contains("'q'"))
            #expect(try await client.send(uri: "/bookmarks?offset=100000&q=" + String(repeating: "a", count: 200), method: .get).status == .ok)
        }
    }
}
