import Foundation
import LiteRecord
import LiteRecordTesting
import Testing

/// `.temporaryTenants`: each test case, run in parallel with the others, gets
/// a tenants folder of its own, removed afterwards with every tenant.
@Suite struct TemporaryTenantsTraitTests {
    @Test(.temporaryTenants(entities: [Item.self]), arguments: 0..<12)
    func eachCaseHasItsOwnTenants(case number: Int) async throws {
        let tenants = try TemporaryTenants.current()
        #expect(try tenants.names().isEmpty, "a fresh folder")
        let names = (0...(number % 3)).map { "case\(number)-t\($0)" }
        for name in names { try tenants.create(name) }
        for name in names {
            try await tenants.withStack(for: name) { stack in
                try await stack.write { context in context.insert(Item(owner: name, index: number)) }
            }
        }
        #expect(try tenants.names() == names.sorted())
        for name in names {
            let owners = try await tenants.withStack(for: name) { stack in
                try await stack.read { context in try Item.findAll(in: context).map(\.owner) }
            }
            #expect(owners == [name])
        }
        #expect(tenants.directory.path.contains("LiteRecordTesting-"))
    }

    @Test func outsideTheTraitThereIsNoFolder() {
        let error = #expect(throws: LiteRecordError.self) { try TemporaryTenants.current() }
        #expect(error?.kind == .notSetUp)
        #expect(error?.message.contains(".temporaryTenants") == true)
    }

    /// The trait's scope, run by hand: afterwards the folder is gone, with
    /// a tenant whose stack a closure had open and written to.
    @Test func theFolderIsRemovedWithEveryTenant() async throws {
        let test = try #require(Test.current)
        let seen = Seen()
        try await TemporaryTenantsTrait.temporaryTenants(entities: [Item.self]).provideScope(for: test, testCase: Test.Case.current) {
            let tenants = try TemporaryTenants.current()
            try tenants.create("acme")
            try await tenants.withStack(for: "acme") { stack in
                try await stack.write { context in context.insert(Item(owner: "acme", index: 0)) }
            }
            seen.folder = tenants.directory
            #expect(FileManager.default.fileExists(atPath: tenants.directory.appendingPathComponent("acme.sqlite").path))
        }
        let folder = try #require(seen.folder)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "the tenants folder was left behind")
        #expect(!FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().path))
    }
}

private final class Seen: @unchecked Sendable {
    var folder: URL?
}
