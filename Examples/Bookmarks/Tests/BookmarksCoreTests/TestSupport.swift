import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import LiteRecord
import Testing

/// A store file in a folder of its own under the temporary directory, removed
/// (with its -wal and -shm) by `remove()`.
struct TemporaryStore {
    let folder: URL
    var url: URL { folder.appendingPathComponent("Bookmarks.sqlite") }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The stack as `bookmarks-server` opens it: history on, for `/changes`.
    func openStack() throws -> RecordStack {
        try RecordStack(storeAt: url, entities: BookmarksModel.entities, migration: .automatic, history: .enabled)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `body` against the service's router on a fresh file store (through
/// HummingbirdTesting's router framework: no socket), then closes and
/// removes the store.
func withService(
    options: BookmarksOptions = .init(),
    _ body: @Sendable (any TestClientProtocol, BookmarkStore) async throws -> Void
) async throws {
    let temporary = try TemporaryStore()
    defer { temporary.remove() }
    let stack = try temporary.openStack()
    let store = BookmarkStore(stack: stack)
    let app = Application(router: BookmarksApp.makeRouter(store: store, options: options).router)
    do {
        try await app.test(.router) { client in try await body(client, store) }
    } catch {
        try? stack.close()
        throw error
    }
    try stack.close()
}

extension TestClientProtocol {
    /// `execute`, with `Content-Type: application/json` on a request with a
    /// body unless `headers` names another type.
    func send(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        var headers = headers
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: body)
    }
}

/// A JSON body.
func json(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

/// The body as text.
func text(_ response: TestResponse) -> String { String(buffer: response.body) }

/// Decodes the body as `T` (dates in ISO 8601, as the service sends them).
func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(response.body.readableBytesView))
}

/// Creates a bookmark through `POST /bookmarks` and returns what it answered.
@discardableResult
func post(_ client: any TestClientProtocol, url: String, title: String = "A title", folder: String = "Inbox",
          tags: [String] = [], note: String? = nil) async throws -> BookmarkDTO {
    var object: [String: Any] = ["url": url, "title": title, "folder": folder, "tags": tags]
    if let note { object["note"] = note }
    let data = try JSONSerialization.data(withJSONObject: object)
    let response = try await client.send(uri: "/bookmarks", method: .post, body: ByteBuffer(bytes: data))
    #expect(response.status == .created, "POST \(url): \(text(response))")
    return try decode(BookmarkDTO.self, response)
}

/// The error message of a Hummingbird error body: `{"error":{"message":…}}`.
func errorMessage(_ response: TestResponse) -> String {
    struct Body: Decodable { struct Inner: Decodable { var message: String }; var error: Inner }
    return (try? JSONDecoder().decode(Body.self, from: Data(response.body.readableBytesView)))?.error.message ?? text(response)
}
