import Foundation
import Testing
import LiteRecord

/// `literecord inspect --tenant` and `backup --tenant`: the path names a
/// tenants folder, the tenant is found as `RecordStacks` finds it.
@Suite struct TenantCLITests {
    @Test func inspectAndBackupATenantOfAFolder() async throws {
        let temporary = try TemporaryDirectory()
        let folder = temporary.file("tenants")
        let tenants = try RecordStacks(directory: folder, entities: [TenantNote.self])
        try tenants.create("Acme")
        try await tenants.withStack(for: "acme") { stack in try await TenantFixture.addNote("hello", to: stack) }
        tenants.close()
        let binary = try Reliability.binary()

        let inspected = try await Reliability.run(binary, ["inspect", folder.path, "--tenant", "acme"])
        #expect(inspected.status == 0, "\(inspected.standardError)")
        #expect(inspected.standardOutput.contains("Acme.sqlite"), "\(inspected.standardOutput)")
        #expect(inspected.standardOutput.contains("TenantNote"), "\(inspected.standardOutput)")

        let copy = temporary.file("copy.sqlite")
        let backedUp = try await Reliability.run(binary, ["backup", folder.path, copy.path, "--tenant", "Acme"])
        #expect(backedUp.status == 0, "\(backedUp.standardError)")
        #expect(backedUp.standardOutput.contains("tenant Acme of"), "\(backedUp.standardOutput)")
        let restored = try RecordStack(storeAt: copy, entities: [TenantNote.self])
        #expect(try TenantNote.findAll(in: restored.newContext()).map(\.title) == ["hello"])
        try restored.close()

        let unknown = try await Reliability.run(binary, ["inspect", folder.path, "--tenant", "globex"])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("no tenant 'globex'"), "\(unknown.standardError)")
        let invalid = try await Reliability.run(binary, ["backup", folder.path, temporary.file("x.sqlite").path, "--tenant", "../etc"])
        #expect(invalid.status != 0)
        #expect(invalid.standardError.contains("tenant name"), "\(invalid.standardError)")
        #expect(!FileManager.default.fileExists(atPath: temporary.file("x.sqlite").path))
    }
}
