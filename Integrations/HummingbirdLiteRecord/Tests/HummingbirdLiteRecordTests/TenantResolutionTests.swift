import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LiteRecord
import HummingbirdLiteRecord
import Testing

/// A multi-tenant service: the request names its tenant by a
/// header or by its host's first label, the route gets that tenant's stack;
/// an unknown tenant is 404, an invalid or missing name 400.
@Suite struct TenantResolutionTests {
    func withService(
        from source: TenantResolution.Source, _ body: @Sendable (any TestClientProtocol, RecordStacks) async throws -> Void
    ) async throws {
        let store = try TemporaryStore()
        defer { store.remove() }
        let tenants = try RecordStacks(directory: store.folder.appendingPathComponent("tenants"), entities: [Todo.self])
        defer { tenants.close() }
        for (name, titles) in [("acme", ["anvil", "rocket"]), ("globex", ["hammock"])] {
            try tenants.create(name)
            try await tenants.withStack(for: name) { stack in
                try await stack.write { context in
                    for title in titles { Todo.create(in: context).title = title }
                }
            }
        }
        let resolution = TenantResolution(tenants, from: source)
        let router = Router()
        router.add(middleware: StoreErrorMiddleware())
        router.get("/todos") { request, _ -> String in
            try await resolution.withStack(for: request) { stack in
                try await stack.read { db in try Todo.findAll(in: db).map(\.title).sorted().joined(separator: ",") }
            }
        }
        router.post("/todos") { request, _ -> HTTPResponse.Status in
            try await resolution.withStack(for: request) { stack in
                try await stack.write { db in Todo.create(in: db).title = "posted" }
            }
            return .created
        }
        try await Application(router: router).test(.router) { client in try await body(client, tenants) }
    }

    @Test func aHeaderChoosesTheTenantsStore() async throws {
        try await withService(from: .header("X-Tenant")) { client, tenants in
            let acme = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("X-Tenant")!: "acme"])
            #expect(acme.status == .ok)
            #expect(String(buffer: acme.body) == "anvil,rocket")
            let globex = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("X-Tenant")!: "GLOBEX"])
            #expect(String(buffer: globex.body) == "hammock", "a tenant is found in any letter case")

            let posted = try await client.execute(uri: "/todos", method: .post, headers: [HTTPField.Name("X-Tenant")!: "globex"])
            #expect(posted.status == .created)
            let count = try await tenants.withStack(for: "acme") { stack in try await stack.read { try Todo.count(in: $0) } }
            #expect(count == 2, "another tenant's write stays in its own store")

            let unknown = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("X-Tenant")!: "initech"])
            #expect(unknown.status == .notFound)
            #expect(try tenants.names() == ["acme", "globex"], "a request creates no tenant")
            let invalid = try await client.execute(uri: "/todos", method: .post, headers: [HTTPField.Name("X-Tenant")!: "../acme"])
            #expect(invalid.status == .badRequest)
            #expect(String(buffer: invalid.body).contains("tenant name"), "\(String(buffer: invalid.body))")
            let missing = try await client.execute(uri: "/todos", method: .get)
            #expect(missing.status == .badRequest)
            #expect(String(buffer: missing.body).contains("X-Tenant"))
        }
    }

    @Test func theHostsFirstLabelChoosesTheTenant() async throws {
        try await withService(from: .firstHostLabel) { client, _ in
            let acme = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("Host")!: "acme.notes.example:8080"])
            #expect(acme.status == .ok)
            #expect(String(buffer: acme.body) == "anvil,rocket")
            let unknown = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("Host")!: "initech.notes.example"])
            #expect(unknown.status == .notFound)
            let bare = try await client.execute(uri: "/todos", method: .get, headers: [HTTPField.Name("Host")!: "localhost"])
            #expect(bare.status == .badRequest)
        }
    }
}
