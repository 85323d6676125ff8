import Foundation
import Testing
import LiteRecord

/// A tenant deleted and created again starts empty and shares no
/// history token with the one deleted — a token of the old store is refused
/// as another store's (`.historyExpired`), never answered with the new
/// store's transactions.
@Suite struct TenantRecreateHistoryTests {
    @Test func aRecreatedTenantRefusesTheDeletedOnesTokens() async throws {
        let temporary = try TemporaryDirectory()
        let tenants = try RecordStacks(directory: temporary.url, entities: [TenantNote.self])
        defer { tenants.close() }
        try tenants.create("acme")
        let url = try RecordStacks.storeURL(ofTenant: "ACME", in: temporary.url)
        #expect(url.lastPathComponent == "acme.sqlite", "found in any letter case, spelled as created")

        let oldToken = try Self.writeWithHistory(url, titles: ["first", "second"])
        try await tenants.delete("acme")
        #expect(throws: LiteRecordError.self) { try RecordStacks.storeURL(ofTenant: "acme", in: temporary.url) }

        try tenants.create("acme")
        let count = try await tenants.withStack(for: "acme") { stack in
            try await stack.read { context in try TenantNote.count(in: context) }
        }
        #expect(count == 0, "the new tenant starts empty")
        let newToken = try Self.writeWithHistory(url, titles: ["third", "fourth"])
        #expect(newToken != oldToken)

        let stack = try RecordStack(storeAt: url, entities: [TenantNote.self], history: .enabled)
        defer { try? stack.close() }
        let error = #expect(throws: LiteRecordError.self) { try stack.fetchHistory(after: oldToken) }
        #expect(error?.kind == .historyExpired, "\(String(describing: error))")
        #expect(error?.message.contains("is not from") == true, "\(String(describing: error))")
    }

    /// Saves one note per title in the tenant's store, opened directly with
    /// history on; returns the newest token.
    private static func writeWithHistory(_ url: URL, titles: [String]) throws -> HistoryToken {
        let stack = try RecordStack(storeAt: url, entities: [TenantNote.self], history: .enabled)
        defer { try? stack.close() }
        for title in titles {
            let context = stack.newContext()
            let note = TenantNote()
            note.title = title
            context.insert(note)
            try context.save()
        }
        return try #require(try stack.newestHistoryToken())
    }
}
