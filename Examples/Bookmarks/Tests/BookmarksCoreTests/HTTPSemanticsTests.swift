import BookmarksCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// Conditional requests and methods as RFC 9110 defines them: strong ETags
/// of id and version, If-Match on every change, If-None-Match answered 304,
/// PUT replacing and PATCH merging, 405 with Allow, one JSON error body.
@Suite struct HTTPSemanticsTests {
    func put(_ client: any TestClientProtocol, _ id: Int64, ifMatch: [String], body: String = #"{"url": "https://put.example", "title": "Put", "folder": "F"}"#,
             method: HTTPRequest.Method = .put) async throws -> TestResponse {
        var headers = HTTPFields()
        for value in ifMatch { headers.append(HTTPField(name: .ifMatch, value: value)) }
        return try await client.send(uri: "/bookmarks/\(id)", method: method, headers: headers, body: json(body))
    }

    @Test func weakOrBareIfMatchNeverMatches() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let weak = try await put(client, created.id, ifMatch: ["W/\(created.etag)"])
            #expect(weak.status == .preconditionFailed, "\(text(weak))")
            #expect(weak.headers[.eTag] == created.etag)
            let bare = try await put(client, created.id, ifMatch: ["\(created.id).\(created.version)"])
            #expect(bare.status == .badRequest)
            #expect(errorMessage(bare).contains("If-Match"))
            let fetched = try await client.send(uri: "/bookmarks/\(created.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == created)
        }
    }

    @Test func aListOrSeveralLinesMatchWhenOneTagDoes() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let listed = try await put(client, created.id, ifMatch: ["\"0.0\", \(created.etag)"], body: #"{"title": "One"}"#, method: .patch)
            #expect(listed.status == .ok, "\(text(listed))")
            let now = try decode(BookmarkDTO.self, listed)
            let lines = try await put(client, created.id, ifMatch: ["\"0.0\"", now.etag], body: #"{"title": "Two"}"#, method: .patch)
            #expect(lines.status == .ok, "\(text(lines))")
            let any = try await put(client, created.id, ifMatch: ["*"], body: #"{"title": "Three"}"#, method: .patch)
            #expect(any.status == .ok)
            #expect(try decode(BookmarkDTO.self, any).title == "Three")
        }
    }

    @Test func anETagNeverNamesAnotherBookmark() async throws {
        try await withService { client, _ in
            let first = try await post(client, url: "https://1.example")
            let second = try await post(client, url: "https://2.example")
            // Same version, other bookmark: the id in the tag tells them apart.
            #expect(first.version == second.version)
            #expect(first.etag != second.etag)
            let crossed = try await put(client, second.id, ifMatch: [first.etag])
            #expect(crossed.status == .preconditionFailed)
        }
    }

    @Test func aDeletedBookmarksETagNeverReachesANewcomer() async throws {
        try await withService { client, _ in
            try await post(client, url: "https://1.example")
            let doomed = try await post(client, url: "https://2.example", title: "Doomed")
            #expect(try await client.send(uri: "/bookmarks/\(doomed.id)", method: .delete, headers: [.ifMatch: doomed.etag]).status == .noContent)
            let newcomer = try await post(client, url: "https://3.example", title: "Newcomer")
            #expect(newcomer.id != doomed.id)
            let stale = try await put(client, doomed.id, ifMatch: [doomed.etag], body: #"{"title": "Overwritten"}"#, method: .patch)
            #expect(stale.status == .notFound)
            let replaced = try await put(client, doomed.id, ifMatch: [doomed.etag])
            #expect(replaced.status == .notFound)
            let fetched = try await client.send(uri: "/bookmarks/\(newcomer.id)", method: .get)
            #expect(try decode(BookmarkDTO.self, fetched) == newcomer)
        }
    }

    @Test func ifNoneMatchAnswers304WithTheETag() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            for value in [created.etag, "W/\(created.etag)", "\"0.0\", \(created.etag)", "*"] {
                let response = try await client.send(uri: "/bookmarks/\(created.id)", method: .get, headers: [.ifNoneMatch: value])
                #expect(response.status == .notModified, "\(value)")
                #expect(response.headers[.eTag] == created.etag)
                #expect(response.body.readableBytes == 0)
            }
            let changed = try await client.send(uri: "/bookmarks/\(created.id)", method: .get, headers: [.ifNoneMatch: "\"\(created.id).1\""])
            #expect(changed.status == .ok)
            #expect(try decode(BookmarkDTO.self, changed) == created)
        }
    }

    @Test func deleteHonoursIfMatch() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example")
            let stale = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifMatch: "\"\(created.id).1\""])
            #expect(stale.status == .preconditionFailed)
            #expect(stale.headers[.eTag] == created.etag)
            #expect(try await client.send(uri: "/bookmarks/\(created.id)", method: .get).status == .ok)
            let weak = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifMatch: "W/\(created.etag)"])
            #expect(weak.status == .preconditionFailed)
            let current = try await client.send(uri: "/bookmarks/\(created.id)", method: .delete, headers: [.ifMatch: created.etag])
            #expect(current.status == .noContent)
            #expect(try await client.send(uri: "/bookmarks/\(created.id)", method: .get).status == .notFound)
        }
    }

    @Test func putReplacesEveryFieldPatchOnlyTheOnesSent() async throws {
        try await withService { client, _ in
            let created = try await post(client, url: "https://a.example", title: "Old", folder: "Inbox", tags: ["a", "b"], note: "kept?")
            // PUT needs the whole bookmark.
            let partial = try await put(client, created.id, ifMatch: [created.etag], body: #"{"title": "Only a title"}"#)
            #expect(partial.status == .badRequest)
            #expect(errorMessage(partial).contains("'url'"))
            let replaced = try await put(client, created.id, ifMatch: [created.etag],
                                         body: #"{"url": "https://a.example", "title": "New", "folder": "Other"}"#)
            #expect(replaced.status == .ok, "\(text(replaced))")
            let after = try decode(BookmarkDTO.self, replaced)
            #expect(after.title == "New")
            #expect(after.folder == "Other")
            #expect(after.tags.isEmpty)
            #expect(after.note == nil)
            #expect(after.visits == 0)
            // PATCH keeps what it is not sent.
            let patched = try await put(client, created.id, ifMatch: [after.etag], body: #"{"visits": 9}"#, method: .patch)
            #expect(patched.status == .ok)
            let final = try decode(BookmarkDTO.self, patched)
            #expect(final.title == "New")
            #expect(final.folder == "Other")
            #expect(final.visits == 9)
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withService { client, _ in
            let collection = try await client.send(uri: "/bookmarks", method: .delete)
            #expect(collection.status == .methodNotAllowed)
            #expect(collection.headers[.allow] == "GET, HEAD, POST")
            #expect(errorMessage(collection).contains("DELETE"))
            let item = try await client.send(uri: "/bookmarks/1", method: .post, body: json("{}"))
            #expect(item.status == .methodNotAllowed)
            #expect(item.headers[.allow] == "DELETE, GET, HEAD, PATCH, PUT")
            let importing = try await client.send(uri: "/import", method: .get)
            #expect(importing.status == .methodNotAllowed)
            #expect(importing.headers[.allow] == "POST")
        }
    }

    @Test func unknownRoutesHaveTheSameJSONErrorBody() async throws {
        try await withService { client, _ in
            let response = try await client.send(uri: "/nothing", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(errorMessage(response).contains("/nothing"))
        }
    }

    @Test func aStoreFailureIs503WithoutPathOrSQL() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        let app = Application(router: BookmarksApp.makeRouter(store: BookmarkStore(stack: stack)).router)
        try stack.close()
        try await app.test(.router) { client in
            let list = try await client.send(uri: "/bookmarks", method: .get)
            #expect(list.status == .serviceUnavailable)
            #expect(!errorMessage(list).contains(temporary.folder.path))
            #expect(!errorMessage(list).contains("SELECT"))
            let health = try await client.send(uri: "/health", method: .get)
            #expect(health.status == .serviceUnavailable)
        }
    }
}
