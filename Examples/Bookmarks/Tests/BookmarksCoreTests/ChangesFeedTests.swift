import BookmarksCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdLiteRecord
import HummingbirdTesting
import LiteRecord
import Testing

/// `GET /changes`, the bookmark changes of the store's persistent history:
/// through the router (what each change says, paging with `next`, 400, 410,
/// an empty feed), then on the built binary across a restart.
@Suite struct ChangesFeedTests {
    /// `GET /changes<query>`, which must answer 200, decoded.
    func changes(_ client: any TestClientProtocol, _ query: String = "") async throws -> ChangesPage {
        let response = try await client.send(uri: "/changes" + query, method: .get)
        #expect(response.status == .ok, "GET /changes\(query): \(text(response))")
        return try decode(ChangesPage.self, response)
    }

    /// `PATCH /bookmarks/{id}` with the bookmark's current `ETag`.
    func patch(_ client: any TestClientProtocol, _ bookmark: BookmarkDTO, _ body: String) async throws -> BookmarkDTO {
        let response = try await client.send(
            uri: "/bookmarks/\(bookmark.id)", method: .patch, headers: [.ifMatch: bookmark.etag], body: json(body))
        #expect(response.status == .ok, "PATCH \(bookmark.id): \(text(response))")
        return try decode(BookmarkDTO.self, response)
    }

    /// Each change as `"<kind> <id>"`, per transaction.
    func summary(_ page: ChangesPage) -> [[String]] {
        page.transactions.map { $0.changes.map { "\($0.kind.rawValue) \($0.id)" } }
    }

