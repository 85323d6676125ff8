import BookmarksCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The service publishes its OpenAPI document, and the document names every
/// route the router has and no other.
@Suite struct OpenAPIDocumentTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../openapi.json").standardized

    /// The document's operations, as `METHOD /path/{id}`.
    static func operations(_ json: String) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["openapi"] as? String == "3.1.0")
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    @Test func theServedDocumentIsTheExamplesFile() async throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(OpenAPIDocument.json == text, "Sources/BookmarksCore/OpenAPIDocument.swift differs from openapi.json")
        try await withService { client, _ in
            let response = try await client.send(uri: "/openapi.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(String(buffer: response.body) == text)
        }
    }

    @Test func everyRouteIsDocumentedAndEveryOperationIsARoute() throws {
        let documented = try Self.operations(OpenAPIDocument.json)
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let stack = try temporary.openStack()
        defer { try? stack.close() }
        let router = BookmarksApp.makeRouter(store: BookmarkStore(stack: stack)).router
        // HEAD is generated for every GET; `:id` is OpenAPI's `{id}`.
        let routes = Set(router.routes.filter { $0.method != .head }.map { route in
            "\(route.method) " + "\(route.path)".split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                .reduce("") { $0 + "/" + $1 }
        })
        #expect(routes.subtracting(documented).isEmpty, "routes the document lacks: \(routes.subtracting(documented).sorted())")
        // /metrics is a route only when the server keeps metrics.
        let missing = documented.subtracting(routes).subtracting(["GET /metrics"])
        #expect(missing.isEmpty, "operations without a route: \(missing.sorted())")
    }
}
