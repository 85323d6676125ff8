import Foundation
import LiteRecord
import Testing
import Vapor
import VaporLiteRecord
import VaporTesting

/// The inventory service over a fresh in-memory store, shut down (and the
/// stack closed by the application's lifecycle) when `body` returns.
func withInventory(
    seeded: Bool = true,
    _ body: (any TestingApplicationTester, RecordStack) async throws -> Void
) async throws {
    let stack = try RecordStack(inMemoryWith: [Product.self])
    if seeded {
        try await stack.write { store in
            let product = Product()
            store.insert(product)
            product.sku = "A-1"
            product.name = "Anvil"
            product.quantity = 3
        }
    }
    try await withApp(configure: { app in try Inventory.configure(app, stack: stack) }) { app in
        try await body(try app.testing(), stack)
    }
}

extension TestingApplicationTester {
    /// One request, JSON body when given, answered in memory.
    func send(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], json: String? = nil) async throws -> TestingHTTPResponse {
        var headers = headers
        if json != nil { headers.replaceOrAdd(name: .contentType, value: "application/json") }
        return try await sendRequest(method, path, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

/// The RFC 9457 body the integration answers errors with.
struct Problem: Decodable {
    struct Message: Decodable { var message: String }
    var type: String
    var title: String
    var status: Int
    var detail: String
    var error: Message

    init(_ response: TestingHTTPResponse) throws {
        #expect(response.headers.first(name: .contentType) == "application/problem+json")
        self = try JSONDecoder().decode(Problem.self, from: Data(response.body.readableBytesView))
    }
}

extension TestingHTTPResponse {
    var text: String { String(buffer: body) }
    var eTag: String? { headers.first(name: .eTag) }
}