    @Test func insertsUpdatesAndDeletesNameTheBookmarkTheirAuthorAndTheDeletedURL() async throws {
        try await withService { client, _ in
            let start = Date()
            let a = try await post(client, url: "https://a.example", title: "A", folder: "Inbox", tags: ["x"])
            let renamed = try await patch(client, a, #"{"title": "A, renamed"}"#)
            let moved = try await patch(client, renamed, #"{"folder": "Other", "tags": ["x", "y"]}"#)
            let deleted = try await client.send(uri: "/bookmarks/\(a.id)", method: .delete, headers: [.ifMatch: moved.etag])
            #expect(deleted.status == .noContent)
            let b = try await post(client, url: "https://b.example")

            let response = try await client.send(uri: "/changes", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let page = try decode(ChangesPage.self, response)
            // One transaction per write, oldest first, bookmarks only: the
            // folders and tags the writes made are not listed.
            #expect(summary(page) == [["insert \(a.id)"], ["update \(a.id)"], ["update \(a.id)"], ["delete \(a.id)"], ["insert \(b.id)"]])
            #expect(page.transactions.allSatisfy { $0.changes.allSatisfy { $0.entity == "Bookmark" } })
            #expect(page.transactions.allSatisfy { $0.author == "api" })
            let tokens = page.transactions.map(\.token)
            #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count)
            #expect(page.next == tokens.last)
            #expect(page.transactions.allSatisfy { $0.date >= start.addingTimeInterval(-1) && $0.date <= Date().addingTimeInterval(1) })

            let changes = page.transactions.map { $0.changes[0] }
            #expect(changes[0].updatedAttributes == nil && changes[0].tombstone == nil)
            #expect(changes[1].updatedAttributes == ["title"])
            #expect(changes[2].updatedAttributes == ["folder", "tags"])
            #expect(changes[3].tombstone == ["url": .text("https://a.example")])
            #expect(changes[3].updatedAttributes == nil)

            // As JSON: the service's conventions (sorted keys, ISO 8601
            // dates, slashes unescaped), the tombstone's value a string.
            let body = text(response)
            #expect(body.contains(#"{"entity":"Bookmark","id":\#(a.id),"kind":"delete","tombstone":{"url":"https://a.example"}}"#), "\(body)")
            #expect(body.contains(#"{"entity":"Bookmark","id":\#(a.id),"kind":"update","updatedAttributes":["title"]}"#), "\(body)")
            #expect(body.contains(#"{"entity":"Bookmark","id":\#(b.id),"kind":"insert"}"#), "\(body)")
            #expect(body.contains(#""next":"\#(tokens[4])""#) && body.contains(#""token":"\#(tokens[0])""#), "\(body)")
            #expect(body.range(of: #""date":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ""#, options: .regularExpression) != nil, "\(body)")
        }
    }

    @Test func anImportIsOneTransactionByImport() async throws {
        try await withService { client, _ in
            let existing = try await post(client, url: "https://kept.example")
            let body = #"[{"url": "https://new.example", "title": "New", "folder": "F"}, {"url": "https://kept.example", "title": "Imported", "folder": "F"}]"#
            let imported = try await client.send(uri: "/import", method: .post, body: json(body))
            #expect(imported.status == .ok, "\(text(imported))")
            let page = try await changes(client)
            #expect(page.transactions.map(\.author) == ["api", "import"])
            let last = try #require(page.transactions.last)
            let new = try #require(last.changes.first { $0.kind == .insert })
            #expect(Set(last.changes.map { "\($0.kind.rawValue) \($0.id)" }) == ["insert \(new.id)", "update \(existing.id)"])
            #expect(last.changes.first { $0.kind == .update }?.updatedAttributes?.contains("title") == true)
        }
    }

    @Test func pagesFollowNextWithNothingLostOrRepeated() async throws {
        try await withService { client, _ in
            var ids: [Int64] = []
            for index in 0..<5 { ids.append(try await post(client, url: "https://\(index).example").id) }
            let all = try await changes(client)
            #expect(all.transactions.count == 5)
            // `since=latest`: where a client that reads every bookmark now starts.
            #expect(try await changes(client, "?since=latest") == ChangesPage(next: all.next, transactions: []))

            var since: HistoryToken?
            var sizes: [Int] = []
            var seen: [ChangeTransaction] = []
            for _ in 0..<10 {
                let page = try await changes(client, "?limit=2" + (since.map { "&since=\($0)" } ?? ""))
                sizes.append(page.transactions.count)
                seen += page.transactions
                guard let last = page.transactions.last else {
                    // Nothing new: `next` is the token asked from.
                    #expect(page.next == since)
                    break
                }
                #expect(page.next == last.token)
                since = page.next
            }
            #expect(sizes == [2, 2, 1, 0])
            #expect(seen == all.transactions)
            #expect(seen.flatMap { $0.changes.map(\.id) } == ids)
            #expect(try await changes(client, "?limit=1000").transactions.count == 5)
        }
    }

    @Test func aMalformedTokenOrLimitIs400() async throws {
        try await withService { client, _ in
            try await post(client, url: "https://a.example")
            for (query, parameter) in [
                ("?since=yesterday", "'since'"), ("?since=42", "'since'"), ("?since=42-XYZ", "'since'"),
                ("?since=-1-abc", "'since'"), ("?since=1.5-abc", "'since'"),
                ("?limit=0", "'limit'"), ("?limit=1001", "'limit'"), ("?limit=ten", "'limit'"), ("?limit=-3", "'limit'"),
            ] {
                let response = try await client.send(uri: "/changes" + query, method: .get)
                #expect(response.status == .badRequest, "\(query): \(text(response))")
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect(errorMessage(response).contains(parameter), "\(query): \(errorMessage(response))")
            }
            let since = try await client.send(uri: "/changes?since=yesterday", method: .get)
            #expect(errorMessage(since).contains("'next'"), "\(errorMessage(since))")
            let limit = try await client.send(uri: "/changes?limit=0", method: .get)
            #expect(errorMessage(limit).contains("from 1 to 1000"), "\(errorMessage(limit))")
            // Empty parameters are absent, as on /bookmarks.
            #expect(try await changes(client, "?since=&limit=").transactions.count == 1)
            // Reads only.
            let post = try await client.send(uri: "/changes", method: .post, body: json("{}"))
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET, HEAD")
        }
    }

    @Test func aTokenTheStoreNoLongerKeepsIs410WithTheNewestTokenAsNext() async throws {
        try await withService { client, store in
            for index in 0..<3 { try await post(client, url: "https://\(index).example") }
            let tokens = try await changes(client).transactions.map(\.token)
            #expect(tokens.count == 3)
            #expect(try store.stack.deleteHistory(before: tokens[2]) == 2)

            let gone = try await client.send(uri: "/changes?since=\(tokens[0])", method: .get)
            #expect(gone.status == .gone, "\(text(gone))")
            // Problem details (RFC 9457), as the document says and every
            // other error is, with `next` (Schemathesis found a plain JSON body).
            #expect(gone.headers[.contentType] == "application/problem+json")
            let answer = try decode(GoneProblem.self, gone)
            #expect(answer.next == tokens[2])
            #expect(answer.status == 410 && answer.title == "Gone")
            #expect(answer.type == ProblemDetails.StoreProblem.historyExpired)
            #expect(answer.detail == errorMessage(gone))
            #expect(errorMessage(gone).contains("GET /bookmarks"), "\(text(gone))")
            #expect(errorMessage(gone).contains("'next'"), "\(text(gone))")
            #expect(text(gone).contains(#""next":"\#(tokens[2])""#), "\(text(gone))")

            // The newest token deleted is still a place to continue from: a
            // client that processed it misses nothing.
            #expect(try await changes(client, "?since=\(tokens[1])").transactions.map(\.token) == [tokens[2]])
            // Without a token: from the oldest transaction kept.
            #expect(try await changes(client).transactions.map(\.token) == [tokens[2]])
            // From the 410's `next`: what commits after it.
            let later = try await post(client, url: "https://later.example")
            #expect(summary(try await changes(client, "?since=\(tokens[2])")) == [["insert \(later.id)"]])
            // Another store's token is gone too, not another store's history.
            let foreign = "\(tokens[0].transactionNumber)-0123456789abcdef"
            let other = try await client.send(uri: "/changes?since=\(foreign)", method: .get)
            #expect(other.status == .gone, "\(text(other))")
            // So is a token newer than anything the store holds (it was put
            // back from an older copy): it would otherwise wait, missing
            // whatever the store numbers again below it.
            let storeID = try #require(tokens[0].description.split(separator: "-").last)
            let ahead = try await client.send(uri: "/changes?since=\(tokens[2].transactionNumber + 10)-\(storeID)", method: .get)
            #expect(ahead.status == .gone, "\(text(ahead))")
            #expect(errorMessage(ahead).contains("newer"), "\(text(ahead))")
            let current = try await changes(client)
            #expect(try decode(GoneProblem.self, ahead).next == current.next)
        }
    }

    @Test func anEmptyFeedStillSaysWhereToContinueFrom() async throws {
        try await withService { client, store in
            let empty = try await client.send(uri: "/changes", method: .get)
            #expect(empty.status == .ok)
            #expect(text(empty) == #"{"next":null,"transactions":[]}"#)
            let latestOfNone = try await client.send(uri: "/changes?since=latest", method: .get)
            #expect(text(latestOfNone) == #"{"next":null,"transactions":[]}"#)

            try await post(client, url: "https://a.example")
            let first = try await changes(client)
            let token = try #require(first.next)
            let nothingNew = try await client.send(uri: "/changes?since=\(token)", method: .get)
            #expect(text(nothingNew) == #"{"next":"\#(token)","transactions":[]}"#)

            // A transaction that changes no bookmark (a folder alone) is not
            // listed, and `next` moves past it: it is not read again.
            try await store.stack.write { context in
                let folder = Folder()
                folder.name = "Empty"
                context.insert(folder)
                try context.save()
            }
            let skipped = try await changes(client, "?since=\(token)")
            #expect(skipped.transactions.isEmpty)
            let newest = try #require(try store.stack.newestHistoryToken())
            #expect(newest > token)
            #expect(skipped.next == newest)
        }
    }

    // MARK: - The built server

    typealias Server = ServerProcessTests.Server

    /// Runs `body` against `bookmarks-server` on `store`, then stops it with
    /// SIGTERM (waits bounded) however `body` ends; it must exit 0.
    func withServer<T>(
        _ store: URL, arguments: [String] = [], _ body: (Int) async throws -> T
    ) async throws -> T {
        let server = try Server(store: store, arguments: arguments)
        do {
            try await server.waitUntilListening()
            let result = try await body(server.port)
            server.terminate()
            #expect(await server.waitForExit() == 0)
            return result
        } catch {
            server.terminate()
            _ = await server.waitForExit(seconds: 10)
            throw error
        }
    }

    /// One request on a connection of its own, answered within 20 s.
    func send(_ port: Int, _ method: String, _ path: String, body: String = "", headers: String = "") async throws -> HTTP {
        try await HTTP.exchange(port, ServerProcessTests.request(method, path, body: body, headers: headers))
    }

    /// `GET /changes<query>`, which must answer 200, decoded.
    func changes(_ port: Int, _ query: String = "") async throws -> ChangesPage {
        let answer = try await send(port, "GET", "/changes" + query)
        #expect(answer.status == 200, "GET /changes\(query): \(answer.text)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ChangesPage.self, from: Data(answer.body.utf8))
    }

    /// `POST /bookmarks`; the new bookmark's id and `ETag`.
    func create(_ port: Int, _ url: String) async throws -> (id: Int64, etag: String) {
        let answer = try await send(port, "POST", "/bookmarks", body: #"{"url": "\#(url)", "title": "T", "folder": "F"}"#)
        #expect(answer.status == 201, "\(answer.text)")
        let id = try #require(answer.json?["id"] as? Int)
        return (Int64(id), try #require(answer.header("ETag")))
    }

    @Test(.timeLimit(.minutes(3)))
    func theFeedContinuesAcrossARestartWithNothingLostOrRepeated() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }

        // First run: three inserts, an update, a delete; the client keeps `next`.
        let (before, firstRun, keptA) = try await withServer(temporary.url) { port in
            let a = try await create(port, "https://a.example")
            let b = try await create(port, "https://b.example")
            let c = try await create(port, "https://c.example")
            let patched = try await send(port, "PATCH", "/bookmarks/\(b.id)", body: #"{"title": "B2"}"#, headers: "If-Match: \(b.etag)\r\n")
            #expect(patched.status == 200, "\(patched.text)")
            #expect(try await send(port, "DELETE", "/bookmarks/\(c.id)", headers: "If-Match: \(c.etag)\r\n").status == 204)
            let page = try await changes(port)
            #expect(summary(page) == [["insert \(a.id)"], ["insert \(b.id)"], ["insert \(c.id)"], ["update \(b.id)"], ["delete \(c.id)"]])
            let next = try #require(page.next)
            #expect(try await changes(port, "?since=\(next)") == ChangesPage(next: next, transactions: []))
            return (next, page.transactions, a)
        }

        // Second run on the same store (with a retention long enough to
        // delete nothing): more changes, then the feed from the kept token.
        let (secondRun, lastCommit) = try await withServer(temporary.url, arguments: ["--history-retention", "86400"]) { port in
            let d = try await create(port, "https://d.example")
            let patched = try await send(port, "PATCH", "/bookmarks/\(keptA.id)", body: #"{"visits": 3}"#, headers: "If-Match: \(keptA.etag)\r\n")
            #expect(patched.status == 200, "\(patched.text)")
            let b = firstRun[1].changes[0].id
            #expect(try await send(port, "DELETE", "/bookmarks/\(b)", headers: "If-Match: *\r\n").status == 204)
            let imported = try await send(port, "POST", "/import", body: #"[{"url": "https://e.example", "title": "E", "folder": "F"}, {"url": "https://a.example", "title": "A, imported", "folder": "F"}]"#)
            #expect(imported.status == 200, "\(imported.text)")
            let lastCommit = ContinuousClock.now

            let page = try await changes(port, "?since=\(before)")
            #expect(page.transactions.count == 4, "\(summary(page))")
            #expect(Array(summary(page).prefix(3)) == [["insert \(d.id)"], ["update \(keptA.id)"], ["delete \(b)"]])
            #expect(page.transactions.map(\.author) == ["api", "api", "api", "import"])
            #expect(page.transactions[1].changes.first?.updatedAttributes == ["visits"])
            #expect(page.transactions[2].changes.first?.tombstone == ["url": .text("https://b.example")])
            let imports = Set(page.transactions.last?.changes.map { "\($0.kind.rawValue) \($0.id)" } ?? [])
            #expect(imports.count == 2 && imports.contains("update \(keptA.id)"), "\(imports)")
            #expect(page.transactions.allSatisfy { $0.token > before })
            #expect(page.next == page.transactions.last?.token)
            // The whole feed is the first run's answer and this one, once each.
            let all = try await changes(port)
            #expect(all.transactions == firstRun + page.transactions)
            return (page, lastCommit)
        }

        // Third run keeping one second of history: its first commit deletes
        // every older transaction, and the kept token is 410 Gone.
        try await Task.sleep(until: lastCommit + .milliseconds(2_100), clock: .continuous)
        try await withServer(temporary.url, arguments: ["--history-retention", "1"]) { port in
            let f = try await create(port, "https://f.example")
            let gone = try await send(port, "GET", "/changes?since=\(before)")
            #expect(gone.status == 410, "\(gone.text)")
            #expect(gone.errorMessage?.contains("GET /bookmarks") == true, "\(gone.text)")
            let next = try #require(gone.json?["next"] as? String)
            let page = try await changes(port)
            #expect(summary(page) == [["insert \(f.id)"]])
            let newest = try #require(page.next)
            #expect(newest.description == next)
            #expect(newest > (secondRun.next ?? newest))
            #expect(try await changes(port, "?since=\(next)").transactions.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRetentionMustBePositiveSeconds() async throws {
        for value in ["0", "-5", "soon"] {
            let (exit, errors) = try await ReadReplicaTests.run(["--port", "0", "--store", "/nonexistent/x.sqlite", "--history-retention", value])
            #expect(exit == 64, "\(value): \(errors)")
            #expect(errors.contains("--history-retention"), "\(value): \(errors)")
        }
    }
}

/// The 410 of `GET /changes`: problem details with the token to continue from.
struct GoneProblem: Decodable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var next: HistoryToken?
}
